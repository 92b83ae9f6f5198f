package exec_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/planbuilder"
)

// TestPassProjects: a Project that only picks, reorders, renames or
// repeats columns passes the child's arrays through. Builder queries with
// such projections after their joins, and a join with a projection that
// repeats and renames columns, return the same rows with the pass-through
// on and off (with isnotnull of required columns dropped too, which turns
// Filter+Project chains into pure picks), on one task and many, on a
// host-visible and a discrete device; the runtime checks every byte is
// returned.
func TestPassProjects(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB;soft:memory=512MiB,mode=discrete")
	t.Cleanup(exec.SetDropRequiredNotNull(true))
	run := func(t *testing.T, name string, q func() []string) {
		restore := exec.SetPassProjects(false)
		off := q()
		restore()
		before := exec.PassProjectsBuilt()
		on := q()
		if exec.PassProjectsBuilt() == before {
			t.Errorf("%s: no pass-through projection was built", name)
		}
		if !sameRows(off, on) {
			t.Fatalf("%s: pass-through %d rows, copied %d:\n%s", name, len(on), len(off), firstDiff(off, on))
		}
	}
	for _, q := range []int{3, 5, 7, 9, 10, 18} {
		t.Run(fmt.Sprintf("q%d", q), func(t *testing.T) {
			for _, env := range []exec.Env{
				{Runtime: rt, Warehouse: dir, Device: "0", Parallelism: 1},
				{Runtime: rt, Warehouse: dir, Device: "1", Parallelism: 3},
			} {
				run(t, fmt.Sprintf("Q%d on device %s", q, env.Device), func() []string {
					got, _ := runStats(t, env, q)
					return got
				})
			}
		})
	}
	t.Run("repeated and renamed", func(t *testing.T) {
		b := planbuilder.NewWith(planbuilder.Options{Partitions: 3})
		o := b.Scan("orders", "o_orderkey", "o_custkey", "o_totalprice")
		c := b.Scan("customer", "c_custkey", "c_name")
		j := o.InnerJoin(c, "o_custkey", "c_custkey")
		top := j.Project(j.Col("c_name"), b.As(j.Col("o_orderkey"), "k1"), j.Col("o_totalprice"), b.As(j.Col("o_orderkey"), "k2"))
		res := buildPlan(t, top)
		run(t, "join", func() []string {
			out, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: dir, Parallelism: 2}, res)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if n := len(out.Schema.Fields()); n != 4 {
				t.Fatalf("%d columns, want 4", n)
			}
			return sorted(rows(out))
		})
	})
}
