package scan

import (
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

// Column is one required output column.
type Column struct {
	Name     string
	Type     types.DataType
	Nullable bool
	// Partition marks a Hive partition column: its value comes from the
	// file's directory (col=value/), typed by Type.
	Partition bool
}

// Options describe one scan. They are read by Open and not kept.
type Options struct {
	// Files lists the Parquet files to read, in output order. Hive
	// partition values are taken from the col=value directories in their
	// paths. Exactly one of Files and Dir is set.
	Files []string
	// Dir is a table directory, walked recursively (names starting with
	// "_" or "." are skipped, like Spark does); files are read in path order.
	Dir string

	// Columns are the required columns (data and partition), in output order.
	Columns []Column
	// PartitionFilters test partition columns only; Filters (Spark's pushed
	// filters) test data columns, which need not be required columns.
	PartitionFilters, Filters []Filter

	// Alloc receives every output buffer (required). Scratch used while
	// reading pages lives on the Go heap.
	Alloc memory.Allocator

	// BatchRows is the number of rows per output record (default 65536).
	// Records never span row groups, so a record may be shorter.
	BatchRows int
	// Parallelism is the number of splits decoded at once (default
	// GOMAXPROCS), and bounds the goroutines decompressing pages ahead of
	// the decoders to Parallelism-1, or GOMAXPROCS-1 if fewer (see the
	// package doc). Output order does not depend on it.
	Parallelism int
	// SplitBytes groups consecutive row groups of one file into a split of
	// about this many compressed bytes; a row group is never cut. Unset, it
	// is chosen from the data: about four splits per worker (the files'
	// bytes / (4 × Parallelism)), between 8 and 128 MiB.
	SplitBytes int64
	// Prefetch is the number of decoded records the worker on the split
	// being read may hold ahead of the consumer whatever PrefetchBytes says
	// (default 2).
	Prefetch int
	// PrefetchBytes bounds the bytes (buffer lengths) of all the records
	// decoded and not yet returned by Next, so that workers on later
	// splits keep decoding while the consumer reads an earlier one, within
	// a bound of device memory (see prefetch.go). Unset, it is about two
	// splits' decoded bytes of the required columns per worker beyond the
	// first (at least one), between 8 and 256 MiB, and at most a quarter of the quota of
	// Alloc's account when it is a hados allocator with a limited account.
	// A record larger than the budget is still queued when nothing else
	// is.
	PrefetchBytes int64
	// RowGroupStart and RowGroupEnd, when RowGroupEnd > 0, restrict every
	// file to its row groups [RowGroupStart, RowGroupEnd) (clamped to the
	// file's count): the tasks of a stage that splits a file by row groups
	// each read their part.
	RowGroupStart, RowGroupEnd int
	// FileRowGroups, when set, has one range per entry of Files: file i is
	// read from its row groups [FileRowGroups[i][0], FileRowGroups[i][1])
	// (clamped to its count; an end of 0 reads to the last), so that one
	// task can read runs of row groups of several files. It replaces
	// RowGroupStart/End, and a file may then be listed only once.
	FileRowGroups [][2]int

	// DictColumns names output columns of type string or binary that may
	// come out as dictionary<int32, utf8|binary> instead of dense (a
	// dictionary-reading consumer, such as a device pipeline, then skips
	// the expansion of every row's value): a column does when every file
	// reads it as a dictionary (each of its chunks wholly dictionary
	// encoded by the footer); Scanner.Schema says which do. The records
	// of a row group read whole share its dictionary; null slots' indices
	// are 0. See dictout.go.
	DictColumns []string

	// Pruning switches, all on by default.
	DisableStats, DisablePageIndex, DisableDictionary, DisableBloom bool
}

const (
	defaultBatchRows  = 64 << 10
	defaultSplitBytes = 128 << 20
	defaultPrefetch   = 2
)

func (o *Options) withDefaults() (Options, error) {
	c := *o
	if (len(c.Files) == 0) == (c.Dir == "") {
		return c, fmt.Errorf("%w: exactly one of Files and Dir must be set", ErrOptions)
	}
	if c.Alloc == nil {
		return c, fmt.Errorf("%w: Alloc is required", ErrOptions)
	}
	if c.BatchRows <= 0 {
		c.BatchRows = defaultBatchRows
	}
	if c.Parallelism <= 0 {
		c.Parallelism = runtime.GOMAXPROCS(0)
	}
	if c.SplitBytes <= 0 {
		c.SplitBytes = defaultSplitBytes
	}
	if c.Prefetch <= 0 {
		c.Prefetch = defaultPrefetch
	}
	if c.RowGroupStart < 0 || c.RowGroupEnd < 0 || (c.RowGroupEnd > 0 && c.RowGroupStart >= c.RowGroupEnd) {
		return c, fmt.Errorf("%w: row groups [%d, %d) is not a range", ErrOptions, c.RowGroupStart, c.RowGroupEnd)
	}
	if c.FileRowGroups != nil {
		if len(c.FileRowGroups) != len(c.Files) || c.RowGroupEnd > 0 {
			return c, fmt.Errorf("%w: %d row group ranges for %d files (and RowGroupEnd %d)", ErrOptions, len(c.FileRowGroups), len(c.Files), c.RowGroupEnd)
		}
		listed := map[string]bool{}
		for i, r := range c.FileRowGroups {
			if r[0] < 0 || r[1] < 0 || (r[1] > 0 && r[0] >= r[1]) {
				return c, fmt.Errorf("%w: row groups [%d, %d) of %s is not a range", ErrOptions, r[0], r[1], c.Files[i])
			}
			if listed[c.Files[i]] {
				return c, fmt.Errorf("%w: %s is listed twice with row group ranges", ErrOptions, c.Files[i])
			}
			listed[c.Files[i]] = true
		}
	}
	if err := checkDictColumns(&c); err != nil {
		return c, err
	}
	seen := map[string]bool{}
	for _, col := range c.Columns {
		if col.Name == "" {
			return c, fmt.Errorf("%w: a required column has no name", ErrOptions)
		}
		if seen[col.Name] {
			return c, fmt.Errorf("%w: column %s is required twice", ErrOptions, col.Name)
		}
		seen[col.Name] = true
		if _, err := types.ToArrow(col.Type); err != nil || col.Type.Kind == types.Null {
			return c, &UnsupportedTypeError{Column: col.Name, Type: col.Type.String()}
		}
	}
	return c, nil
}
