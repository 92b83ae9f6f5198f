package scan

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/hados-io/hados/operators/types"
)

// TestFileRowGroups: Options.FileRowGroups reads each listed file's own
// range of row groups (an end of 0: to the last), in file order, and
// refuses ranges that do not match Files.
func TestFileRowGroups(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for f := range 2 {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for i := range 300 {
			b.Append(int64(1000*f + i))
		}
		col := b.NewArray()
		b.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, 300)
		col.Release()
		p := filepath.Join(dir, fmt.Sprintf("f%d.parquet", f))
		writeFile(t, p, rec, parquet.WithMaxRowGroupLength(100)) // 3 row groups of 100 rows
		rec.Release()
		files = append(files, p)
	}
	cols := []Column{{Name: "x", Type: types.LongType}}
	rowsOf := func(lo0, hi0, lo1, hi1 int) []string {
		var out []string
		for i := lo0; i < hi0; i++ {
			out = append(out, fmt.Sprint(i))
		}
		for i := lo1; i < hi1; i++ {
			out = append(out, fmt.Sprint(1000+i))
		}
		return out
	}
	for _, c := range []struct {
		ranges [][2]int
		want   []string
	}{
		{[][2]int{{1, 3}, {0, 1}}, rowsOf(100, 300, 0, 100)},
		{[][2]int{{2, 0}, {1, 2}}, rowsOf(200, 300, 100, 200)},
		{[][2]int{{0, 0}, {0, 9}}, rowsOf(0, 300, 0, 300)},
	} {
		got, _ := scanAll(t, Options{Files: files, Columns: cols, Alloc: testAlloc(t), Parallelism: 2, FileRowGroups: c.ranges})
		if !slices.Equal(got, c.want) {
			t.Errorf("ranges %v: %s", c.ranges, diffRows(c.want, got))
		}
	}
	for _, bad := range []Options{
		{Files: files, FileRowGroups: [][2]int{{0, 1}}},
		{Files: files, FileRowGroups: [][2]int{{1, 1}, {0, 1}}},
		{Files: files, FileRowGroups: [][2]int{{0, 1}, {0, 1}}, RowGroupEnd: 1},
		{Files: []string{files[0], files[0]}, FileRowGroups: [][2]int{{0, 1}, {1, 2}}},
	} {
		bad.Columns, bad.Alloc = cols, testAlloc(t)
		if _, _, err := tryScan(bad, nil); err == nil {
			t.Errorf("options %v / %v: no error", bad.Files, bad.FileRowGroups)
		}
	}
}
