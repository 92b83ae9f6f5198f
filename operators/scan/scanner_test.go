package scan

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
)

// TestDeterministicOrder: whatever the parallelism, split size, prefetch
// (records and bytes) and batch size, rows come out in file order then row group order, and
// records never span row groups.
func TestDeterministicOrder(t *testing.T) {
	dir := t.TempDir()
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	var files []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("f%d.parquet", i))
		writeFile(t, p, rec, parquet.WithMaxRowGroupLength(int64(100+50*i)), parquet.WithPageIndexEnabled(true))
		files = append(files, p)
	}
	// The middle file first: output order is the list's order.
	files[0], files[1] = files[1], files[0]
	base := Options{Files: files, Columns: testColumns, Parallelism: 1, BatchRows: 1 << 20}
	base.Alloc = testAlloc(t)
	want, _ := scanAll(t, base)
	if len(want) != 3*testRows {
		t.Fatalf("%d rows", len(want))
	}
	filtered := Options{Filters: []Filter{Or{LessThan{"id", int64(150)}, GreaterThan{"id", int64(1000)}}}}
	wantFiltered, _, err := tryScan(withFilters(base, filtered.Filters), filtered.Filters[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, par := range []int{1, 3, 8} {
		for _, split := range []int64{0, 1, 1 << 30} {
			for _, batch := range []int{33, 0} {
				opt := base
				opt.Parallelism, opt.SplitBytes, opt.BatchRows, opt.Prefetch = par, split, batch, 1+par%3
				if split == 1 { // many splits: a budget that holds later splits to one record
					opt.PrefetchBytes = 1
				}
				opt.Alloc = testAlloc(t)
				s := mustOpen(t, opt)
				var got []string
				each(t, s, func(r arrow.RecordBatch) {
					if batch > 0 && r.NumRows() > int64(batch) {
						t.Errorf("record of %d rows, batch %d", r.NumRows(), batch)
					}
					for i := 0; i < int(r.NumRows()); i++ {
						got = append(got, rowString(r, i))
					}
				})
				st := s.Stats()
				s.Close()
				if d := diffRows(want, got); d != "" {
					t.Fatalf("par %d split %d batch %d: %s", par, split, batch, d)
				}
				if st.Rows != int64(len(want)) || st.Files != 3 || st.RowGroups == 0 || st.BytesRead == 0 {
					t.Errorf("stats %+v", st)
				}
				fopt := withFilters(opt, filtered.Filters)
				fopt.Alloc = testAlloc(t)
				gotF, _, err := tryScan(fopt, filtered.Filters[0])
				if err != nil {
					t.Fatal(err)
				}
				if d := diffRows(wantFiltered, gotF); d != "" {
					t.Fatalf("filtered, par %d split %d batch %d: %s", par, split, batch, d)
				}
			}
		}
	}
}

func withFilters(o Options, fs []Filter) Options {
	o.Filters = fs
	return o
}

// TestAutoSplits: with SplitBytes unset, a few files of several row groups
// are cut into about four splits per worker, and the rows are the same.
func TestAutoSplits(t *testing.T) {
	defer func(old int64) { minAutoSplitBytes = old }(minAutoSplitBytes)
	minAutoSplitBytes = 1
	dir := t.TempDir()
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	var files []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("f%d.parquet", i))
		writeFile(t, p, rec, parquet.WithMaxRowGroupLength(100))
		files = append(files, p)
	}
	whole := Options{Files: files, Columns: testColumns, Parallelism: 2, SplitBytes: 1 << 30, Alloc: testAlloc(t)}
	want, _ := scanAll(t, whole)
	auto := whole
	auto.SplitBytes, auto.Alloc = 0, testAlloc(t)
	s := mustOpen(t, auto)
	if n := len(s.splits); n < 6 {
		t.Errorf("%d splits of 3 files with %d row groups each at parallelism 2, want about 8", n, s.files[0].md.NumRowGroups())
	}
	var got []string
	each(t, s, func(r arrow.RecordBatch) {
		for i := 0; i < int(r.NumRows()); i++ {
			got = append(got, rowString(r, i))
		}
	})
	s.Close()
	if d := diffRows(want, got); d != "" {
		t.Fatal(d)
	}
}
