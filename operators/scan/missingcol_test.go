package scan

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/hados-io/hados/operators/types"
)

// twoSchemaFiles writes old.parquet (id only) and new.parquet (id and a
// column added later, zz), as a table whose schema grew.
func twoSchemaFiles(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	defer ids.Release()
	zz := array.NewInt32Builder(memory.DefaultAllocator)
	defer zz.Release()
	write := func(name string, withZZ bool, from int64) string {
		fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
		for i := from; i < from+4; i++ {
			ids.Append(i)
			zz.Append(int32(10 * i))
		}
		cols := []arrow.Array{ids.NewArray()}
		z := zz.NewArray()
		if withZZ {
			fields = append(fields, arrow.Field{Name: "zz", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
			cols = append(cols, z)
		} else {
			z.Release()
		}
		rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, 4)
		for _, c := range cols {
			c.Release()
		}
		defer rec.Release()
		path := filepath.Join(dir, name)
		writeFile(t, path, rec, parquet.WithMaxRowGroupLength(2), parquet.WithStats(true))
		return path
	}
	return []string{write("old.parquet", false, 0), write("new.parquet", true, 4)}
}

// TestMissingColumnReadsNull: a required column absent from some files of
// the table reads as nulls there, with or without filters on it, and
// pruning on it stays exact.
func TestMissingColumnReadsNull(t *testing.T) {
	files := twoSchemaFiles(t)
	cols := []Column{{Name: "id", Type: types.LongType}, {Name: "zz", Type: types.IntType, Nullable: true}}
	onlyZZ := cols[1:]
	cases := []struct {
		name   string
		cols   []Column
		filter Filter
		want   string
		pruned int64 // row groups pruned by statistics
	}{
		{"no filter", cols, nil, "0|null 1|null 2|null 3|null 4|40 5|50 6|60 7|70", 0},
		{"only the missing column", onlyZZ, nil, "null null null null 40 50 60 70", 0},
		{"is null", cols, IsNull{"zz"}, "0|null 1|null 2|null 3|null", 2},
		{"greater than", cols, GreaterThan{"zz", int32(55)}, "6|60 7|70", 3},
		{"is not null", cols, IsNotNull{"zz"}, "4|40 5|50 6|60 7|70", 2},
		{"or on the present column", cols, Or{LessThan{"id", int64(1)}, EqualTo{"zz", int32(70)}}, "0|null 7|70", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt := Options{Files: files, Columns: c.cols, Alloc: testAlloc(t), Parallelism: 2}
			if c.filter != nil {
				opt.Filters = []Filter{c.filter}
			}
			rows, st, err := tryScan(opt, c.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rows, " "); got != c.want {
				t.Errorf("rows %q, want %q", got, c.want)
			}
			if st.RowGroupsPrunedStats != c.pruned {
				t.Errorf("%d row groups pruned by statistics, want %d", st.RowGroupsPrunedStats, c.pruned)
			}
		})
	}
	// A filter-only column is typed from the first file that has it.
	rows, _, err := tryScan(Options{Files: files, Columns: cols[:1], Filters: []Filter{IsNotNull{"zz"}}, Alloc: testAlloc(t)}, nil)
	if err != nil || len(rows) != 4 {
		t.Errorf("filter-only column: %v %v", rows, err)
	}
	// A column no file has cannot be typed for a filter.
	_, _, err = tryScan(Options{Files: files, Columns: cols[:1], Filters: []Filter{IsNotNull{"nope"}}, Alloc: testAlloc(t)}, nil)
	if err == nil || !strings.Contains(err.Error(), "no column nope") {
		t.Errorf("unknown filter column: %v", err)
	}
}
