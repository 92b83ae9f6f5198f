package exec

import (
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/rules"
)

// aggSource is an aggregation's input: the operator below it and, when
// the aggregation reads a Filter and/or a Project of its own stage (Spark's
// Filter → Project → partial aggregate chain), those nodes, to be fused
// into the aggregation's device pipeline (operators.NewHashAggregate's
// where, and its keys and arguments rewritten over the projection's
// input) instead of materialising the projected columns in device memory
// batch by batch. When the aggregation cannot compile fused, the filter
// and projection run as one FilterProject below it, as filterProject
// builds them.
type aggSource struct {
	child           operators.Operator // what the chain (or the aggregation) reads
	filter, project *rules.Node        // the fusable chain: project over filter, either may be nil
	cond            *expr.Expr         // the filter's condition (isnotnull pruned), nil: none
	proj            []*expr.Expr       // the projection's list
	names           []string           // and its names
}

// fuseAggregates switches the fusion (on; off builds the chain as
// separate operators, for A/B measurements and tests).
var fuseAggregates = true

// aggInput builds the input of aggregation n for partition part.
func (b *builder) aggInput(n *rules.Node, part int) (aggSource, error) {
	c := stripTransitions(n.Children[0])
	var src aggSource
	fusable := func(m *rules.Node, k rules.Kind) bool {
		if !fuseAggregates || m.Kind != k || m.Device == nil || len(m.Children) != 1 {
			return false
		}
		kind, _ := b.q.leaf(b.s, m)
		return kind == notLeaf
	}
	if fusable(c, rules.DpuProject) {
		src.project, c = c, c.Children[0]
	}
	if fusable(c, rules.DpuFilter) {
		src.filter, c = c, c.Children[0]
	}
	if src.project == nil && src.filter == nil {
		child, err := b.build(n.Children[0], part)
		src.child = child
		return src, err
	}
	if src.project != nil {
		pl, err := b.payload(src.project)
		if err != nil {
			return src, err
		}
		src.proj, src.names = pl.Project, pl.Names
	}
	if src.filter != nil {
		pl, err := b.payload(src.filter)
		if err != nil {
			return src, err
		}
		src.cond = b.pruneNotNull(c, part, pl.Filter)
	}
	child, err := b.build(c, part)
	src.child = child
	return src, err
}

// fuseAggregate builds aggregation n over its input: fused with the
// input's filter and projection when they compile into its pipeline,
// else over them. It closes the input when it fails.
func (b *builder) fuseAggregate(n *rules.Node, in aggSource, p *rules.Payload, names []string) (operators.Operator, error) {
	if in.project == nil && in.filter == nil {
		h, err := operators.NewHashAggregate(b.target, in.child, nil, p.Keys, p.Calls, p.Mode, names)
		if err != nil {
			return nil, closeAfter(in.child, err)
		}
		flushPartial(h, p)
		return b.track(label(n), h), nil
	}
	if keys, calls, ok := overProjection(p.Keys, p.Calls, in.proj, in.project != nil); ok {
		h, err := operators.NewHashAggregate(b.target, in.child, in.cond, keys, calls, p.Mode, names)
		if err == nil && h.Compile() == nil {
			scanDictsFor(in.child, in.cond) // its pipeline reads the scan's records
			flushPartial(h, p)
			return b.track(in.label()+label(n), h), nil
		}
	}
	// not fusable: the filter and projection run on their own
	child, err := in.unfused(b)
	if err != nil {
		return nil, err
	}
	h, err := operators.NewHashAggregate(b.target, child, nil, p.Keys, p.Calls, p.Mode, names)
	if err != nil {
		return nil, closeAfter(child, err)
	}
	flushPartial(h, p)
	return b.track(label(n), h), nil
}

// partialFlush switches the flushing of partial aggregations (on; off
// aggregates a task's whole input in one table, for A/B measurements and
// tests).
var partialFlush = true

// flushPartial lets a partial aggregation (its buffers merged downstream:
// no result expressions) flush its groups as its input goes by when that
// input is clustered by its key (operators.HashAggregate.FlushPartial).
func flushPartial(h *operators.HashAggregate, p *rules.Payload) {
	if partialFlush && p.Results == nil && len(p.Calls) > 0 {
		h.FlushPartial()
	}
}

// label names the fused chain's nodes, bottom up, for the statistics:
// "(3) DpuFilter+(4) DpuProject+".
func (s aggSource) label() string {
	out := ""
	if s.filter != nil {
		out += label(s.filter) + "+"
	}
	if s.project != nil {
		out += label(s.project) + "+"
	}
	return out
}

// unfused builds the chain as the operator filterProject builds for it
// (filterProjectOver); it closes the child when it fails.
func (s aggSource) unfused(b *builder) (operators.Operator, error) {
	return b.filterProjectOver(s.filter, s.project, s.child, s.cond, s.proj, s.names)
}

// overProjection rewrites an aggregation's keys and call arguments, which
// read the projection's output columns, into expressions over the
// projection's input (each column replaced by its projected expression;
// the device pipeline computes a shared subexpression once). Without a
// projection they are returned as they are. false when a column is out of
// the projection's range or typed differently from its expression.
func overProjection(keys []*expr.Expr, calls []operators.AggCall, proj []*expr.Expr, projected bool) ([]*expr.Expr, []operators.AggCall, bool) {
	if !projected {
		return keys, calls, true
	}
	nk := make([]*expr.Expr, len(keys))
	for i, k := range keys {
		e, ok := substitute(k, proj)
		if !ok {
			return nil, nil, false
		}
		nk[i] = e
	}
	nc := make([]operators.AggCall, len(calls))
	for i, c := range calls {
		nc[i] = c
		nc[i].Args = make([]*expr.Expr, len(c.Args))
		for j, a := range c.Args {
			e, ok := substitute(a, proj)
			if !ok {
				return nil, nil, false
			}
			nc[i].Args[j] = e
		}
	}
	return nk, nc, true
}

// substitute returns e with every column reference i replaced by proj[i];
// the trees are shared, not copied (expressions are immutable).
func substitute(e *expr.Expr, proj []*expr.Expr) (*expr.Expr, bool) {
	if e == nil {
		return nil, true
	}
	if e.Op == expr.OpColumn {
		if e.Col < 0 || e.Col >= len(proj) || proj[e.Col] == nil || proj[e.Col].Type != e.Type {
			return nil, false
		}
		return proj[e.Col], true
	}
	if len(e.Args) == 0 {
		return e, true
	}
	args := make([]*expr.Expr, len(e.Args))
	for i, a := range e.Args {
		na, ok := substitute(a, proj)
		if !ok {
			return nil, false
		}
		args[i] = na
	}
	c := *e
	c.Args = args
	return &c, true
}
