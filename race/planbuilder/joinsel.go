package planbuilder

import (
	"math"
	"strings"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// JoinSelection says how the builder plans the joins a query writes as
// broadcast hash joins.
type JoinSelection uint8

const (
	// JoinsBySize (the default) plans each join as Spark's JoinSelection
	// with adaptive execution would at Options.ScaleFactor: broadcast a
	// side whose estimated size is at most Options.BroadcastThreshold (the
	// smaller one when both are), else a shuffled hash join building the
	// smaller side the join type allows. With the threshold at
	// SparkBroadcastThreshold these are a Spark cluster's choices; the
	// default threshold is hados's. A semi or anti join written with
	// SemiJoin whose left side is much smaller than its right side first
	// cuts the right side by the left side's keys.
	JoinsBySize JoinSelection = iota
	// JoinsAsWritten keeps every join as the query writes it: the shapes
	// of Spark's approved plans, made over tiny test tables.
	JoinsAsWritten
)

// SparkBroadcastThreshold is Spark's default
// spark.sql.autoBroadcastJoinThreshold (10 MiB): Spark sends a broadcast
// to every executor over the network, so it keeps them small.
const SparkBroadcastThreshold = 10 << 20

// DefaultBroadcastThreshold is the builder's (256 MiB): on hados a
// broadcast is copied to host memory once and built once per device,
// whose tasks share the table, while a shuffled join encodes and
// partitions both sides. At SF 1 the queries with the shuffled joins
// Spark's threshold gives (Q4, Q7, Q9, Q13, Q21, Q22) took 1.06-2.2x the
// CPU of broadcasting the smaller side (docs/PERFORMANCE.md, 2026-11-29);
// the limit bounds the device memory one table holds.
const DefaultBroadcastThreshold = 256 << 20

// tpchRows are the TPC-H tables' row counts at scale factor 1 (nation and
// region do not scale).
var tpchRows = map[string]float64{
	"lineitem": 6_001_215, "orders": 1_500_000, "partsupp": 800_000, "part": 200_000,
	"customer": 150_000, "supplier": 10_000, "nation": 25, "region": 5,
}

// primaryKeys name each TPC-H table's key columns: a join on all of them
// meets at most one row of that table.
var primaryKeys = map[string][]string{
	"customer": {"c_custkey"}, "orders": {"o_orderkey"}, "part": {"p_partkey"}, "supplier": {"s_suppkey"},
	"nation": {"n_nationkey"}, "region": {"r_regionkey"}, "partsupp": {"ps_partkey", "ps_suppkey"},
}

// ndv are the distinct counts of the TPC-H columns the queries filter,
// join or group on; a table name means "as many as that table's rows".
var ndv = map[string]any{
	"c_custkey": "customer", "o_custkey": 100_000.0, "o_orderkey": "orders", "l_orderkey": "orders",
	"l_partkey": "part", "ps_partkey": "part", "p_partkey": "part", "l_suppkey": "supplier",
	"ps_suppkey": "supplier", "s_suppkey": "supplier", "n_nationkey": 25.0, "c_nationkey": 25.0,
	"s_nationkey": 25.0, "n_regionkey": 5.0, "r_regionkey": 5.0, "r_name": 5.0, "n_name": 25.0,
	"c_mktsegment": 5.0, "p_brand": 25.0, "p_container": 40.0, "p_size": 50.0, "p_type": 150.0,
	"p_mfgr": 5.0, "l_returnflag": 3.0, "l_linestatus": 2.0, "o_orderstatus": 3.0, "l_shipmode": 7.0,
	"l_shipinstruct": 4.0, "o_orderpriority": 5.0,
}

// The dates of TPC-H's date columns lie in [1992-01-01, 1998-12-31].
const firstDay, lastDay = 8035, 10591

// scale returns the scale factor the estimates use.
func (b *Builder) scale() float64 {
	if b.opts.ScaleFactor > 0 {
		return b.opts.ScaleFactor
	}
	return 1
}

func (b *Builder) tableRows(table string) float64 {
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		table = table[i+1:]
	}
	n, ok := tpchRows[table]
	switch {
	case !ok:
		return 1e6
	case table == "nation" || table == "region":
		return n
	}
	return math.Max(1, n*b.scale())
}

// unknownDistinct is the distinct values assumed of a column the
// estimates know nothing of, asked for its whole domain (rows +Inf): an
// equality with a literal then keeps a tenth, as one with another
// column, rather than nothing.
const unknownDistinct = 10

// distinct estimates the distinct values of the column named name among
// rows rows (+Inf: in its whole domain).
func (b *Builder) distinct(name string, rows float64) float64 {
	switch v := ndv[name].(type) {
	case float64:
		if v > 25 {
			v *= b.scale()
		}
		return math.Min(rows, math.Max(1, v))
	case string:
		return math.Min(rows, b.tableRows(v))
	}
	if math.IsInf(rows, 1) {
		return unknownDistinct
	}
	return rows
}

// estRows estimates the rows n outputs, the way Spark's statistics would
// with table sizes, a few column distinct counts and date ranges (AQE
// replaces them by the true sizes at run time; these estimates only pick
// join strategies).
func (b *Builder) estRows(n *plan.Node) float64 {
	if v, ok := b.rows[n]; ok {
		return v
	}
	v := b.estimateRows(n)
	b.rows[n] = v
	return v
}

func (b *Builder) estimateRows(n *plan.Node) float64 {
	child := func(i int) float64 { return b.estRows(n.Children[i]) }
	switch {
	case n.Op == plan.OpScan && n.Scan != nil:
		return b.tableRows(n.Scan.Table)
	case n.Op == plan.OpReusedExchange:
		if t := b.reuses[n]; t != nil {
			return b.estRows(t)
		}
		return 1
	case n.Filter != nil:
		return math.Max(1, child(0)*b.selectivity(n.Filter.Condition))
	case n.Agg != nil:
		in := child(0)
		if len(n.Agg.Keys) == 0 {
			return 1
		}
		groups := 1.0
		for _, g := range n.Agg.Keys {
			name := g.Name
			if g.Kind == plan.ExprAttr {
				groups *= b.distinct(name, in)
			} else {
				groups *= in
			}
		}
		return math.Min(in, groups)
	case n.Join != nil && len(n.Children) == 2:
		return b.joinRows(n)
	case n.TakeOrdered != nil:
		return math.Min(child(0), float64(n.TakeOrdered.Limit))
	case n.Op == plan.OpUnion:
		sum := 0.0
		for i := range n.Children {
			sum += child(i)
		}
		return sum
	case len(n.Children) > 0:
		return child(0)
	}
	return 1
}

// joinRows estimates a join's output: a join on a key that is unique on
// one side (a table's primary key, an aggregate's single grouping column)
// keeps the other side's rows in the proportion of that side's key values
// still present.
func (b *Builder) joinRows(n *plan.Node) float64 {
	j := n.Join
	l, r := b.estRows(n.Children[0]), b.estRows(n.Children[1])
	// frac is the share of the unique side's key values present, or -1.
	frac := func(side *plan.Node, rows float64, keys []*plan.Expr) float64 {
		if !b.uniqueOn(side, keys) {
			return -1
		}
		if len(keys) == 1 {
			return math.Min(1, rows/b.distinct(keys[0].Name, math.Inf(1)))
		}
		for t, pk := range primaryKeys {
			if len(pk) == len(keys) && sameNames(pk, keys) {
				return math.Min(1, rows/b.tableRows(t))
			}
		}
		return 1
	}
	fr, fl := frac(n.Children[1], r, j.RightKeys), frac(n.Children[0], l, j.LeftKeys)
	inner := math.Max(l, r)
	switch {
	case fr >= 0:
		inner = l * fr
	case fl >= 0:
		inner = r * fl
	}
	switch j.Type {
	case plan.JoinLeftSemi, plan.JoinLeftAnti:
		// The share of the right key's values present on the right side.
		name := keyName(j.RightKeys)
		present := math.Min(1, b.distinct(name, r)/b.distinct(name, math.Inf(1)))
		if j.Type == plan.JoinLeftAnti {
			present = math.Max(0.1, 1-present)
		}
		return math.Max(1, l*present)
	case plan.JoinLeftOuter:
		return math.Max(l, inner)
	case plan.JoinRightOuter:
		return math.Max(r, inner)
	}
	if j.Condition != nil {
		inner *= b.selectivity(j.Condition)
	}
	return math.Max(1, inner)
}

func keyName(keys []*plan.Expr) string {
	var names []string
	for _, k := range keys {
		names = append(names, k.Name)
	}
	return strings.Join(names, ",")
}

// Expect records that r holds about rows rows at scale factor 1 (scaled
// by Options.ScaleFactor), where the estimates cannot know it — a filter
// on an aggregate's result, like Q18's sum(l_quantity) > 300 — as
// Spark's adaptive execution knows a finished stage's true size. It
// changes no operator, only the joins planned by size above r.
func (r *Rel) Expect(rows float64) *Rel {
	r.b.rows[r.n] = math.Max(1, rows*r.b.scale())
	return r
}

func sameNames(names []string, keys []*plan.Expr) bool {
	for _, want := range names {
		found := false
		for _, k := range keys {
			found = found || k.Name == want
		}
		if !found {
			return false
		}
	}
	return true
}

// uniqueOn reports whether side has at most one row per value of keys:
// they include a table's whole primary key, or they are the grouping
// columns of the aggregate side ends in.
func (b *Builder) uniqueOn(side *plan.Node, keys []*plan.Expr) bool {
	for _, pk := range primaryKeys {
		if sameNames(pk, keys) {
			return true
		}
	}
	for n := side; n != nil; {
		if n.Agg != nil {
			var names []string
			for _, g := range n.Agg.Keys {
				names = append(names, g.Name)
			}
			return len(names) > 0 && sameNames(names, keys)
		}
		if n.Join != nil || len(n.Children) != 1 {
			return false
		}
		n = n.Children[0]
	}
	return false
}

// selectivity estimates the share of rows a condition keeps: 1/ndv for
// equality with a literal, k/ndv for IN, the covered share of TPC-H's
// date range for date bounds, 1/3 for other comparisons (Spark's default)
// and 1/10 for string matches.
func (b *Builder) selectivity(e *plan.Expr) float64 {
	if e == nil {
		return 1
	}
	switch {
	case e.Kind != plan.ExprCall:
		return 1
	case e.Name == "AND":
		return b.conjunction(conjuncts(e))
	case e.Name == "OR":
		keep := 1.0
		for _, a := range e.Args {
			keep *= 1 - b.selectivity(a)
		}
		return 1 - keep
	case e.Name == "NOT" && len(e.Args) == 1:
		return math.Max(0.05, 1-b.selectivity(e.Args[0]))
	case e.Name == "isnotnull":
		return 1
	case e.Name == "=" && len(e.Args) == 2:
		if a, ok := attrLit(e.Args[0], e.Args[1]); ok {
			return 1 / b.distinct(a.Name, math.Inf(1))
		}
		return 0.1
	case e.Name == "IN" && len(e.Args) > 1:
		a := unwrapCast(e.Args[0])
		if a.Kind == plan.ExprAttr {
			return math.Min(1, float64(len(e.Args)-1)/b.distinct(a.Name, math.Inf(1)))
		}
		return 0.3
	case e.Name == "Contains" || e.Name == "StartsWith" || e.Name == "EndsWith" || e.Name == "LIKE":
		return 0.1
	case isRange(e.Name):
		return b.conjunction([]*plan.Expr{e})
	}
	return 1
}

// conjunction multiplies its conjuncts' selectivities, except that date
// bounds on one column combine into the share of the date range kept.
func (b *Builder) conjunction(cs []*plan.Expr) float64 {
	type bounds struct{ lo, hi float64 }
	dates := map[int64]*bounds{}
	sel := 1.0
	for _, c := range cs {
		if c.Kind == plan.ExprCall && isRange(c.Name) && len(c.Args) == 2 {
			if a, day, op, ok := dateBound(c); ok {
				bd := dates[a.ID]
				if bd == nil {
					bd = &bounds{firstDay, lastDay}
					dates[a.ID] = bd
				}
				switch op {
				case ">", ">=":
					bd.lo = math.Max(bd.lo, day)
				default:
					bd.hi = math.Min(bd.hi, day)
				}
				continue
			}
			sel /= 3
			continue
		}
		sel *= b.selectivity(c)
	}
	for _, bd := range dates {
		sel *= math.Max(0.001, (bd.hi-bd.lo)/(lastDay-firstDay))
	}
	return sel
}

func isRange(op string) bool { return op == "<" || op == "<=" || op == ">" || op == ">=" }

// dateBound reads "date column op date literal" (either way round) as the
// column, the day and the operator with the column on the left.
func dateBound(c *plan.Expr) (*plan.Expr, float64, string, bool) {
	x, y, op := unwrapCast(c.Args[0]), unwrapCast(c.Args[1]), c.Name
	if x.Kind == plan.ExprLiteral {
		x, y = y, x
		op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
	}
	if x.Kind != plan.ExprAttr || y.Kind != plan.ExprLiteral || y.Lit == nil || y.Lit.Null || y.Type.Kind != types.Date {
		return nil, 0, "", false
	}
	return x, float64(y.Lit.Int), op, true
}

func attrLit(x, y *plan.Expr) (*plan.Expr, bool) {
	x, y = unwrapCast(x), unwrapCast(y)
	if x.Kind == plan.ExprLiteral {
		x, y = y, x
	}
	return x, x.Kind == plan.ExprAttr && y.Kind == plan.ExprLiteral
}

func unwrapCast(e *plan.Expr) *plan.Expr {
	for e != nil && e.Kind == plan.ExprCall && e.Name == "cast" && len(e.Args) == 1 {
		e = e.Args[0]
	}
	return e
}

// estBytes estimates n's output size as Spark sizes rows: 8 bytes of
// header, 8 per fixed-width column (16 for a wide decimal), 20 per
// string (Spark's default string size).
func (b *Builder) estBytes(n *plan.Node) float64 {
	width := 8.0
	for _, a := range n.Output {
		switch {
		case a.Type.Kind == types.String || a.Type.Kind == types.Binary:
			width += 20
		case a.Type.Kind == types.Decimal && a.Type.Precision > 18:
			width += 16
		default:
			width += 8
		}
	}
	return b.estRows(n) * width
}

// threshold is the broadcast size limit in bytes.
func (b *Builder) threshold() float64 {
	if b.opts.BroadcastThreshold != 0 {
		return float64(b.opts.BroadcastThreshold)
	}
	return DefaultBroadcastThreshold
}

// selectJoin plans a join written as a broadcast hash join by size
// (JoinsBySize): Spark broadcasts a side at most the threshold that the
// join type lets it build (the right side of inner, left outer, semi and
// anti joins; the left side of inner and right outer joins), the smaller
// when both qualify; otherwise it shuffles both sides and builds a hash
// table of the smaller buildable side in each partition.
func (r *Rel) selectJoin(right *Rel, j Join) *Rel {
	b := r.b
	ls, rs := b.estBytes(r.n), b.estBytes(right.n)
	canLeft := j.Type == plan.JoinInner || j.Type == plan.JoinRightOuter
	canRight := j.Type != plan.JoinRightOuter && j.Type != plan.JoinFullOuter
	smallL, smallR := canLeft && ls <= b.threshold(), canRight && rs <= b.threshold()
	switch {
	case smallL && smallR && ls < rs, smallL && !smallR:
		return r.BroadcastHashJoin(right, j, BuildLeft)
	case smallR || j.NullAware:
		// A null-aware anti join is only planned as a broadcast.
		return r.BroadcastHashJoin(right, j, BuildRight)
	}
	// Shuffled hash join: Spark builds the right side of semi and anti
	// joins and the smaller side otherwise.
	build := BuildRight
	if canLeft && ls < rs {
		build = BuildLeft
	}
	return r.ShuffledHashJoin(right, j, build)
}

// hashPartitioned reports whether n's output is already hash partitioned
// by keys (in order) into the builder's partition count: below it an
// Exchange hashpartitioning on the same attributes, passed up through
// operators that keep rows in their partitions. Spark's EnsureRequirements
// adds no exchange then.
func hashPartitioned(n *plan.Node, keys []*plan.Expr) bool {
	for n != nil {
		switch {
		case n.Op == plan.OpExchange:
			if n.Exchange == nil || n.Exchange.Kind != plan.PartHash || len(n.Exchange.Exprs) != len(keys) {
				return false
			}
			for i, k := range n.Exchange.Exprs {
				if k.Kind != plan.ExprAttr || keys[i].Kind != plan.ExprAttr || k.ID != keys[i].ID {
					return false
				}
			}
			return true
		case n.Op == plan.OpShuffledHashJoin && n.Join != nil:
			if hashPartitioned(n.Children[0], keys) {
				return true
			}
			if n.Join.Type != plan.JoinInner {
				return false
			}
			n = n.Children[1]
		case n.Op == plan.OpBroadcastHashJoin && n.Join != nil:
			if n.Join.BuildSide == "left" {
				n = n.Children[1]
			} else {
				n = n.Children[0]
			}
		case n.Op == plan.OpFilter, n.Op == plan.OpProject, n.Op == plan.OpSort:
			n = n.Children[0]
		default:
			return false
		}
	}
	return false
}

// SemiJoin is Join for a left semi or anti join whose left side is
// small and whose right side is large. again() returns a relation whose
// columns named as the left keys hold every key value of r (r built
// anew, under fresh attribute ids, or just its key columns; a superset
// is fine). Under JoinsBySize, when semiReduces, the right side
// is first cut to the rows whose keys occur on the left — right ⋉
// broadcast(again()'s keys), Spark's semi-join reduction
// (InjectRuntimeFilter with
// spark.sql.optimizer.runtimeFilter.semiJoinReduction.enabled) — and the
// join then broadcasts the cut right side: the device builds a table of
// the few right rows that can match instead of all of them, at the cost
// of computing the left keys twice and probing every right row in their
// table. Dropping right rows whose key is not on the left changes
// neither join: a left row's matches (key and condition) all have its
// key, and a null key matches nothing (a left row with a null key is
// still dropped by a semi join and kept by an anti join). Otherwise, and
// as written, SemiJoin is Join.
//
// Spark can only build the right side of a left semi or anti join; the
// other way out, a shuffled join building the small left side and
// marking its matched rows (the operator can), measured slower at SF 1:
// shuffling the big side cost more than a reduction (Q4 1.4x the CPU,
// Q22 1.05x) and, for Q21's l1 of 3.8M rows, 1.4x the CPU of
// broadcasting l2 and l3 whole (docs/PERFORMANCE.md, 2026-11-29).
func (r *Rel) SemiJoin(right *Rel, j Join, again func() *Rel) *Rel {
	b := r.b
	if b.opts.Joins != JoinsBySize || again == nil || isExchange(right.n) || !b.semiReduces(r.n, right.n, j) {
		return r.Join(right, j)
	}
	keys := again()
	var names []string
	for _, k := range j.LeftKeys {
		if k.Kind != plan.ExprAttr {
			return r.Join(right, j)
		}
		names = append(names, k.Name)
	}
	reduce := Join{Type: plan.JoinLeftSemi, RightKeys: b.Cols(names...)}
	for _, k := range j.RightKeys {
		reduce.LeftKeys = append(reduce.LeftKeys, cloneExpr(k))
	}
	keys = keys.Keep(names...)
	// The estimates size the cut side by the share of the key's values
	// the left side holds (joinRows), so the join below broadcasts it
	// when that is small.
	cut := right.BroadcastHashJoin(keys, reduce, BuildRight)
	return r.Join(cut, j)
}

// semiReduces reports whether a left semi or anti join (not the
// null-aware one of NOT IN, which must see the right side's null keys)
// has a left side that may be broadcast (its keys are) and is estimated
// at most 1/semiReduceRatio of its right side's rows, and a right side
// of at least semiReduceMinBytes.
func (b *Builder) semiReduces(left, right *plan.Node, j Join) bool {
	if j.Type != plan.JoinLeftSemi && j.Type != plan.JoinLeftAnti || j.NullAware {
		return false
	}
	return b.estBytes(left) <= b.threshold() && b.estRows(left)*semiReduceRatio <= b.estRows(right) &&
		b.estBytes(right) >= semiReduceMinBytes
}

// A semi-join reduction probes every right row once in a table of the
// left side's keys, and saves building a table of the right side: where
// the left side is at most an eighth of the right one (TPC-H SF 1: Q4's
// 57k orders of 3.8M late lineitems, Q22's 6k customers of 1.5M orders;
// q21 writes its own, 70k l1 rows of 6M lineitems) that took 0.45-0.95x
// the CPU of building the right side (docs/PERFORMANCE.md, 2026-11-29).
// A right side under 8 MiB builds in a few ms: nothing to save.
const (
	semiReduceRatio    = 8
	semiReduceMinBytes = 8 << 20
)
