package exec

import (
	"testing"

	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

// planned converts builder query q (standard types, joins planned for
// SF1) and plans its stages and runtime filters on a query without a
// runtime (nothing runs).
func planned(t *testing.T, q int) *query {
	t.Helper()
	p, err := planbuilder.TPCH(q, planbuilder.Options{Schema: tpchgen.Standard, ScaleFactor: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rules.Run(p, rules.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	qu := &query{res: res, byNode: map[*rules.Node]*stage{}, inputs: numberInputs(res.Root)}
	if _, err := qu.plan(res.Root); err != nil {
		t.Fatal(err)
	}
	qu.planRuntimeFilters()
	return qu
}

// node finds the converted node of Spark operator id.
func node(t *testing.T, res *rules.Result, id int) *rules.Node {
	t.Helper()
	var found *rules.Node
	var walk func(n *rules.Node)
	walk = func(n *rules.Node) {
		if n == nil || found != nil {
			return
		}
		if n.Spark != nil && n.Spark.ID == id && !n.Kind.IsTransition() {
			found = n
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(res.Root)
	if found == nil {
		t.Fatalf("no operator (%d)", id)
	}
	return found
}

// TestRuntimeFilterPlacement: where the runtime filters of Q17 and Q2
// (planned for SF1) land, that the stage they filter waits for the
// broadcast that gives the keys, and that Q20 gets none (its lineitem is
// semi joined with the same parts before it is aggregated).
func TestRuntimeFilterPlacement(t *testing.T) {
	cases := []struct {
		q, join, target int
		col             string
		source          int // the broadcast the keys are read from
	}{
		// Q17: the key goes through Filter (18), the final and partial
		// aggregations grouping by l_partkey and the exchange between
		// them; the isnotnull filter (14) is fused into the partial
		// aggregation, so the scan's own output is filtered
		// (the keys are read from part's broadcast (8), below the build
		// side (11) = lineitem joined with it)
		{17, 19, 12, "l_partkey", 8},
		// Q2: ps_partkey (the second key: the first is min(ps_supplycost),
		// an aggregate's value) through the aggregations and three inner
		// joins' probe sides to the filter over partsupp's scan
		{2, 38, 14, "ps_partkey", 5},
	}
	for n := 1; n <= planbuilder.TPCHQueries; n++ {
		for _, f := range planned(t, n).rtf {
			t.Logf("Q%d: %s filters %s column %s with the keys of %s", n, label(f.join), label(f.target), f.target.Output()[f.col].Name, f.build.name())
		}
	}
	if q := planned(t, 20); len(q.rtf) != 0 {
		t.Errorf("Q20: %d runtime filters, want none", len(q.rtf))
	}
	for _, c := range cases {
		q := planned(t, c.q)
		if len(q.rtf) != 1 {
			t.Errorf("Q%d: %d runtime filters, want 1", c.q, len(q.rtf))
		}
		target := node(t, q.res, c.target)
		f := q.rtf[target]
		if f == nil {
			t.Errorf("Q%d: no runtime filter on (%d) %s", c.q, c.target, target.Name())
			continue
		}
		if f.join != node(t, q.res, c.join) {
			t.Errorf("Q%d: the filter comes from %s, want (%d)", c.q, label(f.join), c.join)
		}
		if got := target.Output()[f.col].Name; got != c.col {
			t.Errorf("Q%d: filters column %s, want %s", c.q, got, c.col)
		}
		if src := node(t, q.res, c.source); f.build.at != src {
			t.Errorf("Q%d: keys read from %s, want (%d)", c.q, f.build.name(), c.source)
		}
		if !dependsOn(f.stage, f.build) || dependsOn(f.build, f.stage) {
			t.Errorf("Q%d: %s must wait for %s", c.q, f.stage.name(), f.build.name())
		}
	}
}

// TestRuntimeFilterLineage: what a key's lineage goes through and what
// stops it.
func TestRuntimeFilterLineage(t *testing.T) {
	// outer joins: Q13's customer LEFT OUTER JOIN orders keeps every
	// customer: c_custkey traces to customer's scan, o_custkey (from the
	// null-extended side) does not
	q13 := planned(t, 13)
	var outer *rules.Node
	var walk func(n *rules.Node)
	walk = func(n *rules.Node) {
		if n.Kind == rules.DpuHashJoin && n.Device != nil && n.Device.Join.Type == plan.JoinLeftOuter {
			outer = n
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(q13.res.Root)
	if outer == nil {
		t.Fatal("Q13: no left outer join")
	}
	out := outer.Output()
	left := len(outer.Children[0].Output())
	for i, a := range out {
		hops, ok := traceKey(outer, i, a.Type)
		wantOK := i < left
		if ok != wantOK {
			t.Errorf("Q13: %s of the left outer join traces: %v, want %v", a.Name, ok, wantOK)
		}
		if ok && hops[len(hops)-1].n.Kind != rules.DpuScan {
			t.Errorf("Q13: %s traces to %s, not a scan", a.Name, hops[len(hops)-1].n.Name())
		}
	}

	// an aggregate's value: Q2's min(ps_supplycost) (36) stops at the
	// aggregation; its grouping key ps_partkey goes through
	q2 := planned(t, 2)
	agg := node(t, q2.res, 36)
	for i, a := range agg.Output() {
		_, ok := traceKey(agg, i, a.Type)
		if want := a.Name == "ps_partkey"; ok != want {
			t.Errorf("Q2: (36) column %s traces: %v, want %v", a.Name, ok, want)
		}
	}

	// a computed column: no projection column that is not a plain
	// reference traces (Q9's, Q14's and Q19's projections compute prices)
	computed := 0
	var proj func(n *rules.Node)
	proj = func(n *rules.Node) {
		if n.Kind == rules.DpuProject && n.Device != nil {
			for i, e := range n.Device.Project {
				if e.Op != expr.OpColumn {
					computed++
					if _, ok := traceKey(n, i, n.Output()[i].Type); ok {
						t.Errorf("computed column %s of %s traces", n.Output()[i].Name, label(n))
					}
				}
			}
		}
		for _, c := range n.Children {
			proj(c)
		}
	}
	for _, q := range []int{9, 14, 19} {
		proj(planned(t, q).res.Root)
	}
	if computed == 0 {
		t.Error("no computed projection column to test")
	}
	if q := planned(t, 1); len(q.rtf) != 0 {
		t.Errorf("Q1 (no join): %d runtime filters", len(q.rtf))
	}

	// a reused exchange: Q20's ReusedExchange (18) is not gone through,
	// and a lineage crossing an exchange another consumer reuses is not
	// filtered
	q20 := planned(t, 20)
	re := node(t, q20.res, 18)
	if _, ok := traceKey(re, 0, re.Output()[0].Type); ok {
		t.Error("Q20: a lineage goes through ReusedExchange (18)")
	}
	q17 := planned(t, 17)
	j := node(t, q17.res, 19)
	probe := j.Children[1]
	hops, ok := traceKey(probe, j.Device.Join.RightKeys[0].Col, j.Device.Join.RightKeys[0].Type)
	if !ok {
		t.Fatal("Q17: join (19)'s probe key does not trace")
	}
	ex := node(t, q17.res, 16)
	if f := q17.placeFilter(hops, map[*rules.Node]bool{ex: true}); f != nil {
		t.Errorf("Q17: a filter through reused exchange (16) on %s", label(f.target))
	}
	if f := q17.placeFilter(hops[:2], nil); f != nil { // (18) and (17): no exchange crossed
		t.Errorf("Q17: a filter on %s without an exchange in between", label(f.target))
	}

	// switched off, or a stage run on its own: no filters
	restore := SetRuntimeFilters(false)
	if q := planned(t, 17); len(q.rtf) != 0 {
		t.Errorf("Q17 with runtime filters off: %d filters", len(q.rtf))
	}
	restore()
}
