package exec_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/hados/hadostest"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

// BenchmarkTPCHSmall times whole builder queries (standard types, 200
// shuffle partitions as Spark plans them) over the data in
// HADOS_TPCH_DATA (a `hados bench tpch --data` directory) on a one-core
// software DPU: the fixed costs of small queries (stage scheduling,
// shuffles, task start-up) dominate them. HADOS_TPCH_QUERIES picks the
// queries (default 2,11,22), HADOS_TPCH_CORES the engine cores (default
// 1). Skipped without data.
func BenchmarkTPCHSmall(b *testing.B) {
	data := os.Getenv("HADOS_TPCH_DATA")
	if data == "" {
		b.Skip("HADOS_TPCH_DATA names no TPC-H data directory (standard schema)")
	}
	qs := os.Getenv("HADOS_TPCH_QUERIES")
	if qs == "" {
		qs = "2,11,22"
	}
	cfg := hados.DefaultConfig()
	cores := 1
	if c := os.Getenv("HADOS_TPCH_CORES"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 {
			b.Fatalf("HADOS_TPCH_CORES: %q is not a core count", c)
		}
		cores = n
	}
	cfg.Devices = fmt.Sprintf("soft:cores=%d,memory=8GiB", cores)
	if k := os.Getenv("HADOS_TPCH_KEEP_MIB"); k != "" { // experiments: the in-memory shuffle budget
		n, err := strconv.Atoi(k)
		if err != nil {
			b.Fatalf("HADOS_TPCH_KEEP_MIB: %q is not a size", k)
		}
		defer exec.SetKeepBudget(int64(n) << 20)()
	}
	rt := hadostest.Open(b, cfg)
	for _, f := range strings.Split(qs, ",") {
		q, err := strconv.Atoi(f)
		if err != nil {
			b.Fatalf("HADOS_TPCH_QUERIES: %q is not a query number", f)
		}
		po := planbuilder.Options{Schema: tpchgen.Standard}
		if sf := os.Getenv("HADOS_TPCH_SF"); sf != "" { // plan the joins as `hados bench tpch --sf` does
			if po.ScaleFactor, err = strconv.ParseFloat(sf, 64); err != nil {
				b.Fatalf("HADOS_TPCH_SF: %q is not a scale factor", sf)
			}
		}
		p, err := planbuilder.TPCH(q, po)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("q%d", q), func(b *testing.B) {
			cpu0 := processCPU()
			defer func() { b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op") }()
			for b.Loop() {
				conv, err := rules.Run(p, rules.DefaultOptions(), nil)
				if err != nil {
					b.Fatal(err)
				}
				res, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: data}, conv)
				if err != nil {
					b.Fatal(err)
				}
				if os.Getenv("HADOS_TPCH_VERBOSE") != "" {
					for _, st := range res.Stages {
						fmt.Fprintf(os.Stderr, "stage %d %s: %d tasks, %d attempts, at %v for %v\n", st.ID, st.Name, st.Tasks, st.Attempts,
							st.Start.Round(time.Millisecond), st.Time.Round(time.Millisecond))
					}
					for _, o := range res.Stats {
						fmt.Fprintf(os.Stderr, "  %s: %d tasks, %d rows, %v\n", o.Name, o.Tasks, o.RowsOut, o.Time)
					}
				}
				res.Release()
			}
		})
	}
}

// processCPU is the process's user plus system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
