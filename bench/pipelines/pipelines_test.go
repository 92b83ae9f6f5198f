// Package pipelines compares hados's fused device pipelines for TPC-H Q1
// and Q6 with DuckDB in the same run (issue: "fused pipelines … compared in
// the same run with DuckDB running the same SQL over the same data loaded
// into DuckDB's own tables").
package pipelines

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/bench/internal/measure"
	"github.com/hados-io/hados/bench/internal/vsduckdb"
	"github.com/hados-io/hados/bench/tpchdata"
	"github.com/hados-io/hados/internal/tpchpipes"
	"github.com/hados-io/hados/operators"
)

// BenchmarkQ1Q6VsDuckDB: lineitem at HADOS_BENCH_SF (default 1) in device
// memory vs DuckDB's own tables, one engine core vs DuckDB threads=1 (and
// two cores vs threads=2), medians of 5 runs each, ratio hados/DuckDB;
// the CPU time of each side too (the process CPU of hados's runs, the
// measured CPU of DuckDB's), which a shared machine distorts less.
func BenchmarkQ1Q6VsDuckDB(b *testing.B) {
	sf := 1.0
	if v := os.Getenv("HADOS_BENCH_SF"); v != "" {
		sf, _ = strconv.ParseFloat(v, 64)
	}
	dir := filepath.Join(os.TempDir(), "hados-bench", fmt.Sprintf("sf%g", sf))
	if _, err := tpchdata.Ensure(context.Background(), dir, tpchdata.Spec{SF: sf}, nil); err != nil {
		b.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		p, err := vsduckdb.OpenPair(threads, "4GiB")
		if err != nil {
			b.Fatal(err)
		}
		db, tgt := p.DB, p.Target
		if err := db.LoadParquetTables(dir, "lineitem"); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("threads%d", threads), func(b *testing.B) {
			s, recs := tpchpipes.Lineitem(b, tgt, sf)
			for _, q := range []struct {
				n    int
				name string
				mk   func(testing.TB, *operators.Target, *arrow.Schema, []arrow.Record) *operators.HashAggregate
			}{{1, "q1", tpchpipes.Q1}, {6, "q6", tpchpipes.Q6}} {
				var hd, hcpu []time.Duration
				for i := 0; i < 5; i++ {
					cpu0 := measure.ProcessCPU()
					start := time.Now()
					out, err := operators.Collect(context.Background(), q.mk(b, tgt, s, recs))
					if err != nil {
						b.Fatal(err)
					}
					hd = append(hd, time.Since(start))
					hcpu = append(hcpu, measure.ProcessCPU()-cpu0)
					for _, r := range out {
						r.Release()
					}
				}
				m, err := db.Measure(context.Background(), duckdbh.TPCHQuery(q.n), 5)
				if err != nil {
					b.Fatal(err)
				}
				h := measure.Median(hd)
				ratio := vsduckdb.ReportWall(b, q.name+"-", h, m.Median)
				hc := measure.Median(hcpu)
				b.ReportMetric(float64(hc.Microseconds())/1000, q.name+"-hados-cpu-ms")
				b.ReportMetric(float64(m.MedianCPU.Microseconds())/1000, q.name+"-duckdb-cpu-ms")
				b.Logf("%s threads=%d: hados %v (process CPU %v), DuckDB %v (CPU %v), ratio %.2f", q.name, threads, h, hc, m.Median, m.MedianCPU, ratio)
			}
		})
		p.Close()
	}
}
