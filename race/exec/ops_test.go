package exec_test

import (
	"fmt"
	"testing"

	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

// Hand-built small plans for the operators the TPC-H builder plans use
// little or not at all: unions, and joins whose two sides are shuffled
// (ShuffledHashJoin, SortMergeJoin) rather than broadcast.

// buildPlan converts the plan top builds; it must be executable.
func buildPlan(t *testing.T, top *planbuilder.Rel) *rules.Result {
	t.Helper()
	p, err := top.Build(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return executable(t, p)
}

// TestUnion concatenates a scan (one partition per file), another table's
// scan and a shuffle's reduce partitions: the union's partitions are its
// children's, one task each (Spark's UnionRDD).
func TestUnion(t *testing.T) {
	dir := warehouse(t)
	b := planbuilder.NewWith(planbuilder.Options{Partitions: 3})
	nations := b.Scan("nation", "n_nationkey", "n_name")
	regions := b.Scan("region", "r_regionkey", "r_name")
	inRegion1 := b.Scan("nation", "n_nationkey", "n_name", "n_regionkey")
	inRegion1 = inRegion1.Filter(b.Eq(inRegion1.Col("n_regionkey"), b.Long(1)))
	shuffled := inRegion1.Keep("n_nationkey", "n_name")
	shuffled = shuffled.HashExchange(shuffled.Col("n_nationkey"))
	got := runBoth(t, buildPlan(t, nations.Union(regions, shuffled)), dir)

	n, r := load(t, "nation"), load(t, "region")
	var want []string
	for i := 0; i < n.rows(); i++ {
		row := fmt.Sprintf("%d|%s", n.i64("n_nationkey", i), n.str("n_name", i))
		want = append(want, row)
		if n.i64("n_regionkey", i) == 1 {
			want = append(want, row)
		}
	}
	for i := 0; i < r.rows(); i++ {
		want = append(want, fmt.Sprintf("%d|%s", r.i64("r_regionkey", i), r.str("r_name", i)))
	}
	if want = sorted(want); !sameRows(got, want) {
		t.Fatalf("%d rows, want %d:\n%s", len(got), len(want), firstDiff(want, got))
	}
}

// TestShuffledJoin joins customers with their orders, both sides hash
// partitioned by the key, for each join type and build side: partition i
// of one side meets partition i of the other, also when small partitions
// are coalesced (both sides alike).
func TestShuffledJoin(t *testing.T) {
	dir := warehouse(t)
	c, o := load(t, "customer"), load(t, "orders")
	orders := map[int64][]int64{} // custkey → orderkeys
	for i := 0; i < o.rows(); i++ {
		orders[o.i64("o_custkey", i)] = append(orders[o.i64("o_custkey", i)], o.i64("o_orderkey", i))
	}
	// want is the reference: each customer's rows of the join, given its
	// orders.
	type side = planbuilder.BuildSide
	for _, tc := range []struct {
		name  string
		jt    plan.JoinType
		smj   bool
		build side
		want  func(cust int64, ords []int64) []string
	}{
		{"inner hash build right", plan.JoinInner, false, planbuilder.BuildRight, pairs},
		{"inner hash build left", plan.JoinInner, false, planbuilder.BuildLeft, pairs},
		{"left outer sort-merge", plan.JoinLeftOuter, true, 0, func(c int64, os []int64) []string {
			if len(os) == 0 {
				return []string{fmt.Sprintf("%d|NULL", c)}
			}
			return pairs(c, os)
		}},
		{"left semi sort-merge", plan.JoinLeftSemi, true, 0, func(c int64, os []int64) []string {
			if len(os) == 0 {
				return nil
			}
			return []string{fmt.Sprint(c)}
		}},
		{"left anti hash", plan.JoinLeftAnti, false, planbuilder.BuildRight, func(c int64, os []int64) []string {
			if len(os) > 0 {
				return nil
			}
			return []string{fmt.Sprint(c)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := planbuilder.NewWith(planbuilder.Options{Partitions: 5})
			cust := b.Scan("customer", "c_custkey")
			ords := b.Scan("orders", "o_orderkey", "o_custkey")
			j := b.OnType(tc.jt, "c_custkey", "o_custkey")
			var joined *planbuilder.Rel
			if tc.smj {
				joined = cust.SortMergeJoin(ords, j)
			} else {
				joined = cust.ShuffledHashJoin(ords, j, tc.build)
			}
			if tc.jt != plan.JoinLeftSemi && tc.jt != plan.JoinLeftAnti {
				joined = joined.Keep("c_custkey", "o_orderkey")
			}
			got := runBoth(t, buildPlan(t, joined), dir)
			var want []string
			for i := 0; i < c.rows(); i++ {
				k := c.i64("c_custkey", i)
				want = append(want, tc.want(k, orders[k])...)
			}
			if want = sorted(want); !sameRows(got, want) {
				t.Fatalf("%d rows, want %d:\n%s", len(got), len(want), firstDiff(want, got))
			}
		})
	}
}

// pairs are a customer's inner join rows.
func pairs(cust int64, ords []int64) []string {
	out := make([]string, 0, len(ords))
	for _, o := range ords {
		out = append(out, fmt.Sprintf("%d|%d", cust, o))
	}
	return out
}
