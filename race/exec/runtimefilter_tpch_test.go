package exec_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/planbuilder"
)

// TestRuntimeFiltersTPCH runs the 22 builder plans with the runtime join
// filters off and on, on one task and on parallel tasks over two devices:
// the rows must be the same, and the queries whose broadcast joins drop
// aggregated probe rows (Q17, Q2) must show a filter that dropped rows.
func TestRuntimeFiltersTPCH(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB;soft:memory=512MiB,mode=discrete")
	envs := []exec.Env{
		{Runtime: rt, Warehouse: dir, Device: "0", Parallelism: 1, AdvisoryPartitionBytes: -1},
		{Runtime: rt, Warehouse: dir, Parallelism: 4, AdvisoryPartitionBytes: 2 << 10},
	}
	filtered := map[int]bool{}
	for q := 1; q <= 22; q++ {
		t.Run(fmt.Sprintf("q%d", q), func(t *testing.T) {
			for i, env := range envs {
				restore := exec.SetRuntimeFilters(false)
				off := run(t, env, q)
				restore()
				out, err := exec.Run(context.Background(), env, convert(t, q))
				if err != nil {
					t.Fatalf("Q%d: %v", q, err)
				}
				on := rows(out)
				for _, o := range out.Stats {
					if strings.Contains(o.Name, "runtime filter") {
						if o.RowsOut > o.RowsIn {
							t.Errorf("Q%d: %s: %d rows in, %d out", q, o.Name, o.RowsIn, o.RowsOut)
						}
						if o.RowsOut < o.RowsIn {
							filtered[q] = true
						}
						if i == 0 {
							t.Logf("%s: %d rows in, %d out", o.Name, o.RowsIn, o.RowsOut)
						}
					}
				}
				out.Release()
				if !sameRows(off, on) {
					t.Fatalf("Q%d (env %d): %d rows without runtime filters, %d with:\n%s", q, i, len(off), len(on), firstDiff(off, on))
				}
			}
		})
	}
	for _, q := range []int{2, 17} {
		if !filtered[q] {
			t.Errorf("Q%d: no runtime filter dropped rows", q)
		}
	}
}

// TestRuntimeFilterEdges: a join against a broadcast of no rows (the
// filter's key set is empty: every probe row goes) and of some rows, with
// the aggregation grouping by the key below it, gives the same rows with
// the filters on and off.
func TestRuntimeFilterEdges(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB")
	for _, brand := range []string{"Brand#99", "Brand#23"} {
		b := planbuilder.NewWith(planbuilder.Options{Partitions: partitions})
		c := b.Col
		keys := b.Scan("part", "p_partkey", "p_brand").
			Filter(b.And(b.IsNotNull(c("p_brand")), b.Eq(c("p_brand"), b.Str(brand)), b.IsNotNull(c("p_partkey")))).
			Keep("p_partkey").Broadcast(c("p_partkey"))
		q := b.Scan("lineitem", "l_partkey", "l_quantity").Filter(b.IsNotNull(c("l_partkey"))).
			Aggregate(b.Cols("l_partkey"), []planbuilder.AggFn{b.Sum(c("l_quantity")).As("s")}).
			Join(keys, b.On("l_partkey", "p_partkey")).Keep("l_partkey", "s")
		p, err := b.Build("edges", q)
		if err != nil {
			t.Fatal(err)
		}
		res := executable(t, p)
		env := exec.Env{Runtime: rt, Warehouse: dir, Parallelism: 2}
		get := func() ([]string, []exec.OperatorStats) {
			out, err := exec.Run(context.Background(), env, res)
			if err != nil {
				t.Fatalf("%s: %v", brand, err)
			}
			defer out.Release()
			return sorted(rows(out)), out.Stats
		}
		restore := exec.SetRuntimeFilters(false)
		off, _ := get()
		restore()
		on, stats := get()
		if !sameRows(off, on) {
			t.Fatalf("%s: %d rows without runtime filters, %d with:\n%s", brand, len(off), len(on), firstDiff(off, on))
		}
		found := false
		for _, o := range stats {
			if strings.Contains(o.Name, "runtime filter") {
				found = true
				if o.RowsIn == 0 || o.RowsOut != int64(len(on)) && brand == "Brand#99" {
					t.Errorf("%s: %s: %d rows in, %d out", brand, o.Name, o.RowsIn, o.RowsOut)
				}
			}
		}
		if !found {
			t.Errorf("%s: no runtime filter", brand)
		}
		if brand == "Brand#23" && len(on) == 0 {
			t.Errorf("%s: no rows", brand)
		}
	}
}

// TestRuntimeFilterCancel cancels Q17 and Q2 (each with a runtime filter)
// as their k-th stage starts, for every k: the run ends with the
// cancellation (or its rows, when it was done), every byte of device
// memory is back (the filters' key tables too) and no goroutine is left.
func TestRuntimeFilterCancel(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=256MiB;soft:memory=256MiB,mode=discrete")
	baseline := goleak.IgnoreCurrent()
	for _, q := range []int{17, 2} {
		res := convert(t, q)
		for k := 1; k <= 12; k++ {
			ctx, cancel := context.WithCancel(context.Background())
			var mu sync.Mutex
			stages := 0
			env := exec.Env{Runtime: rt, Warehouse: dir, Parallelism: 2, Logf: func(f string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				if strings.HasSuffix(f, ": %d tasks") {
					if stages++; stages == k {
						cancel()
					}
				}
			}}
			out, err := exec.Run(ctx, env, res)
			cancel()
			if err == nil {
				out.Release()
			} else if !errors.Is(err, context.Canceled) {
				t.Fatalf("Q%d canceled at stage %d: %v", q, k, err)
			}
			for _, u := range rt.Units() {
				if s := u.Pool.Stats(); s.InUseBytes != 0 || s.LiveBuffers != 0 {
					t.Errorf("Q%d canceled at stage %d: device %s holds %d bytes in %d buffers", q, k, u.Device.Info().Address, s.InUseBytes, s.LiveBuffers)
				}
			}
		}
	}
	goleak.VerifyNone(t, baseline)
}
