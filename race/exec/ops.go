package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"sync"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/rules"
)

// This file builds the operators between pipelines: sorts, limits and
// TopN (local and final forms), unions and hash joins, with broadcast
// tables shared per device.

func (b *builder) sort(n *rules.Node, p int) (operators.Operator, error) {
	pl, err := b.payload(n)
	if err != nil {
		return nil, err
	}
	child, err := b.build(n.Children[0], p)
	if err != nil {
		return nil, err
	}
	in := &peekOp{Operator: child}
	op, err := newSort(b.target, in, pl.Orders)
	if err != nil {
		return nil, closeAfter(child, err)
	}
	return b.track(label(n), &emptyGuard{in: in, op: op}), nil
}

// limit builds a LocalLimit, or the local form of a gather (TopN,
// CollectLimit, GlobalLimit) at the top of its gather stage: each task
// keeps its first limit+offset rows (in order, for TopN).
func (b *builder) limit(n *rules.Node, p int) (operators.Operator, error) {
	pl, err := b.payload(n)
	if err != nil {
		return nil, err
	}
	local := isGather(n)
	if local && !(b.s.top == n && b.s.at == n) {
		return nil, notExecutable(n, "a gather outside its stage")
	}
	child, err := b.build(n.Children[0], p)
	if err != nil {
		return nil, err
	}
	keep := int(pl.Limit + pl.Offset)
	var op operators.Operator
	switch {
	case n.Kind == rules.DpuTopN:
		op, err = newTopN(b.target, child, pl.Orders, keep, 0, nil, nil)
	case local:
		op, err = newLimit(b.target, child, keep, 0)
	default:
		op, err = newLimit(b.target, child, int(pl.Limit), int(pl.Offset))
	}
	if err != nil {
		return nil, closeAfter(child, err)
	}
	name := label(n)
	if local {
		name += " (local)"
	}
	return b.track(name, op), nil
}

// gatherFinal is the final form of a gather, in one task, over every
// local result of its gather stage.
func (b *builder) gatherFinal(n *rules.Node, dep *stage, p int) (operators.Operator, error) {
	if p < 0 {
		return b.empty(n)
	}
	pl, err := b.payload(n)
	if err != nil {
		return nil, err
	}
	src := b.hostSource(label(n)+" gathered", dep, true)
	var op operators.Operator
	if n.Kind == rules.DpuTopN {
		op, err = newTopN(b.target, src, pl.Orders, int(pl.Limit), int(pl.Offset), pl.Project, pl.Names)
	} else {
		op, err = newLimit(b.target, src, int(pl.Limit), int(pl.Offset))
	}
	if err != nil {
		return nil, closeAfter(src, err)
	}
	return b.track(label(n), op), nil
}

func (b *builder) union(n *rules.Node, p int) (operators.Operator, error) {
	routes := make([]int, len(n.Children))
	for i := range routes {
		routes[i] = -1
	}
	if p >= 0 {
		var err error
		if routes, err = b.q.unionPart(b.s, n, p); err != nil {
			return nil, err
		}
	}
	var children []operators.Operator
	closeAll := func(err error) error {
		for _, c := range children {
			c.Close()
		}
		return err
	}
	for i, c := range n.Children {
		op, err := b.build(c, routes[i])
		if err != nil {
			return nil, closeAll(err)
		}
		children = append(children, op)
	}
	op, err := newUnion(b.target, children)
	if err != nil {
		return nil, closeAll(err)
	}
	return b.track(label(n), op), nil
}

// join builds a hash join: against the device's broadcast table when the
// build side is a broadcast, else building from its (co-partitioned)
// build side in the task.
func (b *builder) join(n *rules.Node, p int) (operators.Operator, error) {
	pl, err := b.payload(n)
	if err != nil {
		return nil, err
	}
	jp := pl.Join
	if jp == nil || len(n.Children) != 2 {
		return nil, notExecutable(n, "no converted join")
	}
	names := make([]string, len(n.Spark.Output))
	for i, a := range n.Spark.Output {
		names[i] = a.Name
	}
	buildIdx, buildKeys := 1, jp.RightKeys
	if jp.Build == rules.BuildLeft {
		buildIdx, buildKeys = 0, jp.LeftKeys
	}
	buildNode := stripTransitions(n.Children[buildIdx])
	if kind, dep := b.q.leaf(b.s, buildNode); kind == leafBroadcast {
		if dep == nil {
			return nil, notExecutable(n, "its broadcast was not planned")
		}
		probe, err := b.build(n.Children[1-buildIdx], p)
		if err != nil {
			return nil, err
		}
		table := func(context.Context) (broadcastTable, error) { // in the join's Open
			t, err := b.table(dep, buildKeys, jp.NullSafe)
			if err != nil {
				return nil, fmt.Errorf("%s: broadcast %s: %w", label(n), label(buildNode), err)
			}
			return t, nil
		}
		op, err := newBroadcastHashJoin(b.target, probe, dep.schema, table, jp, names)
		if err != nil {
			return nil, closeAfter(probe, err)
		}
		return b.track(label(n), op), nil
	}
	left, err := b.build(n.Children[0], p)
	if err != nil {
		return nil, err
	}
	right, err := b.build(n.Children[1], p)
	if err != nil {
		return nil, closeAfter(left, err)
	}
	op, err := newHashJoin(b.target, left, right, jp, names)
	if err != nil {
		left.Close()
		return nil, closeAfter(right, err)
	}
	return b.track(label(n), op), nil
}

func stripTransitions(n *rules.Node) *rules.Node {
	for n.Kind.IsTransition() && len(n.Children) == 1 {
		n = n.Children[0]
	}
	return n
}

// tableEntry is a broadcast's hash table on one device, built by the
// first task there that needs it and shared by the others.
type tableEntry struct {
	mu    sync.Mutex
	table broadcastTable
}

func (e *tableEntry) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.table != nil {
		e.table.Release()
		e.table = nil
	}
}

// table returns the broadcast's table on the task's device, building it
// on first use; the task holds a reference until it ends.
func (b *builder) table(dep *stage, keys []*expr.Expr, nullSafe []bool) (broadcastTable, error) {
	return b.deviceTable(&dep.mu, &dep.tables, func() operators.Operator {
		return operators.NewRecordSource(dep.schema, dep.records()...)
	}, keys, nullSafe)
}

// deviceTable returns the table in *tables (guarded by mu) for the task's
// device, building it over src() with keys on first use; the task holds a
// reference until it ends.
func (b *builder) deviceTable(mu *sync.Mutex, tables *map[string]*tableEntry, src func() operators.Operator, keys []*expr.Expr,
	nullSafe []bool) (broadcastTable, error) {
	mu.Lock()
	if *tables == nil {
		*tables = map[string]*tableEntry{}
	}
	e := (*tables)[b.addr]
	if e == nil {
		e = &tableEntry{}
		(*tables)[b.addr] = e
	}
	mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.table == nil {
		if err := b.ctx.Err(); err != nil {
			return nil, context.Cause(b.ctx)
		}
		tgt, err := b.q.broadcastTarget(b.addr)
		if err != nil {
			return nil, err
		}
		t, err := newBroadcastTable(b.ctx, tgt, src(), keys, nullSafe)
		if err != nil {
			return nil, err
		}
		e.table = t
	}
	e.table.Retain()
	b.held = append(b.held, e.table.Release)
	return e.table, nil
}

// buildJoin is the hash join that builds its table from broadcast
// exchange at (resolved), found in the main tree and the subqueries; nil
// when none does (the broadcast is read otherwise).
func (q *query) buildJoin(at *rules.Node) *rules.Node {
	var found *rules.Node
	eachNode(q.res, func(n *rules.Node) bool {
		if found != nil {
			return false
		}
		if n.Kind == rules.DpuHashJoin && n.Device != nil && n.Device.Join != nil && len(n.Children) == 2 {
			i := 1
			if n.Device.Join.Build == rules.BuildLeft {
				i = 0
			}
			if resolve(stripTransitions(n.Children[i])) == at {
				found = n
				return false
			}
		}
		return true
	})
	return found
}

// eachNode calls visit on every node of the converted plan, the main tree
// and then the subqueries, parents before children; visit returns false
// to skip a node's children.
func eachNode(res *rules.Result, visit func(*rules.Node) bool) {
	var walk func(n *rules.Node)
	walk = func(n *rules.Node) {
		if n == nil || !visit(n) {
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(res.Root)
	for _, sq := range res.Subqueries {
		walk(sq)
	}
}

// prebuild builds broadcast stage s's table as soon as its rows are
// collected, in a task slot of its own, instead of in the first task of
// the joining stage: independent broadcasts then build their tables in
// parallel with each other and with the other stages running (at 2
// threads, a join stage of one task otherwise built every table itself,
// one after the other). Only on a query of one device (the table lives
// where the joins run); a failure leaves the table to be built, and the
// error reported, by the join as before. It runs after s is finished, so
// the stages joining against s start beside it: their broadcast joins
// take the table in Open, after their probe side (a scan's read-ahead)
// has started, and wait there for the build.
func (q *query) prebuild(ctx context.Context, s *stage) {
	if s.at == nil || s.at.Kind != rules.DpuBroadcastExchange || len(q.devices) != 1 || q.alone != nil {
		return
	}
	join := q.buildJoin(s.at)
	if join == nil {
		return
	}
	if q.slots.acquire(ctx, prioBroadcast) != nil {
		return
	}
	defer q.slots.release()
	b := &builder{ctx: ctx, q: q, s: s, addr: q.devices[0]}
	defer b.release()
	pl, err := b.payload(join)
	if err != nil || pl.Join == nil {
		return
	}
	keys := pl.Join.RightKeys
	if pl.Join.Build == rules.BuildLeft {
		keys = pl.Join.LeftKeys
	}
	if _, err := b.table(s, keys, pl.Join.NullSafe); err != nil {
		q.logf("%s: table built ahead failed (the join builds it): %v", s.name(), err)
		s.mu.Lock()
		if e := s.tables[b.addr]; e != nil {
			e.release()
		}
		s.mu.Unlock()
	}
}

// broadcastTarget is where broadcast tables live on a device: a task of
// the query's own that lasts until the query ends.
func (q *query) broadcastTarget(addr string) (*operators.Target, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.bcast[addr]; t != nil {
		return t.Targets()[0], nil
	}
	t, err := q.env.Runtime.BeginTask(hados.TaskSpec{ID: q.nextTaskID(), Devices: []string{addr}, Pool: q.env.Pool})
	if err != nil {
		return nil, err
	}
	q.bcast[addr] = t
	return t.Targets()[0], nil
}

// emptyGuard runs a blocking operator (a sort) only when its input has a
// row: operators.Sort refuses an empty input ("concat of no records"),
// which an empty partition is.
type emptyGuard struct {
	in    *peekOp
	op    operators.Operator
	empty bool
}

func (g *emptyGuard) Schema() *arrow.Schema { return g.op.Schema() }

func (g *emptyGuard) Open(ctx context.Context) error {
	if err := g.in.Open(ctx); err != nil {
		return err
	}
	if g.in.first == nil {
		g.empty = true
		return nil
	}
	return g.op.Open(ctx)
}

func (g *emptyGuard) Next(ctx context.Context) (arrow.Record, error) {
	if g.empty {
		return nil, nil
	}
	return g.op.Next(ctx)
}

func (g *emptyGuard) Close() error { return errors.Join(g.op.Close(), g.in.Close()) }

func (g *emptyGuard) Stats() operators.Stats {
	if s, ok := g.op.(statser); ok {
		return s.Stats()
	}
	return operators.Stats{}
}

// peekOp reads its child's first non-empty record at Open (a second Open
// does nothing) and returns it first.
type peekOp struct {
	operators.Operator
	opened bool
	first  arrow.Record
}

func (p *peekOp) Open(ctx context.Context) error {
	if p.opened {
		return nil
	}
	p.opened = true
	if err := p.Operator.Open(ctx); err != nil {
		return err
	}
	for {
		r, err := p.Operator.Next(ctx)
		if err != nil || r == nil {
			return err
		}
		if r.NumRows() > 0 {
			p.first = r
			return nil
		}
		r.Release()
	}
}

func (p *peekOp) Next(ctx context.Context) (arrow.Record, error) {
	if r := p.first; r != nil {
		p.first = nil
		return r, nil
	}
	return p.Operator.Next(ctx)
}

func (p *peekOp) Close() error {
	if p.first != nil {
		p.first.Release()
		p.first = nil
	}
	return p.Operator.Close()
}
