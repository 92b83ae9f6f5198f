package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/hados-io/hados/operators/types"
)

// writeInts writes a one-column (x bigint) file holding vals.
func writeInts(t *testing.T, path string, vals ...int64) {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(len(vals)))
	defer rec.Release()
	writeFile(t, path, rec, parquet.WithMaxRowGroupLength(2))
}

func partitionedTable(t *testing.T) string {
	dir := t.TempDir()
	writeInts(t, filepath.Join(dir, "p=1", "q=a", "part-0.parquet"), 1, 2, 3)
	writeInts(t, filepath.Join(dir, "p=2", "q=__HIVE_DEFAULT_PARTITION__", "part-0.parquet"), 4)
	writeInts(t, filepath.Join(dir, "p=2", "q=b%2Fc", "part-0.parquet"), 5, 6)
	writeInts(t, filepath.Join(dir, "p=3", "q=a", "part-0.parquet"), 7)
	writeInts(t, filepath.Join(dir, "p=3", "q=a", "part-1.parquet"), 8)
	for _, junk := range []string{"_SUCCESS", "p=1/q=a/.part-0.parquet.crc", "_temporary/x.parquet"} {
		p := filepath.Join(dir, junk)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("not parquet"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestHivePartitions(t *testing.T) {
	dir := partitionedTable(t)
	cols := []Column{
		{Name: "x", Type: types.LongType},
		{Name: "p", Type: types.IntType, Partition: true},
		{Name: "q", Type: types.StringType, Nullable: true, Partition: true},
	}
	cases := []struct {
		name       string
		filters    []Filter
		pushed     []Filter
		want       string
		files      int
		partPruned int
	}{
		{"all", nil, nil, "1|1|a 2|1|a 3|1|a 4|2|null 5|2|b/c 6|2|b/c 7|3|a 8|3|a", 5, 0},
		{"p=2", []Filter{EqualTo{"p", int32(2)}}, nil, "4|2|null 5|2|b/c 6|2|b/c", 2, 2},
		{"q is null", []Filter{IsNull{"q"}}, nil, "4|2|null", 1, 3},
		{"q != a", []Filter{Not{EqualTo{"q", "a"}}}, nil, "5|2|b/c 6|2|b/c", 1, 3},
		{"p>=2 and q=a", []Filter{GreaterThanOrEqual{"p", int32(2)}, EqualTo{"q", "a"}}, nil, "7|3|a 8|3|a", 2, 3},
		{"with pushed", []Filter{In{"p", []Value{int32(1), int32(3)}}}, []Filter{GreaterThan{"x", int64(2)}}, "3|1|a 7|3|a 8|3|a", 3, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			alloc := testAlloc(t)
			rows, st := scanAll(t, Options{Dir: dir, Columns: cols, PartitionFilters: c.filters, Filters: c.pushed, Alloc: alloc})
			// Pushed filters prune row groups (of 2 rows here), not rows.
			if g := strings.Join(rows, " "); g != c.want {
				t.Errorf("rows = %s, want %s", g, c.want)
			}
			if st.Files != c.files || st.Partitions != 4 || st.PartitionsPruned != c.partPruned {
				t.Errorf("stats = %+v, want %d files, 4 partitions, %d pruned", st, c.files, c.partPruned)
			}
		})
	}
}

func TestPartitionOnlyColumns(t *testing.T) {
	dir := partitionedTable(t)
	alloc := testAlloc(t)
	rows, st := scanAll(t, Options{Dir: dir, Alloc: alloc, BatchRows: 1,
		Columns: []Column{{Name: "p", Type: types.LongType, Partition: true}}})
	if g := strings.Join(rows, " "); g != "1 1 1 2 2 2 3 3" {
		t.Errorf("rows = %s", g)
	}
	if st.Rows != 8 {
		t.Errorf("stats rows = %d", st.Rows)
	}
	// No columns at all (count(*)): records carry only a row count.
	s := mustOpen(t, Options{Dir: dir, Alloc: alloc})
	defer s.Close()
	var n int64
	each(t, s, func(rec arrow.RecordBatch) { n += rec.NumRows() })
	if n != 8 {
		t.Errorf("count = %d", n)
	}
}

func TestPartitionErrors(t *testing.T) {
	dir := t.TempDir()
	writeInts(t, filepath.Join(dir, "p=x", "f.parquet"), 1)
	alloc := testAlloc(t)
	_, _, err := tryScan(Options{Dir: dir, Alloc: alloc, Columns: []Column{{Name: "p", Type: types.IntType, Partition: true}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "f.parquet") || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("bad partition value: err = %v", err)
	}
	_, _, err = tryScan(Options{Dir: dir, Alloc: alloc, Columns: []Column{{Name: "r", Type: types.IntType, Partition: true}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "r=value") {
		t.Errorf("missing partition dir: err = %v", err)
	}
	_, _, err = tryScan(Options{Dir: dir, Alloc: alloc, Columns: []Column{{Name: "p", Type: types.StringType, Partition: true}},
		PartitionFilters: []Filter{EqualTo{"x", int64(1)}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a partition column") {
		t.Errorf("filter on data column: err = %v", err)
	}
}

func TestParsePartitionTypes(t *testing.T) {
	cases := []struct {
		t    types.DataType
		raw  string
		want string
	}{
		{types.BooleanType, "TRUE", "true"},
		{types.ByteType, "-7", "-7"},
		{types.DoubleType, "2.5", "2.5"},
		{types.DecimalOf(5, 2), "12.5", "12.5"},
		{types.DecimalOf(20, 0), "12345678901234567890", "12345678901234567890"},
		{types.DateType, "1995-03-15", "1995-03-15"},
		{types.TimestampType, "1995-03-15 10:00:00.5", "1995-03-15T10:00:00.5Z"},
		{types.StringType, hiveNull, "(null)"},
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	for _, c := range cases {
		v, err := parsePartition(c.t, c.raw)
		if err != nil {
			t.Fatalf("%s %q: %v", c.t, c.raw, err)
		}
		at, _ := types.ToArrow(c.t)
		a := constArray(mem, at, v, 2)
		if got := a.ValueStr(1); got != c.want {
			t.Errorf("%s %q = %s, want %s", c.t, c.raw, got, c.want)
		}
		a.Release()
	}
	for _, bad := range []struct {
		t   types.DataType
		raw string
	}{{types.ByteType, "300"}, {types.DecimalOf(3, 1), "123.4"}, {types.DecimalOf(5, 1), "1.25"}, {types.DateType, "1995-13-01"}} {
		if _, err := parsePartition(bad.t, bad.raw); err == nil {
			t.Errorf("%s %q: no error", bad.t, bad.raw)
		}
	}
}
