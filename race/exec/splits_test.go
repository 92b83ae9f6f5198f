package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeRowGroups writes a Parquet file of groups row groups of rows
// random-ish int64 values each (so their sizes are about equal).
func writeRowGroups(t *testing.T, path string, groups, rows int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	x := uint64(len(path))
	for range groups {
		for range rows {
			x = x*6364136223846793005 + 1442695040888963407
			b.Append(int64(x >> 1))
		}
		col := b.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(rows))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		col.Release()
		rec.Release() // each Write is a row group of its own
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPlanSplits: a table's files and row groups are cut into tasks of
// about equal bytes, every row group read by exactly one task, in order,
// a file cut only between row groups; lineitem's shape at SF1 (3 files of
// 2 row groups, the last smaller) is 2 tasks on 2 cores.
func TestPlanSplits(t *testing.T) {
	defer func(old int64) { fixedSplitBytes = old }(fixedSplitBytes)
	dir := t.TempDir()
	var files []string
	for i, rows := range []int{40000, 40000, 34000} {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.parquet", i))
		writeRowGroups(t, p, 2, rows)
		files = append(files, p)
	}
	var total int64
	for _, f := range files {
		st, _ := os.Stat(f)
		total += st.Size()
	}
	check := func(name string, got []split, wantTasks int) {
		t.Helper()
		files := files
		seen := map[string][]bool{}
		for _, f := range files {
			seen[f] = make([]bool, 2)
		}
		prev := [2]int{-1, -1} // file index, row group of the last piece
		for _, s := range got {
			if len(s.pieces) == 0 {
				t.Errorf("%s: an empty task", name)
			}
			for _, p := range s.pieces {
				lo, hi := p.rgLo, p.rgHi
				if hi == 0 {
					lo, hi = 0, 2
				}
				fi := 0
				for fi < len(files) && files[fi] != p.file {
					fi++
				}
				for rg := lo; rg < hi; rg++ {
					if seen[p.file][rg] {
						t.Errorf("%s: row group %d of %s read twice", name, rg, p.file)
					}
					seen[p.file][rg] = true
					if [2]int{fi, rg} != nextRG(prev) {
						t.Errorf("%s: row group %d of file %d after %v: out of order", name, rg, fi, prev)
					}
					prev = [2]int{fi, rg}
				}
			}
		}
		for f, rgs := range seen {
			for rg, ok := range rgs {
				if !ok {
					t.Errorf("%s: row group %d of %s is read by no task", name, rg, f)
				}
			}
		}
		if wantTasks > 0 && len(got) != wantTasks {
			t.Errorf("%s: %d tasks %v, want %d", name, len(got), got, wantTasks)
		}
	}
	fixedSplitBytes = (total + 1) / 2
	two := planSplits(files, 2)
	check("2 cores", two, 2)
	if len(two) == 2 && (len(two[0].pieces) != 2 || two[0].pieces[0].rgHi != 0 || two[0].pieces[1] != (piece{files[1], 0, 1})) {
		t.Errorf("2 cores: first task %v, want the first file whole and the second's first row group", two[0].pieces)
	}
	fixedSplitBytes = (total + 2) / 3
	check("3 tasks", planSplits(files, 3), 3)
	fixedSplitBytes = 1
	check("a task per row group", planSplits(files, 2), 6)
	fixedSplitBytes = total * 2
	one := planSplits(files, 1)
	check("one task", one, 1)
	for _, p := range one[0].pieces {
		if p.rgHi != 0 {
			t.Errorf("one task reads %v, want every file whole", one[0].pieces)
		}
	}
	fixedSplitBytes = 0
	check("computed", planSplits(files, 2), 0)
	gone := filepath.Join(dir, "gone.parquet")
	withGone := planSplits(append(files[:2:2], gone), 2)
	if last := withGone[len(withGone)-1].pieces; last[len(last)-1] != (piece{file: gone}) {
		t.Errorf("a missing file is planned as %v, want read whole (the scan reports it)", last)
	}
}

// TestSplitTarget: a table of total bytes at cores engine cores is
// planned as at most cores tasks when it is big enough for every core,
// whatever its size modulo the cores (a share rounded down made an odd
// size one task more).
func TestSplitTarget(t *testing.T) {
	for _, c := range []struct {
		total     int64
		cores     int
		wantTasks int64
	}{
		{50544523, 2, 2}, // TPC-H SF1's orders, an odd size
		{50544522, 2, 2},
		{200225460, 2, 2},
		{200225461, 3, 3},
		{12714899, 2, 2},
		{5 << 20, 2, 2}, // the share below minSplitBytes: tasks of minSplitBytes
		{3 << 20, 2, 1},
		{1 << 30, 2, 8}, // maxSplitBytes bounds a task
		{100, 0, 1},
	} {
		target := splitTarget(c.total, c.cores)
		if tasks := max(1, (c.total+target-1)/target); tasks != c.wantTasks {
			t.Errorf("%d bytes at %d cores: %d tasks of %d bytes, want %d", c.total, c.cores, tasks, target, c.wantTasks)
		}
	}
}

// nextRG is the row group after (file, rg) in a table of files of 2 row
// groups each.
func nextRG(at [2]int) [2]int {
	switch {
	case at[0] < 0:
		return [2]int{0, 0}
	case at[1] == 0:
		return [2]int{at[0], 1}
	}
	return [2]int{at[0] + 1, 0}
}
