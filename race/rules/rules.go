package rules

import (
	"errors"
	"fmt"

	"github.com/hados-io/hados/race/plan"
)

// Rule is one named step of the planner.
type Rule struct {
	Name string
	// Why says why the rule sits where it does in the list.
	Why   string
	apply func(*Result) error
}

// Rules is the ordered rule list. Each rule reads the Result the previous
// ones left and refines it; Run applies them in this order.
func Rules() []Rule {
	return []Rule{
		{Name: "validate", apply: validate,
			Why: "first: every later rule decides from the verdicts, and it alone asks the device what it supports"},
		{Name: "convert", apply: convertRule,
			Why: "after validate: only operators whose own verdict is OK become Dpu nodes"},
		{Name: "transitions", apply: transitions,
			Why: "after convert: host/device boundaries exist only once nodes have a side; Spark's ColumnarToRow above a DpuScan is redundant"},
		{Name: "strategy", apply: strategy,
			Why: "after transitions: the cost strategy prices the boundaries they mark; reverting nodes re-places the transitions"},
		{Name: "fuse", apply: fuse,
			Why: "after strategy: pipelines are built only from what finally runs on the device"},
		{Name: "sanity", apply: sanity,
			Why: "last: checks the final tree (schemas, transitions) so no rule can leave it inconsistent"},
	}
}

// ErrSanity is wrapped by the sanity rule's errors: the rules produced an
// inconsistent tree (a bug in the rules, not in the input).
var ErrSanity = errors.New("rules: sanity check failed")

// Result is the converted plan: the tree of the main query and of each
// subquery, the fused device pipelines and the decision. It is plain data
// (nothing to release) and safe for concurrent reads once Run returns.
type Result struct {
	Plan    *plan.Plan
	Options Options
	Root    *Node
	// Subqueries parallel Plan.Subqueries (nil where a block repeats one).
	Subqueries []*Node
	Pipelines  []Pipeline

	base    *Node   // the main tree's root as Spark shaped it
	subBase []*Node // the same for each subquery
}

// Run applies the rules to p. after, when not nil, is called after each
// rule with its name (explain --after-each-rule).
func Run(p *plan.Plan, opts Options, after func(rule string, r *Result)) (*Result, error) {
	if p == nil || p.Root == nil {
		return nil, fmt.Errorf("rules: empty plan")
	}
	if opts.Strategy == "" {
		opts.Strategy = AllOrNothing
	}
	if opts.Cost == (CostModel{}) {
		opts.Cost = DefaultCostModel()
	}
	r := &Result{Plan: p, Options: opts}
	for _, rule := range Rules() {
		if err := rule.apply(r); err != nil {
			return r, fmt.Errorf("%s: rule %s: %w", p.Name, rule.Name, err)
		}
		if after != nil {
			after(rule.Name, r)
		}
	}
	return r, nil
}

// Trees returns the main tree followed by the subquery trees.
func (r *Result) Trees() []*Node {
	out := []*Node{r.Root}
	for _, s := range r.Subqueries {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// Walk visits every node of every tree, parents first.
func (r *Result) Walk(fn func(*Node)) {
	for _, t := range r.Trees() {
		t.walk(fn)
	}
}

// Offloaded reports whether any operator runs on the device.
func (r *Result) Offloaded() bool {
	on := false
	r.Walk(func(n *Node) { on = on || n.Kind.OnDevice() })
	return on
}

// Fallback is a counted operator that stays on the host, with why.
type Fallback struct {
	ID       int     `json:"id"`
	Operator string  `json:"operator"`
	Support  Support `json:"support"`
}

// Fallbacks lists the operators whose final verdict keeps them on the
// host, in tree order.
func (r *Result) Fallbacks() []Fallback {
	var out []Fallback
	r.Walk(func(n *Node) {
		if n.counted() && !n.Verdict.OK {
			out = append(out, Fallback{ID: n.Spark.ID, Operator: n.Spark.Op.String(), Support: n.Verdict})
		}
	})
	return out
}

// Counts are a result's operator counts: Operators counted (plumbing and
// transitions excluded), Supported by validate, OnDevice after strategy,
// Planned among those on the device.
type Counts struct {
	Operators, Supported, OnDevice, Planned int
}

// Count counts the result's operators.
func (r *Result) Count() Counts {
	var c Counts
	r.Walk(func(n *Node) {
		if !n.counted() {
			return
		}
		c.Operators++
		if n.Support.OK {
			c.Supported++
		}
		if n.Kind.OnDevice() {
			c.OnDevice++
			if n.Planned {
				c.Planned++
			}
		}
	})
	return c
}

// ExecutableToday reports whether the plan runs on the device with the
// operators that exist today: something is offloaded, no device node is
// a planned one and no operator stays on the host (the executor runs
// device operators only; host rows reach it through its inputs).
func (r *Result) ExecutableToday() bool {
	c := r.Count()
	return c.OnDevice > 0 && c.Planned == 0 && len(r.Fallbacks()) == 0
}

// convertRule turns each operator whose verdict is OK into its Dpu node.
func convertRule(r *Result) error {
	r.Walk(func(n *Node) {
		if n.Spark == nil || !n.Verdict.OK {
			return
		}
		if c, ok := capabilities[n.Spark.Op]; ok {
			n.Kind, n.Planned = c.kind, !c.today
		}
	})
	return nil
}
