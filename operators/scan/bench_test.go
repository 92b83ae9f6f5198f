package scan

import (
	"context"
	"math/big"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/hados-io/hados/internal/arrowsize"
	"github.com/hados-io/hados/internal/tpchgen"
)

const benchSF = 0.05 // 300k lineitem rows

// lineitem generates lineitem at benchSF and returns its files and columns.
func lineitem(b *testing.B) ([]string, []Column) {
	b.Helper()
	dir := b.TempDir()
	if _, err := tpchgen.Generate(context.Background(), tpchgen.Options{SF: benchSF, Out: dir, Tables: []string{"lineitem"},
		RowGroupRows: 64 << 10}); err != nil {
		b.Fatal(err)
	}
	files, err := listDir(filepath.Join(dir, "lineitem"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no lineitem files: %v", err)
	}
	md, _, err := readFooter(files[0])
	if err != nil {
		b.Fatal(err)
	}
	fs, err := readSchema(files[0], md)
	if err != nil {
		b.Fatal(err)
	}
	var cols []Column
	for _, c := range fs.cols {
		cols = append(cols, Column{Name: c.name, Type: c.spark, Nullable: true})
	}
	return files, cols
}

func pick(cols []Column, names ...string) []Column {
	var out []Column
	for _, n := range names {
		for _, c := range cols {
			if c.Name == n {
				out = append(out, c)
			}
		}
	}
	return out
}

func q6Filters() []Filter {
	d := func(s string) Date {
		t, _ := time.Parse("2006-01-02", s)
		return Date(t.Unix() / 86400)
	}
	return []Filter{
		IsNotNull{"l_shipdate"}, GreaterThanOrEqual{"l_shipdate", d("1994-01-01")}, LessThan{"l_shipdate", d("1995-01-01")},
		IsNotNull{"l_discount"}, GreaterThanOrEqual{"l_discount", dec(5, 2)}, LessThanOrEqual{"l_discount", dec(7, 2)},
		IsNotNull{"l_quantity"}, LessThan{"l_quantity", dec(2400, 2)},
	}
}

// runBench scans opt b.N times and reports rows/s and decoded GB/s.
func runBench(b *testing.B, opt Options) Stats {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	opt.Alloc = mem
	var st Stats
	var decoded int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Open(context.Background(), opt)
		if err != nil {
			b.Fatal(err)
		}
		each(b, s, func(rec arrow.RecordBatch) { decoded += arrowsize.Record(rec) })
		st = s.Stats()
		s.Close()
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(st.Rows)*float64(b.N)/sec, "rows/s")
	b.ReportMetric(float64(decoded)/sec/1e9, "GB/s")
	b.ReportMetric(float64(st.BytesRead)*float64(b.N)/sec/1e9, "fileGB/s")
	mem.AssertSize(b, 0)
	return st
}

func BenchmarkScanLineitem(b *testing.B) {
	files, cols := lineitem(b)
	for _, bc := range []struct {
		name string
		cols []Column
	}{
		{"q6cols", pick(cols, "l_shipdate", "l_discount", "l_quantity", "l_extendedprice")},
		{"allcols", cols},
	} {
		b.Run(bc.name, func(b *testing.B) {
			runBench(b, Options{Files: files, Columns: bc.cols, Parallelism: 2})
		})
	}
}

// BenchmarkQ6Sorted scans Q6's columns from a file sorted by l_shipdate
// (row groups of 16Ki rows, page index on) with Q6's pushed filters, and
// reports how much pruning removed.
func BenchmarkQ6Sorted(b *testing.B) {
	files, cols := lineitem(b)
	q6 := pick(cols, "l_shipdate", "l_discount", "l_quantity", "l_extendedprice")
	sorted := filepath.Join(b.TempDir(), "sorted.parquet")
	writeSorted(b, files, q6, sorted)
	for _, prune := range []bool{false, true} {
		name := map[bool]string{false: "noprune", true: "prune"}[prune]
		b.Run(name, func(b *testing.B) {
			opt := Options{Files: []string{sorted}, Columns: q6, Filters: q6Filters(), Parallelism: 2}
			if !prune {
				opt.DisableStats, opt.DisablePageIndex, opt.DisableDictionary, opt.DisableBloom = true, true, true, true
			}
			st := runBench(b, opt)
			b.ReportMetric(float64(st.RowGroups), "rowgroups")
			b.ReportMetric(float64(st.RowGroupsPrunedStats+st.RowGroupsPrunedPageIndex+st.RowGroupsPrunedDictionary+st.RowGroupsPrunedBloom), "rg_pruned")
			b.ReportMetric(float64(st.Pages), "pages")
			b.ReportMetric(float64(st.PagesPruned), "pages_pruned")
		})
	}
}

// writeSorted writes the Q6 columns of files, sorted by l_shipdate.
func writeSorted(b *testing.B, files []string, cols []Column, out string) {
	alloc := memory.NewGoAllocator()
	s, err := Open(context.Background(), Options{Files: files, Columns: cols, Alloc: alloc})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	type row struct {
		date int32
		dec  [3]int64
	}
	var rows []row
	each(b, s, func(rec arrow.RecordBatch) {
		for i := 0; i < int(rec.NumRows()); i++ {
			r := row{date: int32(rec.Column(0).(*array.Date32).Value(i))}
			for j := 1; j < 4; j++ {
				r.dec[j-1] = int64(rec.Column(j).(*array.Decimal64).Value(i))
			}
			rows = append(rows, r)
		}
	})
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].date < rows[j].date })
	fields := []arrow.Field{{Name: cols[0].Name, Type: arrow.FixedWidthTypes.Date32, Nullable: true}}
	for _, c := range cols[1:] {
		fields = append(fields, arrow.Field{Name: c.Name, Type: &arrow.Decimal128Type{Precision: int32(c.Type.Precision), Scale: int32(c.Type.Scale)}, Nullable: true})
	}
	rb := array.NewRecordBuilder(alloc, arrow.NewSchema(fields, nil))
	defer rb.Release()
	for _, r := range rows {
		rb.Field(0).(*array.Date32Builder).Append(arrow.Date32(r.date))
		for j := 0; j < 3; j++ {
			rb.Field(j + 1).(*array.Decimal128Builder).Append(decimal128.FromBigInt(big.NewInt(r.dec[j])))
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	writeFile(b, out, rec, parquet.WithMaxRowGroupLength(16<<10), parquet.WithPageIndexEnabled(true),
		parquet.WithDataPageSize(8<<10))
}
