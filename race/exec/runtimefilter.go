package exec

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// This file is the runtime join filters (Spark's InjectRuntimeFilter,
// DuckDB's join filter pushdown): a broadcast hash join whose unmatched
// probe rows are dropped sends its build side's distinct key values down
// its probe side, through renames, filters, exchanges, aggregations
// grouping by the key and the kept side of other joins, to just above
// the scan the key comes from, where a left semi join against the key
// set drops the rows the join would drop anyway — before they are
// shuffled and aggregated (TPC-H Q17 aggregates 6M lineitem rows into
// 200k groups of which the join keeps 188).

// runtimeFilters switches the runtime join filters (on; off runs the
// plan as written, for A/B measurements and tests).
var runtimeFilters = true

// maxRuntimeFilterKeys bounds a runtime filter's key set: the distinct
// keys of a broadcast build side beyond it leave the probe side
// unfiltered. 64k 8-byte keys make a table of about 1 MiB, which stays
// in a core's L2 cache, so that the semi join's probe costs a few ns a
// row; a larger set is rarely selective enough to pay for the probe (and
// for the wait: the filtered stage waits for the build side).
const maxRuntimeFilterKeys = 1 << 16

// runtimeFilter is one pushed filter: target's output column col keeps
// the rows whose value is among the distinct non-null values of column
// buildCol of broadcast stage build.
type runtimeFilter struct {
	join     *rules.Node // the join whose build side gives the keys
	build    *stage      // its broadcast stage
	buildCol int
	target   *rules.Node // the node whose output is filtered
	col      int
	typ      types.DataType
	stage    *stage // the stage running target

	once   sync.Once
	keys   arrow.Record // the distinct keys (nil: too many, or failed)
	nkeys  int
	err    error
	mu     sync.Mutex
	tables map[string]*tableEntry // the key set's table by device
}

// hop is one node of a key's lineage and the key's column in its output.
type hop struct {
	n   *rules.Node
	col int
}

// rtfKeyType reports the key types a runtime filter takes: integers and
// dates (one 4- or 8-byte value a row).
func rtfKeyType(t types.DataType) bool {
	return t.Kind == types.Int || t.Kind == types.Long || t.Kind == types.Date
}

// planRuntimeFilters finds the runtime filters of the query's planned
// stages that have not started, and makes each target stage wait for the
// broadcast it reads keys from. It runs before runStages; a RunStage
// query (q.alone) gets none.
func (q *query) planRuntimeFilters() {
	if !runtimeFilters || q.alone != nil {
		return
	}
	q.rtfMu.Lock()
	defer q.rtfMu.Unlock()
	q.mu.Lock()
	stages := append([]*stage(nil), q.stages...)
	if q.rtfJoins == nil {
		q.rtfJoins = map[*rules.Node]bool{}
	}
	q.mu.Unlock()
	reused := reusedNodes(q.res)
	for _, s := range stages {
		if s.fixed() {
			continue
		}
		q.walkStage(s, s.top, func(n *rules.Node) {
			if n.Kind != rules.DpuHashJoin || q.rtfJoins[n] {
				return
			}
			q.rtfJoins[n] = true
			if f := q.runtimeFilterOf(s, n, reused); f != nil {
				q.mu.Lock()
				if q.rtf == nil {
					q.rtf = map[*rules.Node]*runtimeFilter{}
				}
				if q.rtf[f.target] == nil {
					q.rtf[f.target] = f
					f.stage.deps = append(f.stage.deps, f.build)
				}
				q.mu.Unlock()
			}
		})
	}
}

// walkStage visits the nodes of stage s's subtree from n down to its
// boundaries.
func (q *query) walkStage(s *stage, n *rules.Node, visit func(*rules.Node)) {
	if n == nil {
		return
	}
	if kind, _ := q.leaf(s, n); kind != notLeaf {
		return
	}
	visit(n)
	for _, c := range n.Children {
		q.walkStage(s, c, visit)
	}
}

// reusedNodes is every exchange a ReusedExchange reads again.
func reusedNodes(res *rules.Result) map[*rules.Node]bool {
	out := map[*rules.Node]bool{}
	eachNode(res, func(n *rules.Node) bool {
		if n.Kind == rules.DpuReusedExchange && n.Device != nil && n.Device.Reuses != nil {
			out[n.Device.Reuses] = true
		}
		return true
	})
	return out
}

// runtimeFilterOf is the filter join j of stage s pushes down its probe
// side, or nil: j must drop its unmatched probe rows (inner, or a left
// semi join building right) and build from a broadcast; its first key
// pair of column references of an integer or date type whose probe
// column traces down to a scan, across at least one exchange, gives it
// — unless a join against a broadcast in the scan's stage already has
// that column for its key (filteredBelow): then the join gets none.
func (q *query) runtimeFilterOf(s *stage, j *rules.Node, reused map[*rules.Node]bool) *runtimeFilter {
	if j.Device == nil || j.Device.Join == nil || len(j.Children) != 2 {
		return nil
	}
	jp := j.Device.Join
	buildIdx, buildKeys, probeKeys := 1, jp.RightKeys, jp.LeftKeys
	if jp.Build == rules.BuildLeft {
		buildIdx, buildKeys, probeKeys = 0, jp.LeftKeys, jp.RightKeys
	}
	switch {
	case jp.Type == plan.JoinInner:
	case jp.Type == plan.JoinLeftSemi && buildIdx == 1:
	default:
		return nil
	}
	kind, dep := q.leaf(s, stripTransitions(j.Children[buildIdx]))
	if kind != leafBroadcast || dep == nil {
		return nil
	}
	for i := range probeKeys {
		pk, bk := probeKeys[i], buildKeys[i]
		if pk.Op != expr.OpColumn || bk.Op != expr.OpColumn || !rtfKeyType(pk.Type) || pk.Type != bk.Type ||
			(i < len(jp.NullSafe) && jp.NullSafe[i]) {
			continue
		}
		hops, ok := traceKey(j.Children[1-buildIdx], pk.Col, pk.Type)
		if !ok {
			continue
		}
		if filteredBelow(hops) {
			return nil // and the join's other keys are rarely more selective
		}
		f := q.placeFilter(hops, reused)
		if f == nil {
			f = placeBelowJoin(s, hops)
		}
		if f == nil {
			continue
		}
		if dependsOn(dep, f.stage) || f.stage.fixed() {
			continue // the broadcast needs the target stage's output (or it ran already)
		}
		f.join, f.typ = j, pk.Type
		f.build, f.buildCol = q.keySource(dep, bk.Col, pk.Type)
		return f
	}
	return nil
}

// keySource is the earliest broadcast whose column holds every value of
// column col of broadcast stage b's rows: b's own, or one b's rows were
// joined with on that column (an inner join, or a left semi join keeping
// b's side) or taken from, found down b's subtree through filters,
// column-reference projections and such joins. Its keys may be more (the
// join below may drop some), never fewer; being done earlier, it lets the
// filtered stage run beside b instead of after it (TPC-H Q17's build side
// is lineitem joined with the 188 parts of broadcast (8): the filtered
// stage waits for (8), not for the scan of lineitem that joins them).
func (q *query) keySource(b *stage, col int, t types.DataType) (*stage, int) {
	best, bestCol := b, col
	cur, n := b, b.top
	for n != nil {
		if kind, dep := q.leaf(cur, n); kind == leafBroadcast && dep != nil && dep.kind == collectStage {
			best, bestCol = dep, col
			cur, n = dep, dep.top
			continue
		} else if kind != notLeaf {
			break
		}
		if out := n.Output(); col >= len(out) || out[col].Type != t {
			break
		}
		switch {
		case n.Kind.IsTransition() && len(n.Children) == 1, n.Kind == rules.DpuFilter && len(n.Children) == 1:
			n = n.Children[0]
			continue
		case n.Kind == rules.DpuProject && n.Device != nil && len(n.Children) == 1:
			if col >= len(n.Device.Project) || n.Device.Project[col].Op != expr.OpColumn {
				return best, bestCol
			}
			n, col = n.Children[0], n.Device.Project[col].Col
			continue
		case n.Kind == rules.DpuHashJoin && n.Device != nil && n.Device.Join != nil && len(n.Children) == 2:
			jp := n.Device.Join
			side := 0
			if left := len(n.Children[0].Output()); col >= left {
				side, col = 1, col-left
			}
			if jp.Type != plan.JoinInner && !(jp.Type == plan.JoinLeftSemi && side == 0) {
				return best, bestCol
			}
			keys, other := jp.LeftKeys, jp.RightKeys
			if side == 1 {
				keys, other = jp.RightKeys, jp.LeftKeys
			}
			for i, k := range keys {
				o := other[i]
				if k.Op != expr.OpColumn || k.Col != col || o.Op != expr.OpColumn || o.Type != t || (i < len(jp.NullSafe) && jp.NullSafe[i]) {
					continue
				}
				// every row's value matched the other side's key: a broadcast
				// there holds them all
				if kind, dep := q.leaf(cur, stripTransitions(n.Children[1-side])); kind == leafBroadcast && dep != nil {
					best, bestCol = dep, o.Col
				}
			}
			n = n.Children[side]
			continue
		}
		break
	}
	return best, bestCol
}

// dependsOn reports whether stage a reads stage b, directly or not (a
// == b counts).
func dependsOn(a, b *stage) bool {
	seen := map[*stage]bool{}
	var visit func(s *stage) bool
	visit = func(s *stage) bool {
		if s == b {
			return true
		}
		if seen[s] {
			return false
		}
		seen[s] = true
		for _, d := range s.deps {
			if visit(d) {
				return true
			}
		}
		return false
	}
	return visit(a)
}

// traceKey follows column col of n's output down to the scan it comes
// from: through transitions, filters, column-reference projections,
// exchanges (not reused ones: see placeFilter), aggregations grouping by
// it, and the side of a join whose rows the join keeps or drops but
// never changes (either side of an inner join, the left side of a left
// semi, anti, outer or existence join, the right side of a right outer
// one). It returns the lineage, n first, the scan last; false when the
// column is computed, an aggregate's value, from the null-extended side
// of an outer join, or read from another stage's broadcast or gather.
func traceKey(n *rules.Node, col int, t types.DataType) ([]hop, bool) {
	var hops []hop
	for {
		if n == nil || col < 0 {
			return nil, false
		}
		if out := n.Output(); col >= len(out) || out[col].Type != t {
			return nil, false
		}
		hops = append(hops, hop{n, col})
		switch {
		case n.Kind == rules.DpuScan:
			return hops, true
		case n.Kind.IsTransition() && len(n.Children) == 1,
			n.Kind == rules.DpuFilter && len(n.Children) == 1,
			n.Kind == rules.DpuExchange && len(n.Children) == 1 && n.Device != nil:
			n = n.Children[0]
		case n.Kind == rules.DpuProject && n.Device != nil && len(n.Children) == 1:
			if col >= len(n.Device.Project) || n.Device.Project[col].Op != expr.OpColumn {
				return nil, false
			}
			n, col = n.Children[0], n.Device.Project[col].Col
		case n.Kind == rules.DpuHashAggregate && n.Device != nil && len(n.Children) == 1:
			p := n.Device
			if p.Results != nil { // final: a result that is a grouping key
				if col >= len(p.Results) || p.Results[col].Op != expr.OpColumn || p.Results[col].Col >= len(p.Keys) {
					return nil, false
				}
				col = p.Results[col].Col
			}
			if col >= len(p.Keys) || p.Keys[col].Op != expr.OpColumn {
				return nil, false
			}
			n, col = n.Children[0], p.Keys[col].Col
		case n.Kind == rules.DpuHashJoin && n.Device != nil && n.Device.Join != nil && len(n.Children) == 2:
			jp := n.Device.Join
			left := len(n.Children[0].Output())
			side := 0
			if col >= left {
				side, col = 1, col-left
			}
			keeps := jp.Type == plan.JoinInner ||
				side == 0 && (jp.Type == plan.JoinLeftSemi || jp.Type == plan.JoinLeftAnti || jp.Type == plan.JoinLeftOuter || jp.Type == plan.JoinExistence) ||
				side == 1 && jp.Type == plan.JoinRightOuter
			if !keeps {
				return nil, false
			}
			n = n.Children[side]
		default:
			return nil, false
		}
	}
}

// placeFilter picks where lineage hops is filtered: the top of the
// filter/projection chain right above its scan (the pipeline's own
// filter runs first: it is cheaper than the semi join's probe), unless
// the chain is fused into a node above it (a projection over a filter,
// an aggregation over either), then the highest node of the chain built
// as an operator of its own, else the scan. The lineage must cross an
// exchange (the filter then saves a shuffle and what runs above it) and
// no exchange another consumer reuses. nil: no place.
func (q *query) placeFilter(hops []hop, reused map[*rules.Node]bool) *runtimeFilter {
	var last *rules.Node // the lowest exchange crossed
	for _, h := range hops {
		if h.n.Kind == rules.DpuExchange {
			if reused[h.n] {
				return nil
			}
			last = h.n
		}
	}
	if last == nil {
		return nil
	}
	q.mu.Lock()
	st := q.byNode[last]
	q.mu.Unlock()
	if st == nil || st.kind != mapStage {
		return nil
	}
	top := chainTop(hops)
	return &runtimeFilter{target: hops[top].n, col: hops[top].col, stage: st}
}

// chainTop is the index in hops of the node the filter lands on: the top
// of the filter/projection chain right above the scan (hops' last) built
// as an operator of its own, else the scan.
func chainTop(hops []hop) int {
	built := func(k int) bool { // hops[k] is built by builder.build
		if k == 0 {
			return true
		}
		n, parent := hops[k].n, hops[k-1].n
		if n.Kind == rules.DpuFilter && parent.Kind == rules.DpuProject && parent.Device != nil {
			return false // filterProject fuses them
		}
		if fuseAggregates && parent.Kind == rules.DpuHashAggregate {
			return false // aggInput fuses it
		}
		return true
	}
	top := len(hops) - 1 // the scan
	for k := len(hops) - 2; k >= 0; k-- {
		if hops[k].n.Kind != rules.DpuFilter && hops[k].n.Kind != rules.DpuProject {
			break
		}
		if built(k) {
			top = k
		}
	}
	return top
}

// filteredBelow reports whether the key is a join key, against a
// broadcast, of an inner or left semi join below the lowest exchange of
// lineage hops: that join drops the rows the filter would drop in the same
// stage, and the filter would only move its probe (TPC-H Q20's lineitem
// is semi joined with the forest parts before it is aggregated).
func filteredBelow(hops []hop) bool {
	low := -1
	for k, h := range hops {
		if h.n.Kind == rules.DpuExchange {
			low = k
		}
	}
	for k := low + 1; k+1 < len(hops); k++ {
		j := hops[k].n
		if j.Kind != rules.DpuHashJoin || j.Device == nil || j.Device.Join == nil {
			continue
		}
		jp := j.Device.Join
		side := 0
		if hops[k+1].n == j.Children[1] {
			side = 1
		}
		if jp.Type != plan.JoinInner && !(jp.Type == plan.JoinLeftSemi && side == 0) {
			continue
		}
		keys := jp.LeftKeys
		if side == 1 {
			keys = jp.RightKeys
		}
		if resolve(stripTransitions(j.Children[1-side])).Kind != rules.DpuBroadcastExchange {
			continue
		}
		for i, e := range keys {
			if e.Op == expr.OpColumn && e.Col == hops[k+1].col && !(i < len(jp.NullSafe) && jp.NullSafe[i]) {
				return true
			}
		}
	}
	return false
}

// runtimeFilterAt is the filter on n's output, nil when none.
func (q *query) runtimeFilterAt(n *rules.Node) *runtimeFilter {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.rtf[n]
}

// collect computes the key set from the build stage's records, once.
func (f *runtimeFilter) collect() {
	f.once.Do(func() {
		at, err := types.ToArrow(f.typ)
		if err != nil {
			f.err = err
			return
		}
		seen := map[int64]struct{}{}
		bld := array.NewBuilder(memory.DefaultAllocator, at)
		defer bld.Release()
		add := func(v int64) bool {
			if _, ok := seen[v]; ok {
				return true
			}
			if len(seen) >= maxRuntimeFilterKeys {
				return false
			}
			seen[v] = struct{}{}
			switch b := bld.(type) {
			case *array.Int32Builder:
				b.Append(int32(v))
			case *array.Int64Builder:
				b.Append(v)
			case *array.Date32Builder:
				b.Append(arrow.Date32(v))
			}
			return true
		}
		for _, r := range f.build.records() {
			if f.buildCol >= int(r.NumCols()) {
				f.err = fmt.Errorf("runtime filter: build column %d of %d", f.buildCol, r.NumCols())
				return
			}
			c := r.Column(f.buildCol)
			for i := 0; i < c.Len(); i++ {
				if c.IsNull(i) {
					continue
				}
				var v int64
				switch a := c.(type) {
				case *array.Int32:
					v = int64(a.Value(i))
				case *array.Int64:
					v = a.Value(i)
				case *array.Date32:
					v = int64(a.Value(i))
				default:
					f.err = fmt.Errorf("runtime filter: build column of type %s", c.DataType())
					return
				}
				if !add(v) {
					return // too many keys: no filter
				}
			}
		}
		col := bld.NewArray()
		defer col.Release()
		s := arrow.NewSchema([]arrow.Field{{Name: "key", Type: at, Nullable: true}}, nil)
		f.keys = array.NewRecord(s, []arrow.Array{col}, int64(col.Len()))
		f.nkeys = col.Len()
	})
}

// rtfTable is the key set's table on the task's device, built by the first
// task there; nil when the filter does not apply (too many keys). The
// task holds a reference until it ends.
func (b *builder) rtfTable(f *runtimeFilter) (broadcastTable, error) {
	f.collect()
	if f.err != nil || f.keys == nil {
		return nil, f.err
	}
	return b.deviceTable(&f.mu, &f.tables, func() operators.Operator {
		return operators.NewRecordSource(f.keys.Schema(), f.keys)
	}, []*expr.Expr{expr.Column(0, "key", f.typ)}, []bool{false})
}

// applyRuntimeFilter puts filter f over op (target's operator): a left
// semi join against the key set's table. It closes op when it fails.
func (b *builder) applyRuntimeFilter(f *runtimeFilter, op operators.Operator) (operators.Operator, error) {
	table, err := b.rtfTable(f)
	if err != nil {
		return nil, closeAfter(op, fmt.Errorf("%s: runtime filter: %w", label(f.join), err))
	}
	if table == nil {
		return op, nil
	}
	s := op.Schema()
	names := make([]string, s.NumFields())
	for i := range names {
		names[i] = s.Field(i).Name
	}
	spec := operators.JoinSpec{Type: operators.JoinLeftSemi, Build: operators.BuildRight,
		LeftKeys: []*expr.Expr{expr.Column(f.col, names[f.col], f.typ)}, RightKeys: []*expr.Expr{expr.Column(0, "key", f.typ)},
		NullSafe: []bool{false}, Names: names}
	j, err := operators.NewBroadcastHashJoin(b.target, op, table, spec)
	if err != nil {
		return nil, closeAfter(op, err)
	}
	return b.track(fmt.Sprintf("%s runtime filter (%d keys) on %s", label(f.join), f.nkeys, label(f.target)), j), nil
}

// release frees the filter's key set and tables.
func (f *runtimeFilter) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.tables {
		e.release()
	}
	f.tables = nil
	if f.keys != nil {
		f.keys.Release()
		f.keys = nil
	}
}
