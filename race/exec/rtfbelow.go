package exec

import (
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// filtersBelowJoins switches the runtime filters of placeBelowJoin (on;
// off keeps a join's filter to the stages across an exchange, for A/B
// measurements and tests).
var filtersBelowJoins = true

// placeBelowJoin places a runtime filter in the join's own stage s, when
// lineage hops reaches its scan without crossing an exchange but through
// the preserved side of an anti or outer join: such a join keeps (nearly)
// every row of that side, so it pays the probe of rows the filter drops
// and the copy of them to its output. The filter lands right above the
// scan's chain as placeFilter's does, and the anti or outer join then
// probes only the rows the join above keeps (TPC-H Q16 anti joins 800k
// partsupp rows with the 5 complaining suppliers, then inner joins them
// with the 30k parts of its broadcast, which keep 120k of them). nil: no
// such join, or an exchange is crossed (placeFilter's case).
func placeBelowJoin(s *stage, hops []hop) *runtimeFilter {
	if !filtersBelowJoins || len(hops) < 2 {
		return nil
	}
	below := false
	for k, h := range hops[:len(hops)-1] {
		n := h.n
		if n.Kind == rules.DpuExchange {
			return nil
		}
		if n.Kind != rules.DpuHashJoin || n.Device == nil || n.Device.Join == nil || len(n.Children) != 2 {
			continue
		}
		side := 0
		if hops[k+1].n == n.Children[1] {
			side = 1
		}
		switch t := n.Device.Join.Type; {
		case side == 0 && (t == plan.JoinLeftAnti || t == plan.JoinLeftOuter),
			side == 1 && t == plan.JoinRightOuter:
			below = true
		}
	}
	if !below {
		return nil
	}
	top := chainTop(hops)
	return &runtimeFilter{target: hops[top].n, col: hops[top].col, stage: s}
}
