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
//
// hados runs over two layouts of the same data, alternating run by run:
// plain (every column as the Parquet scan produces it) and dict, where the
// low-cardinality columns (l_quantity, l_discount, l_tax, l_returnflag,
// l_linestatus) stay dictionary-encoded with one-byte codes in device
// memory, as DuckDB's own tables are compressed (tpchpipes.Dict): the
// pipeline reads a byte per row of them and gathers the values from the
// cache-resident dictionary. Metrics: q6-plain-*, q6-dict-* (and q1-).
func BenchmarkQ1Q6VsDuckDB(b *testing.B) {
	sf := 1.0
	if v := os.Getenv("HADOS_BENCH_SF"); v != "" {
		sf, _ = strconv.ParseFloat(v, 64)
	}
	dir := filepath.Join(os.TempDir(), "hados-bench", fmt.Sprintf("sf%g", sf))
	if _, err := tpchdata.Ensure(context.Background(), dir, tpchdata.Spec{SF: sf}, nil); err != nil {
		b.Fatal(err)
	}
	layouts := []tpchpipes.Layout{tpchpipes.Plain, tpchpipes.Dict}
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
			var schemas []*arrow.Schema
			var data [][]arrow.Record
			for _, l := range layouts {
				s, recs := tpchpipes.LineitemBatches(b, tgt, sf, l, batchRows())
				schemas, data = append(schemas, s), append(data, recs)
			}
			for _, q := range []struct {
				n    int
				name string
				mk   func(testing.TB, *operators.Target, *arrow.Schema, []arrow.Record) *operators.HashAggregate
			}{{1, "q1", tpchpipes.Q1}, {6, "q6", tpchpipes.Q6}} {
				hd := make([][]time.Duration, len(layouts))
				hcpu := make([][]time.Duration, len(layouts))
				for i := 0; i < 5; i++ {
					for li := range layouts {
						cpu0 := measure.ProcessCPU()
						start := time.Now()
						out, err := operators.Collect(context.Background(), q.mk(b, tgt, schemas[li], data[li]))
						if err != nil {
							b.Fatal(err)
						}
						hd[li] = append(hd[li], time.Since(start))
						hcpu[li] = append(hcpu[li], measure.ProcessCPU()-cpu0)
						for _, r := range out {
							r.Release()
						}
					}
				}
				m, err := db.Measure(context.Background(), duckdbh.TPCHQuery(q.n), 5)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(m.MedianCPU.Microseconds())/1000, q.name+"-duckdb-cpu-ms")
				for li, l := range layouts {
					h := measure.Median(hd[li])
					prefix := q.name + "-" + l.String() + "-"
					ratio := vsduckdb.ReportWall(b, prefix, h, m.Median)
					hc := measure.Median(hcpu[li])
					b.ReportMetric(float64(hc.Microseconds())/1000, prefix+"hados-cpu-ms")
					b.Logf("%s threads=%d %s: hados %v (process CPU %v), DuckDB %v (CPU %v), ratio %.2f", q.name, threads, l, h, hc, m.Median, m.MedianCPU, ratio)
				}
			}
		})
		p.Close()
	}
}

// BenchmarkHadosOnly runs one of hados's pipelines alone, b.N times, for
// profiling and A/B runs of the engine without DuckDB in the process:
// HADOS_BENCH_Q (q1, default, or q6), HADOS_BENCH_LAYOUT (plain, default,
// or dict), HADOS_BENCH_THREADS engine cores (default 1), lineitem at
// HADOS_BENCH_SF, records of HADOS_BENCH_BATCH rows (see batchRows). It
// reports the median wall and process CPU per run.
func BenchmarkHadosOnly(b *testing.B) {
	sf, threads := 1.0, 1
	if v := os.Getenv("HADOS_BENCH_SF"); v != "" {
		sf, _ = strconv.ParseFloat(v, 64)
	}
	if v := os.Getenv("HADOS_BENCH_THREADS"); v != "" {
		threads, _ = strconv.Atoi(v)
	}
	mk, layout := tpchpipes.Q1, tpchpipes.Plain
	if os.Getenv("HADOS_BENCH_Q") == "q6" {
		mk = tpchpipes.Q6
	}
	if os.Getenv("HADOS_BENCH_LAYOUT") == "dict" {
		layout = tpchpipes.Dict
	}
	eng, err := vsduckdb.Open(fmt.Sprintf("soft:memory=4GiB,cores=%d", threads))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() }) // after the records' cleanup (LIFO)
	s, recs := tpchpipes.LineitemBatches(b, eng.Target, sf, layout, batchRows())
	var wall, cpu []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cpu0 := measure.ProcessCPU()
		start := time.Now()
		out, err := operators.Collect(context.Background(), mk(b, eng.Target, s, recs))
		if err != nil {
			b.Fatal(err)
		}
		wall, cpu = append(wall, time.Since(start)), append(cpu, measure.ProcessCPU()-cpu0)
		for _, r := range out {
			r.Release()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(measure.Median(wall).Microseconds())/1000, "wall-ms")
	b.ReportMetric(float64(measure.Median(cpu).Microseconds())/1000, "cpu-ms")
}

// batchRows is the rows per lineitem record: HADOS_BENCH_BATCH, default
// tpchpipes.BatchRows. Each record is one synchronous host/device round
// trip of the pipeline (stage, submit, wait), so larger records show how
// much of a run is hand-off between the host and the engine cores.
func batchRows() int {
	if v := os.Getenv("HADOS_BENCH_BATCH"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	return tpchpipes.BatchRows
}
