package sortbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ts []time.Duration) time.Duration {
	ts = append([]time.Duration(nil), ts...)
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	return ts[len(ts)/2]
}

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
			cfg := hados.DefaultConfig()
			cfg.Devices = fmt.Sprintf("soft:memory=%dMiB,cores=2", 512+rows*(32+40*btoi(withStr))>>20*4)
			rt, err := hados.Open(cfg, hados.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer rt.Close()
			task, err := rt.BeginTask(hados.TaskSpec{})
			if err != nil {
				b.Fatal(err)
			}
			defer task.End()
			tgt := task.Targets()[0]
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
			db, err := duckdbh.Open(2)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
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
				c0, t0 := processCPU(), time.Now()
				op, err := operators.NewSort(tgt, operators.NewRecordSource(schema, recs...), keys)
				if err != nil {
					b.Fatal(err)
				}
				out, err := operators.Collect(context.Background(), op)
				if err != nil {
					b.Fatal(err)
				}
				hw, hc = append(hw, time.Since(t0)), append(hc, processCPU()-c0)
				n := int64(0)
				for _, r := range out {
					n += r.NumRows()
					r.Release()
				}
				if n != int64(rows) {
					b.Fatalf("hados sorted %d rows, want %d", n, rows)
				}
				c0, t0 = processCPU(), time.Now()
				if err := db.Exec("CREATE OR REPLACE TEMP TABLE sorted AS SELECT * FROM t ORDER BY " + order); err != nil {
					b.Fatal(err)
				}
				dw, dc = append(dw, time.Since(t0)), append(dc, processCPU()-c0)
			}
			h, d := median(hw), median(dw)
			hcpu, dcpu := median(hc), median(dc)
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
