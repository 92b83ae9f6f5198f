package planbuilder

import (
	"fmt"

	"github.com/hados-io/hados/race/plan"
)

// BuildSide, BuildRight and BuildLeft re-export plan's build sides.
type BuildSide = plan.BuildSide

const BuildRight, BuildLeft = plan.BuildRight, plan.BuildLeft

// Join describes an equi-join: its type, the key pairs (each bound to its
// own side), an optional extra condition over both sides' columns, and for
// LeftAnti whether it is the null-aware anti join Spark plans for NOT IN.
type Join struct {
	Type      plan.JoinType
	LeftKeys  []*plan.Expr
	RightKeys []*plan.Expr
	Condition *plan.Expr
	NullAware bool
}

// On returns an inner join on the named key pairs: left1, right1, left2,
// right2, ….
func (b *Builder) On(pairs ...string) Join { return b.OnType(plan.JoinInner, pairs...) }

// OnType is On for a join of type jt.
func (b *Builder) OnType(jt plan.JoinType, pairs ...string) Join {
	j := Join{Type: jt}
	if len(pairs)%2 != 0 {
		b.failf("join keys %v: want pairs of left and right columns", pairs)
		return j
	}
	for i := 0; i < len(pairs); i += 2 {
		j.LeftKeys = append(j.LeftKeys, b.Col(pairs[i]))
		j.RightKeys = append(j.RightKeys, b.Col(pairs[i+1]))
	}
	return j
}

// Where returns j with the extra join condition cond.
func (j Join) Where(cond *plan.Expr) Join { j.Condition = cond; return j }

// Broadcast wraps r in a BroadcastExchange (HashedRelationBroadcastMode
// over keys), the build side of a BroadcastHashJoin. Joins wrap their
// build side themselves; call Broadcast to keep a handle for Reuse.
func (r *Rel) Broadcast(keys ...*plan.Expr) *Rel { return r.broadcast(keys, false) }

func (r *Rel) broadcast(keys []*plan.Expr, nullAware bool) *Rel {
	bound := r.b.bindAll(keys, r.n.Output, r.where(plan.OpBroadcastExchange))
	info := &plan.BroadcastInfo{Mode: "HashedRelationBroadcastMode"}
	for _, k := range bound {
		idx := -1
		for i, a := range r.n.Output {
			if k.Kind == plan.ExprAttr && a.ID == k.ID {
				idx = i
			}
		}
		if idx < 0 {
			info.Keys = append(info.Keys, k.String())
			continue
		}
		info.Keys = append(info.Keys, fmt.Sprintf("input[%d, %s, %t]", idx, k.Type, !notNullFiltered(r.n, k.ID)))
	}
	n := r.unary(plan.OpBroadcastExchange, r.n.Output)
	n.Broadcast = info
	// Build completes the arguments (plan id); it keeps the null-aware flag.
	n.Arguments = fmt.Sprintf("%t", nullAware)
	return r.wrap(n)
}

// notNullFiltered reports whether Spark knows attribute id of n's output
// is never null: a FilterExec outputs the columns it tests with
// isnotnull as non-nullable, and joins, exchanges and sorts keep their
// inputs' nullability (but the right side of a left outer join becomes
// nullable, and a Project or aggregate resets it). It shows in a
// broadcast mode's key ("input[0, bigint, false]").
func notNullFiltered(n *plan.Node, id int64) bool {
	switch {
	case n.Filter != nil:
		for _, c := range conjuncts(n.Filter.Condition) {
			if c.Kind == plan.ExprCall && c.Name == "isnotnull" && len(c.Args) == 1 && c.Args[0].Kind == plan.ExprAttr && c.Args[0].ID == id {
				return true
			}
		}
	case n.Join != nil:
		for i, c := range n.Children {
			if i == 1 && n.Join.Type != plan.JoinInner {
				break
			}
			if inOutput(c, id) {
				return notNullFiltered(c, id)
			}
		}
		return false
	case n.Exchange == nil && n.Broadcast == nil && n.Sort == nil:
		return false
	}
	return len(n.Children) == 1 && notNullFiltered(n.Children[0], id)
}

func inOutput(n *plan.Node, id int64) bool {
	for _, a := range n.Output {
		if a.ID == id {
			return true
		}
	}
	return false
}

// Reuse returns a ReusedExchange of r, which must be an exchange: the same
// data under fresh attribute ids, as Spark's exchange reuse prints it.
func (r *Rel) Reuse() *Rel {
	if r.n.Op != plan.OpExchange && r.n.Op != plan.OpBroadcastExchange {
		r.b.failf("Reuse of %s: only exchanges can be reused", r.n.Op)
	}
	out := make([]plan.Attr, len(r.n.Output))
	for i, a := range r.n.Output {
		out[i] = r.b.newAttr(a.Name, a.Type)
	}
	n := &plan.Node{Op: plan.OpReusedExchange, OpName: plan.OpReusedExchange.String(), Output: out, Reused: &plan.ReusedInfo{}}
	r.b.reuses[n] = r.n
	return r.wrap(n)
}

func isExchange(n *plan.Node) bool {
	return n.Op == plan.OpBroadcastExchange || n.Op == plan.OpReusedExchange
}

// BroadcastHashJoin joins r (left) with right, broadcasting the build
// side (wrapped in a BroadcastExchange unless it already is one).
func (r *Rel) BroadcastHashJoin(right *Rel, j Join, build BuildSide) *Rel {
	left := r
	if build == BuildRight && !isExchange(right.n) {
		right = right.broadcast(j.RightKeys, j.NullAware)
	}
	if build == BuildLeft && !isExchange(left.n) {
		left = left.broadcast(j.LeftKeys, j.NullAware)
	}
	return r.b.join(plan.OpBroadcastHashJoin, left, right, j, build.String())
}

// Join joins r (left) with right, letting the builder choose the
// strategy (Options.Joins): under JoinsAsWritten a BroadcastHashJoin
// building the right side, as Spark plans every join of its approved
// TPC-H plans over tiny tables; under JoinsBySize (the default) what
// Spark's JoinSelection with adaptive execution chooses at
// Options.ScaleFactor (see JoinSelection). A side that already is a
// broadcast (Broadcast, Reuse) is always the build side.
func (r *Rel) Join(right *Rel, j Join) *Rel {
	switch {
	case isExchange(right.n), r.b.opts.Joins == JoinsAsWritten:
		return r.BroadcastHashJoin(right, j, BuildRight)
	case isExchange(r.n):
		return r.BroadcastHashJoin(right, j, BuildLeft)
	}
	return r.selectJoin(right, j)
}

// InnerJoin is Join for an inner join on the named key pairs.
func (r *Rel) InnerJoin(right *Rel, pairs ...string) *Rel { return r.Join(right, r.b.On(pairs...)) }

// BJ is the common case: an inner BroadcastHashJoin building the right
// side, on the named key pairs.
func (r *Rel) BJ(right *Rel, pairs ...string) *Rel {
	return r.BroadcastHashJoin(right, r.b.On(pairs...), BuildRight)
}

// ShuffledHashJoin hash-partitions both sides by their keys and joins them,
// building a hash table of the build side in each partition. A side
// already hash partitioned by its keys (the output of a shuffled join on
// them) is not exchanged again, as Spark's EnsureRequirements decides.
func (r *Rel) ShuffledHashJoin(right *Rel, j Join, build BuildSide) *Rel {
	l, rr := r.partitionBy(j.LeftKeys), right.partitionBy(j.RightKeys)
	return r.b.join(plan.OpShuffledHashJoin, l, rr, j, build.String())
}

// SortMergeJoin hash-partitions both sides by their keys, sorts each
// partition by them and merges.
func (r *Rel) SortMergeJoin(right *Rel, j Join) *Rel {
	asc := func(keys []*plan.Expr) []*plan.Expr {
		out := make([]*plan.Expr, len(keys))
		for i, k := range keys {
			out[i] = r.b.Asc(k)
		}
		return out
	}
	l := r.HashExchange(j.LeftKeys...).Sort(false, asc(j.LeftKeys)...)
	rr := right.HashExchange(j.RightKeys...).Sort(false, asc(j.RightKeys)...)
	return r.b.join(plan.OpSortMergeJoin, l, rr, j, "")
}

func (b *Builder) join(op plan.Op, left, right *Rel, j Join, build string) *Rel {
	where := fmt.Sprintf("%s %s", op, j.Type)
	if len(j.LeftKeys) != len(j.RightKeys) {
		b.failf("%s: %d left keys but %d right keys", where, len(j.LeftKeys), len(j.RightKeys))
	}
	info := &plan.JoinInfo{Type: j.Type, BuildSide: build, NullAwareAnti: j.NullAware,
		LeftKeys:  b.bindAll(j.LeftKeys, left.n.Output, where+" left keys"),
		RightKeys: b.bindAll(j.RightKeys, right.n.Output, where+" right keys")}
	both := append(cloneAttrs(left.n.Output), right.n.Output...)
	info.Condition = b.bind(j.Condition, both, where+" condition")
	out := both
	if j.Type == plan.JoinLeftSemi || j.Type == plan.JoinLeftAnti {
		out = cloneAttrs(left.n.Output)
	}
	header := j.Type.String()
	switch build {
	case "right":
		header += " BuildRight"
	case "left":
		header += " BuildLeft"
	}
	n := &plan.Node{Op: op, OpName: op.String(), Header: header, Codegen: true,
		Children: []*plan.Node{left.n, right.n}, Output: cloneAttrs(out), Join: info}
	return &Rel{b: b, n: n}
}

// partitionBy is r hash partitioned by keys: r itself when it already is,
// else r under a hash exchange.
func (r *Rel) partitionBy(keys []*plan.Expr) *Rel {
	bound := r.b.bindAll(keys, r.n.Output, r.where(plan.OpExchange))
	if len(bound) == len(keys) && hashPartitioned(r.n, bound) {
		return r
	}
	return r.HashExchange(keys...)
}
