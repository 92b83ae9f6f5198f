package rules

import (
	"fmt"
	"strings"
)

// strategy decides, from the verdicts, what finally runs on the device,
// then re-places the transitions around what changed.
func strategy(r *Result) error {
	switch r.Options.Strategy {
	case Cost:
		costStrategy(r)
	case AllOrNothing:
		allOrNothing(r)
	default:
		return fmt.Errorf("unknown strategy %q", r.Options.Strategy)
	}
	return transitions(r)
}

// allOrNothing keeps the whole query on the host when an operator that is
// not whitelisted falls back, in this plan or (under AQE) in the whole
// query the plan is a stage of.
func allOrNothing(r *Result) {
	blockers := r.blockers()
	if w := r.Options.WholePlan; w != nil && w.Root != nil {
		whole := &Result{Plan: w, Options: r.Options}
		whole.Options.WholePlan = nil
		if err := validate(whole); err == nil {
			blockers = append(blockers, whole.blockers()...)
		}
	}
	if len(blockers) == 0 {
		return
	}
	detail := blockers[0]
	if len(blockers) > 1 {
		detail += fmt.Sprintf(" (and %d more)", len(blockers)-1)
	}
	revert(r, func(*Node) bool { return true }, Unsupported(ReasonWholeQuery, detail))
}

// blockers describes the fallbacks the whitelist does not excuse.
func (r *Result) blockers() []string {
	var out []string
	r.Walk(func(n *Node) {
		if n.counted() && !n.Support.OK && !r.Options.whitelisted(n.Spark) {
			out = append(out, fmt.Sprintf("(%d) %s: %s", n.Spark.ID, n.Spark.Op, n.Support.Reason))
		}
	})
	return out
}

// revert sends the device nodes sel picks back to the host with verdict v.
func revert(r *Result, sel func(*Node) bool, v Support) {
	r.Walk(func(n *Node) {
		if n.Kind.OnDevice() && sel(n) {
			n.Kind, n.Planned, n.Verdict = KindHost, false, v
		}
	})
}

func joinIDs(ns []*Node) string {
	ids := make([]string, 0, len(ns))
	for _, n := range ns {
		ids = append(ids, fmt.Sprint(n.Spark.ID))
	}
	return strings.Join(ids, ",")
}
