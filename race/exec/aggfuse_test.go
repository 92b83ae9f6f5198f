package exec_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hados-io/hados/race/exec"
)

// TestFusedAggregates runs the builder queries whose aggregations read a
// Filter and/or Project with the chain fused into the aggregation and
// with it built as separate operators: the rows must be the same, and the
// fused runs must report the fused chain (Q1: filter, project and partial
// aggregation as one operator) and no separate FilterProject below it.
func TestFusedAggregates(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB;soft:memory=512MiB,mode=discrete")
	for _, q := range []int{1, 3, 5, 6, 12, 14, 15, 17, 19, 22} {
		t.Run(fmt.Sprintf("q%d", q), func(t *testing.T) {
			env := exec.Env{Runtime: rt, Warehouse: dir, Parallelism: 2}
			restore := exec.SetFuseAggregates(false)
			apart, _ := runStats(t, env, q)
			restore()
			fused, names := runStats(t, env, q)
			if !sameRows(apart, fused) {
				t.Fatalf("Q%d: fused %d rows, apart %d:\n%s", q, len(fused), len(apart), firstDiff(apart, fused))
			}
			if q == 1 {
				var found bool
				for _, n := range names {
					if strings.Contains(n, "DpuProject+(") && strings.HasSuffix(n, "DpuHashAggregate") {
						found = true
					}
					if strings.HasSuffix(n, "DpuFilter+(4) DpuProject") {
						t.Errorf("Q1: a FilterProject below the fused aggregation: %q", names)
					}
				}
				if !found {
					t.Errorf("Q1: no fused aggregation among the operators %q", names)
				}
			}
		})
	}
}

// runStats runs builder query q and returns its rows and the names of its
// operator statistics.
func runStats(t *testing.T, env exec.Env, q int) ([]string, []string) {
	t.Helper()
	out, err := exec.Run(context.Background(), env, convert(t, q))
	if err != nil {
		notReady(t, err)
		t.Fatalf("Q%d: %v", q, err)
	}
	defer out.Release()
	var names []string
	for _, o := range out.Stats {
		names = append(names, o.Name)
	}
	return rows(out), names
}
