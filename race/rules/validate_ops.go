package rules

import (
	"fmt"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/plan"
)

// This file checks and converts the operators between pipelines: joins,
// exchanges, sorts, limits, TopN and unions. Their payloads are what the
// executor builds the device operators from.

// orders converts a list of Spark SortOrder expressions (a bare
// expression sorts ascending, nulls first, as Spark's default).
func (c *nodeCheck) orders(es []*plan.Expr, in convert.Schema) []SortKey {
	b := c.builder(in)
	out := make([]SortKey, 0, len(es))
	for _, e := range es {
		k := SortKey{Expr: c.expr(e, in, b, false), NullsFirst: true}
		if e.Kind == plan.ExprSortOrder {
			k.Descending, k.NullsFirst = e.Desc, e.NullsFirst
		}
		out = append(out, k)
	}
	return out
}

// exprList2 converts a list over one input, one pipeline, and returns it.
func (c *nodeCheck) exprList2(es []*plan.Expr, in convert.Schema) []*expr.Expr {
	b := c.builder(in)
	out := make([]*expr.Expr, 0, len(es))
	for _, e := range es {
		out = append(out, c.expr(e, in, b, false))
	}
	return out
}

func (c *nodeCheck) exchange() {
	x := c.n.Exchange
	in := c.child(0)
	part := &Partitioning{Kind: x.Kind, N: x.NumPartitions}
	switch x.Kind {
	case plan.PartHash:
		part.Keys = c.exprList2(x.Exprs, in)
		if len(part.Keys) == 0 {
			c.fail(Unsupported(ReasonShape, "hash partitioning without keys"))
		}
	case plan.PartRange:
		part.Orders = c.orders(x.Exprs, in)
		if len(part.Orders) == 0 {
			c.fail(Unsupported(ReasonShape, "range partitioning without sort orders"))
		}
	case plan.PartSingle:
		part.N = 1
	case plan.PartRoundRobin:
	default:
		c.fail(Unsupported(ReasonOperator, "exchange partitioning "+clip(c.n.Arguments)))
		return
	}
	if part.N <= 0 {
		c.fail(Unsupported(ReasonShape, fmt.Sprintf("%s partitioning without a partition count", x.Kind)))
	}
	c.payload = &Payload{Input: in, Partitioning: part}
}

func (c *nodeCheck) join() {
	j := c.n.Join
	switch j.Type {
	case plan.JoinInner, plan.JoinLeftOuter, plan.JoinRightOuter, plan.JoinFullOuter,
		plan.JoinLeftSemi, plan.JoinLeftAnti, plan.JoinExistence:
	default:
		c.fail(Unsupported(ReasonOperator, fmt.Sprintf("%s join", j.Type)))
	}
	if len(j.LeftKeys) == 0 || len(j.LeftKeys) != len(j.RightKeys) {
		c.fail(Unsupported(ReasonShape, fmt.Sprintf("%d left and %d right join keys (an equi-join needs matching keys)", len(j.LeftKeys), len(j.RightKeys))))
	}
	if j.NullAwareAnti && (j.Type != plan.JoinLeftAnti || len(j.LeftKeys) != 1) {
		c.fail(Unsupported(ReasonShape, "a null-aware anti join needs one key"))
	}
	left, right := c.child(0), c.child(1)
	jp := &JoinPayload{Type: j.Type, Build: buildSide(j), NullAwareAnti: j.NullAwareAnti, LeftWidth: len(left)}
	jp.LeftKeys = c.exprList2(j.LeftKeys, left)
	jp.RightKeys = c.exprList2(j.RightKeys, right)
	if j.Condition != nil {
		both := append(append(convert.Schema(nil), left...), right...)
		jp.Condition = c.expr(j.Condition, both, c.builder(both), false)
	}
	c.payload = &Payload{Input: left, Join: jp}
}

// buildSide is the printed build side, or for a sort-merge join (which
// builds nothing) the side a hash join of its type builds: the right
// one, except for a right outer join.
func buildSide(j *plan.JoinInfo) BuildSide {
	switch {
	case j.BuildSide == "left":
		return BuildLeft
	case j.BuildSide == "right":
		return BuildRight
	case j.Type == plan.JoinRightOuter:
		return BuildLeft
	}
	return BuildRight
}

func (c *nodeCheck) topN() {
	t := c.n.TakeOrdered
	in := c.child(0)
	pl := &Payload{Input: in, Orders: c.orders(t.Orders, in), Limit: t.Limit, Offset: t.Offset}
	if len(t.Projection) > 0 {
		pl.Project = c.exprList2(t.Projection, in)
		for _, e := range t.Projection {
			pl.Names = append(pl.Names, e.Name)
		}
	}
	c.checkLimit(t.Limit, t.Offset)
	c.payload = pl
}

func (c *nodeCheck) limit(limit, offset int64) {
	c.checkLimit(limit, offset)
	c.payload = &Payload{Input: c.child(0), Limit: limit, Offset: offset}
}

// maxLimit bounds limits and offsets to what an int holds on every
// platform the device operators take.
const maxLimit = 1<<31 - 1

func (c *nodeCheck) checkLimit(limit, offset int64) {
	if limit < 0 || offset < 0 || limit > maxLimit || offset > maxLimit {
		c.fail(Unsupported(ReasonShape, fmt.Sprintf("limit %d offset %d (want 0 to %d)", limit, offset, maxLimit)))
	}
}

// union checks that every child produces the first one's column types.
func (c *nodeCheck) union() {
	first := c.child(0)
	for i := 1; i < len(c.n.Children); i++ {
		ci := c.child(i)
		if len(ci) != len(first) {
			c.fail(Unsupported(ReasonShape, fmt.Sprintf("union child %d has %d columns, the first %d", i, len(ci), len(first))))
			return
		}
		for k := range ci {
			if ci[k].Type.IsKnown() && first[k].Type.IsKnown() && ci[k].Type != first[k].Type {
				c.fail(Unsupported(ReasonShape, fmt.Sprintf("union child %d column %d is %s, the first child's %s", i, k, ci[k].Type, first[k].Type)))
				return
			}
		}
	}
	c.payload = &Payload{Input: first}
}
