package write

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/google/uuid"
)

// Defaults, chosen to match what Spark (parquet-mr) writes.
const (
	// DefaultRowGroupBytes is parquet.block.size: 128 MiB.
	DefaultRowGroupBytes int64 = 128 << 20
	// DefaultPageBytes is parquet.page.size: 1 MiB.
	DefaultPageBytes int64 = 1 << 20
	// DefaultRowGroupRows caps the rows of a row group. Spark has no such
	// cap; this is arrow-go's default and is rarely reached before the byte
	// limit.
	DefaultRowGroupRows int64 = parquet.DefaultMaxRowGroupLen
	// DefaultBloomFPP is the false-positive probability of a bloom filter
	// whose BloomOptions.FPP is zero (parquet-mr's default).
	DefaultBloomFPP = 0.01
)

// Options configure one Writer, i.e. one Spark write task. Only Dir and
// Schema are required; every zero value means "Spark's default".
type Options struct {
	// Dir is the output table directory. It is created (0755) if missing.
	Dir string
	// Schema is the schema of every record passed to Write.
	Schema *arrow.Schema
	// PartitionBy names the columns of Schema whose values choose the
	// Hive-style directory (col=value/...) of each row (dynamic partitions).
	// They are not stored inside the files, as in Spark.
	PartitionBy []string
	// Codec is "snappy" (default), "lz4_raw", "zstd" or "none"
	// ("uncompressed" is accepted as Spark's alias for "none").
	Codec string
	// RowGroupRows and RowGroupBytes close a row group when either is
	// reached (bytes are counted after encoding and compression, a page at a
	// time); PageBytes is the target data page size. Zero means the default.
	RowGroupRows, RowGroupBytes, PageBytes int64
	// NoStatistics turns off column chunk and page statistics (on by
	// default, as in Spark).
	NoStatistics bool
	// NoPageIndex turns off the column and offset indexes (on by default).
	NoPageIndex bool
	// BloomFilters asks for a split-block bloom filter on the named
	// (top-level, non-partition) columns.
	BloomFilters map[string]BloomOptions
	// TimestampType is "micros" (default: INT64 TIMESTAMP(MICROS), Spark's
	// TIMESTAMP_MICROS) or "int96" (Spark's legacy INT96). Timestamps without
	// a time zone (timestamp_ntz) are always written as micros, so "int96" is
	// refused for a schema holding one.
	TimestampType string
	// TimeZone is Spark's session time zone (spark.sql.session.timeZone),
	// used only to format timestamp partition values. Default "UTC".
	TimeZone string
	// TaskID names the files of this task: part-<Split>-<TaskID>.c<n>.<codec>.parquet
	// (Spark puts the job's UUID there). Default: a random UUID.
	TaskID string
	// Split is the task's partition index, the 00000 of the file name.
	Split int
	// MaxFileRows starts a new file (c001, c002, …) once a file holds that
	// many rows (spark.sql.files.maxRecordsPerFile). Zero means no limit.
	MaxFileRows int64
	// Allocator serves the encoder's buffers. Default memory.DefaultAllocator.
	Allocator memory.Allocator
}

// BloomOptions size the bloom filter of one column.
type BloomOptions struct {
	// NDV is the expected number of distinct values per row group. Zero
	// means unknown: the filter then takes the maximum size (1 MiB), as
	// parquet-mr does.
	NDV int64
	// FPP is the wanted false-positive probability, in (0, 1). Zero means
	// DefaultBloomFPP.
	FPP float64
}

// codecInfo is one accepted Options.Codec value.
type codecInfo struct {
	codec compress.Compression
	ext   string // file name extension before ".parquet", as parquet-mr names it
}

var codecs = map[string]codecInfo{
	"snappy":       {compress.Codecs.Snappy, ".snappy"},
	"lz4_raw":      {compress.Codecs.Lz4Raw, ".lz4raw"},
	"zstd":         {compress.Codecs.Zstd, ".zstd"},
	"none":         {compress.Codecs.Uncompressed, ""},
	"uncompressed": {compress.Codecs.Uncompressed, ""},
}

// taskIDPattern keeps TaskID a single, visible path component.
var taskIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// config is the validated, defaulted form of Options: the immutable spec of
// a Writer. It owns no memory.
type config struct {
	Options
	codec     codecInfo
	int96     bool
	loc       *time.Location
	partIdx   []int    // indexes in Schema of the partition columns, in PartitionBy order
	dataIdx   []int    // indexes in Schema of the stored columns
	dataNames []string // their names
}

// invalid builds an ErrInvalidOptions error.
func invalid(format string, args ...any) error {
	return fmt.Errorf("write: %s: %w", fmt.Sprintf(format, args...), ErrInvalidOptions)
}

// newConfig validates opt and fills in the defaults.
func newConfig(opt Options) (*config, error) {
	c := &config{Options: opt}
	if strings.TrimSpace(c.Dir) == "" {
		return nil, invalid("Options.Dir is empty")
	}
	if c.Schema == nil || c.Schema.NumFields() == 0 {
		return nil, invalid("Options.Schema is nil or has no columns")
	}
	if err := c.defaults(); err != nil {
		return nil, err
	}
	if err := c.resolveColumns(); err != nil {
		return nil, err
	}
	if err := c.checkTimestamps(); err != nil {
		return nil, err
	}
	if err := c.checkBloom(); err != nil {
		return nil, err
	}
	return c, nil
}

// defaults checks and fills the scalar options.
func (c *config) defaults() error {
	name := strings.ToLower(strings.TrimSpace(c.Codec))
	if name == "" {
		name = "snappy"
	}
	ci, ok := codecs[name]
	if !ok {
		return invalid("unknown codec %q (want snappy, lz4_raw, zstd or none)", c.Codec)
	}
	c.Codec, c.codec = name, ci

	for _, f := range []struct {
		name string
		v    *int64
		def  int64
	}{
		{"RowGroupRows", &c.RowGroupRows, DefaultRowGroupRows},
		{"RowGroupBytes", &c.RowGroupBytes, DefaultRowGroupBytes},
		{"PageBytes", &c.PageBytes, DefaultPageBytes},
	} {
		switch {
		case *f.v < 0:
			return invalid("Options.%s is negative (%d)", f.name, *f.v)
		case *f.v == 0:
			*f.v = f.def
		}
	}
	if c.MaxFileRows < 0 {
		return invalid("Options.MaxFileRows is negative (%d)", c.MaxFileRows)
	}
	if c.MaxFileRows == 0 {
		c.MaxFileRows = math.MaxInt64
	}
	if c.Split < 0 {
		return invalid("Options.Split is negative (%d)", c.Split)
	}

	switch strings.ToLower(strings.TrimSpace(c.TimestampType)) {
	case "", "micros", "timestamp_micros":
		c.TimestampType = "micros"
	case "int96":
		c.TimestampType, c.int96 = "int96", true
	default:
		return invalid("unknown TimestampType %q (want micros or int96)", c.TimestampType)
	}

	if c.TimeZone == "" {
		c.TimeZone = "UTC"
	}
	loc, err := time.LoadLocation(c.TimeZone)
	if err != nil {
		return invalid("Options.TimeZone %q: %v", c.TimeZone, err)
	}
	c.loc = loc

	if c.TaskID == "" {
		c.TaskID = uuid.NewString()
	}
	if !taskIDPattern.MatchString(c.TaskID) {
		return invalid("Options.TaskID %q must be letters, digits, '_', '-' or '.', not starting with a dot", c.TaskID)
	}
	if c.Allocator == nil {
		c.Allocator = memory.DefaultAllocator
	}
	return nil
}

// resolveColumns splits the schema into partition and data columns.
func (c *config) resolveColumns() error {
	isPart := make(map[int]bool, len(c.PartitionBy))
	for _, name := range c.PartitionBy {
		idx := c.Schema.FieldIndices(name)
		switch len(idx) {
		case 0:
			return invalid("partition column %q is not in the schema (columns: %s)", name, columnList(c.Schema))
		case 1:
		default:
			return invalid("partition column %q is ambiguous: the schema has %d columns of that name", name, len(idx))
		}
		if isPart[idx[0]] {
			return invalid("partition column %q is listed twice", name)
		}
		f := c.Schema.Field(idx[0])
		if _, err := partitionFormatter(f, c.loc); err != nil {
			return err
		}
		isPart[idx[0]] = true
		c.partIdx = append(c.partIdx, idx[0])
	}
	for i, f := range c.Schema.Fields() {
		if !isPart[i] {
			c.dataIdx = append(c.dataIdx, i)
			c.dataNames = append(c.dataNames, f.Name)
		}
	}
	if len(c.dataIdx) == 0 {
		return invalid("every column is a partition column; at least one must be stored in the files")
	}
	return nil
}

// checkTimestamps refuses int96 output for a schema with timestamp_ntz
// columns: Spark writes those as INT64 micros whatever
// spark.sql.parquet.outputTimestampType says, and arrow-go applies int96 to
// every timestamp column of a file.
func (c *config) checkTimestamps() error {
	if !c.int96 {
		return nil
	}
	for _, i := range c.dataIdx {
		f := c.Schema.Field(i)
		if ts, ok := f.Type.(*arrow.TimestampType); ok && ts.TimeZone == "" {
			return invalid("TimestampType int96 with column %q of type timestamp_ntz (%s): Spark stores timestamp_ntz as INT64 micros and arrow-go cannot mix both in one file", f.Name, f.Type)
		}
	}
	return nil
}

// checkBloom validates BloomFilters against the stored columns.
func (c *config) checkBloom() error {
	for name, b := range c.BloomFilters {
		idx := c.Schema.FieldIndices(name)
		if len(idx) == 0 {
			return invalid("bloom filter column %q is not in the schema (columns: %s)", name, columnList(c.Schema))
		}
		for _, p := range c.partIdx {
			if p == idx[0] {
				return invalid("bloom filter column %q is a partition column, which is not stored in the files", name)
			}
		}
		if arrow.IsNested(c.Schema.Field(idx[0]).Type.ID()) {
			return invalid("bloom filter column %q has nested type %s; only primitive columns take bloom filters", name, c.Schema.Field(idx[0]).Type)
		}
		if b.NDV < 0 {
			return invalid("bloom filter column %q: NDV is negative (%d)", name, b.NDV)
		}
		if b.FPP != 0 && !(b.FPP > 0 && b.FPP < 1) {
			return invalid("bloom filter column %q: FPP %v is not in (0, 1)", name, b.FPP)
		}
	}
	return nil
}

func columnList(s *arrow.Schema) string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
