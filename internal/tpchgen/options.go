package tpchgen

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Schema selects the column types the generated tables carry. The values are
// the same in every schema; only the declared types (and therefore the
// rounding of decimal columns) differ.
type Schema int

const (
	// Standard uses the TPC-H specification's types: identifiers bigint,
	// money and quantities decimal(15,2), dates date, text string.
	Standard Schema = iota
	// SparkTest uses the types of the schema Spark's approved TPC-H plans
	// were made against: every decimal column is decimal(10,0), its value
	// rounded half-up (away from zero) to an integer as a cast would.
	SparkTest
)

// String returns the schema's command-line name ("standard" or "spark-test").
func (s Schema) String() string {
	switch s {
	case Standard:
		return "standard"
	case SparkTest:
		return "spark-test"
	}
	return fmt.Sprintf("Schema(%d)", int(s))
}

// ParseSchema turns a command-line name ("standard", "spark-test") into a
// Schema. The empty string means Standard.
func ParseSchema(name string) (Schema, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "standard":
		return Standard, nil
	case "spark-test", "sparktest", "spark_test":
		return SparkTest, nil
	}
	return 0, fmt.Errorf("%w: unknown schema %q (want standard or spark-test)", ErrInvalidOptions, name)
}

// ErrInvalidOptions is wrapped by every error about a bad Options value.
var ErrInvalidOptions = errors.New("tpchgen: invalid options")

// ErrUnknownTable is wrapped (together with ErrInvalidOptions) when a table
// name is not one of the eight TPC-H tables.
var ErrUnknownTable = errors.New("unknown table")

// Defaults applied by Options when a field is zero.
const (
	// DefaultRowGroupRows is the Parquet row-group size in rows.
	DefaultRowGroupRows = 1 << 20
	// DefaultBatchRows is the number of rows per Arrow record batch.
	DefaultBatchRows = 1 << 16
	// rowGroupsPerFile bounds a part file to this many full row groups.
	rowGroupsPerFile = 2
)

// Options configures Generate and NewTableReader. The zero value of every
// field except SF (and Out, for Generate) selects a sensible default.
type Options struct {
	// SF is the scale factor; must be > 0. SF 1 is about 1 GB of text data
	// (6,001,215 lineitem rows with the reference generator).
	SF float64
	// Out is the output directory for Generate; each table is written to
	// Out/<table>/part-NNNNN.parquet. Unused by NewTableReader.
	Out string
	// Schema selects the column types (Standard or SparkTest).
	Schema Schema
	// Seed makes the data deterministic: the same seed, SF and schema give
	// the same values, and with the same layout options the same bytes.
	Seed uint64
	// RowGroupRows is the Parquet row-group size (default 1<<20). A part
	// file holds at most 2*RowGroupRows rows; bigger tables are split into
	// several files (lineitem on order boundaries).
	RowGroupRows int
	// BatchRows is the approximate Arrow record-batch size (default 1<<16).
	// Lineitem batches end on order boundaries, so they vary a little.
	BatchRows int
	// Tables restricts generation to these tables (empty = all eight).
	Tables []string
	// Workers bounds the number of files written at once
	// (default GOMAXPROCS).
	Workers int
	// Progress, if set, is called after every written batch with the rows
	// written so far for that table and the table's total. Calls are
	// serialised (never concurrent) but come from worker goroutines.
	Progress func(table string, done, total int64)
	// Mem allocates the Arrow buffers (default memory.DefaultAllocator).
	Mem memory.Allocator
}

// resolved is Options after validation with defaults filled in.
type resolved struct {
	Options
	tables []*tableSpec
}

// resolve validates opt and fills defaults. needOut says whether Out is
// required (Generate) or ignored (NewTableReader).
func (opt Options) resolve(needOut bool) (resolved, error) {
	r := resolved{Options: opt}
	if math.IsNaN(opt.SF) || math.IsInf(opt.SF, 0) || opt.SF <= 0 {
		return r, fmt.Errorf("%w: scale factor must be a finite number > 0, got %v", ErrInvalidOptions, opt.SF)
	}
	if opt.SF > 100000 {
		return r, fmt.Errorf("%w: scale factor %v is larger than the supported maximum 100000", ErrInvalidOptions, opt.SF)
	}
	if c := newCardinality(opt.SF); c.supplier < 1 {
		return r, fmt.Errorf("%w: scale factor %v is too small: it gives no supplier rows (need SF >= 0.0001)", ErrInvalidOptions, opt.SF)
	}
	if opt.Schema != Standard && opt.Schema != SparkTest {
		return r, fmt.Errorf("%w: unknown schema %v", ErrInvalidOptions, opt.Schema)
	}
	if opt.RowGroupRows < 0 || opt.BatchRows < 0 || opt.Workers < 0 {
		return r, fmt.Errorf("%w: RowGroupRows, BatchRows and Workers must not be negative", ErrInvalidOptions)
	}
	if needOut && strings.TrimSpace(opt.Out) == "" {
		return r, fmt.Errorf("%w: no output directory given", ErrInvalidOptions)
	}
	if r.RowGroupRows == 0 {
		r.RowGroupRows = DefaultRowGroupRows
	}
	if r.BatchRows == 0 {
		r.BatchRows = DefaultBatchRows
	}
	if r.BatchRows > r.RowGroupRows {
		r.BatchRows = r.RowGroupRows
	}
	if r.Workers == 0 {
		r.Workers = runtime.GOMAXPROCS(0)
	}
	if r.Mem == nil {
		r.Mem = memory.DefaultAllocator
	}
	seen := map[string]bool{}
	names := opt.Tables
	if len(names) == 0 {
		names = TableNames()
	}
	for _, n := range names {
		t, err := lookupTable(n)
		if err != nil {
			return r, err
		}
		if !seen[t.name] {
			seen[t.name] = true
			r.tables = append(r.tables, t)
		}
	}
	return r, nil
}
