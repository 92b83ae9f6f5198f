package sortbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hados-io/hados/bench/internal/measure"
	"github.com/hados-io/hados/bench/internal/vsduckdb"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

const runs = 3

// BenchmarkSortVsDuckDB sorts HADOS_SORTBENCH_ROWS (default 16Mi) rows of
// bigint, and of (string, bigint), with hados (2 engine cores) and DuckDB
// (threads=2), medians of 3 runs, ratio hados/DuckDB in wall and CPU time.
func BenchmarkSortVsDuckDB(b *testing.B) {
	rows := 16 << 20
	if v := os.Getenv("HADOS_SORTBENCH_ROWS"); v != "" {
		rows, _ = strconv.Atoi(v)
	}
	for _, withStr := range []bool{false, true} {
		name := "bigint"
		if withStr {
			name = "string_bigint"
		}
		b.Run(name, func(b *testing.B) {
			p, err := vsduckdb.OpenPair(2, fmt.Sprintf("%dMiB", 512+rows*(32+40*btoi(withStr))>>20*4))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			db, tgt := p.DB, p.Target
			schema, recs := Generate(rows, withStr, tgt.OutputAllocator())
			defer func() {
				for _, r := range recs {
					r.Release()
				}
			}()
			path := filepath.Join(b.TempDir(), name+".parquet")
			if err := WriteParquet(path, schema, recs); err != nil {
				b.Fatal(err)
			}
			if err := db.Exec(fmt.Sprintf("CREATE TABLE t AS SELECT * FROM read_parquet('%s')", path)); err != nil {
				b.Fatal(err)
			}
			order := "k"
			keys := []operators.SortKey{{Expr: expr.Column(0, "k", types.DataType{Kind: types.Long})}}
			if withStr {
				order = "s, k"
				keys = []operators.SortKey{{Expr: expr.Column(0, "s", types.DataType{Kind: types.String})},
					{Expr: expr.Column(1, "k", types.DataType{Kind: types.Long})}}
			}
			var hw, hc, dw, dc []time.Duration
			for i := 0; i < runs; i++ {
				c0, t0 := measure.ProcessCPU(), time.Now()
				op, err := operators.NewSort(tgt, operators.NewRecordSource(schema, recs...), keys)
				if err != nil {
					b.Fatal(err)
				}
				out, err := operators.Collect(context.Background(), op)
				if err != nil {
					b.Fatal(err)
				}
				hw, hc = append(hw, time.Since(t0)), append(hc, measure.ProcessCPU()-c0)
				n := int64(0)
				for _, r := range out {
					n += r.NumRows()
					r.Release()
				}
				if n != int64(rows) {
					b.Fatalf("hados sorted %d rows, want %d", n, rows)
				}
				c0, t0 = measure.ProcessCPU(), time.Now()
				if err := db.Exec("CREATE OR REPLACE TEMP TABLE sorted AS SELECT * FROM t ORDER BY " + order); err != nil {
					b.Fatal(err)
				}
				dw, dc = append(dw, time.Since(t0)), append(dc, measure.ProcessCPU()-c0)
			}
			h, d := measure.Median(hw), measure.Median(dw)
			hcpu, dcpu := measure.Median(hc), measure.Median(dc)
			b.ReportMetric(float64(h.Milliseconds()), "hados-ms")
			b.ReportMetric(float64(d.Milliseconds()), "duckdb-ms")
			b.ReportMetric(h.Seconds()/d.Seconds(), "ratio")
			b.ReportMetric(hcpu.Seconds()/dcpu.Seconds(), "cpu-ratio")
			b.Logf("%s, %d rows: hados %v (CPU %v), DuckDB %v (CPU %v); ratio %.2f wall, %.2f CPU", name, rows, h, hcpu, d, dcpu,
				h.Seconds()/d.Seconds(), hcpu.Seconds()/dcpu.Seconds())
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
