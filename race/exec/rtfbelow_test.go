package exec

import "testing"

// TestRuntimeFilterBelowJoin: Q16's inner join (14) with the 30k parts of
// broadcast (13) filters partsupp right above its filter (3), in its own
// stage, below the anti join (9) with the complaining suppliers, which
// then probes only the rows (14) keeps; switched off, Q16 gets no filter.
func TestRuntimeFilterBelowJoin(t *testing.T) {
	q := planned(t, 16)
	target := node(t, q.res, 3)
	f := q.rtf[target]
	if f == nil || len(q.rtf) != 1 {
		t.Fatalf("Q16: %d runtime filters, want one on (3) %s", len(q.rtf), target.Name())
	}
	if f.join != node(t, q.res, 14) {
		t.Errorf("the filter comes from %s, want (14)", label(f.join))
	}
	if got := target.Output()[f.col].Name; got != "ps_partkey" {
		t.Errorf("filters column %s, want ps_partkey", got)
	}
	if f.build.at != node(t, q.res, 13) {
		t.Errorf("keys read from %s, want (13)", f.build.name())
	}
	if s := q.byNode[node(t, q.res, 16)]; f.stage != s { // the map side of the distinct level's exchange
		t.Errorf("filters in %s, want the join's own stage %s", f.stage.name(), s.name())
	}
	if !dependsOn(f.stage, f.build) || dependsOn(f.build, f.stage) {
		t.Errorf("%s must wait for %s", f.stage.name(), f.build.name())
	}
	defer func() { filtersBelowJoins = true }()
	filtersBelowJoins = false
	if q := planned(t, 16); len(q.rtf) != 0 {
		t.Errorf("switched off: %d runtime filters, want none", len(q.rtf))
	}
}
