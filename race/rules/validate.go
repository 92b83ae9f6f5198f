package rules

import (
	"fmt"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/pipeline"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/plan"
)

// validate gives every operator and expression of the plan (main tree and
// subqueries) a Support verdict, asking the device what it supports:
// expressions through the pipeline compiler, operators through the
// capability table, types through the device's value types.
func validate(r *Result) error {
	v := &validator{opts: &r.Options, byID: map[int]*Node{}, binds: scalarPlaceholders(r.Plan)}
	r.Root = v.tree(r.Plan.Root)
	r.base = r.Root
	r.Subqueries = make([]*Node, len(r.Plan.Subqueries))
	r.subBase = make([]*Node, len(r.Plan.Subqueries))
	for i, s := range r.Plan.Subqueries {
		r.Subqueries[i] = v.tree(s.Root)
		r.subBase[i] = r.Subqueries[i]
	}
	v.resolveReused(r)
	return nil
}

type validator struct {
	opts  *Options
	byID  map[int]*Node
	binds convert.Bindings // typed nulls standing for the plan's scalar subqueries
}

func (v *validator) tree(p *plan.Node) *Node {
	if p == nil {
		return nil
	}
	n := &Node{Spark: p}
	for _, c := range p.Children {
		n.base = append(n.base, v.tree(c))
	}
	n.Children = append([]*Node(nil), n.base...)
	c := &nodeCheck{opts: v.opts, n: p, first: Supported, binds: v.binds}
	c.check()
	n.Support, n.Exprs = c.first, c.exprs
	if n.Support.OK {
		n.Device = c.payload
	}
	n.Verdict = n.Support
	if _, dup := v.byID[p.ID]; !dup {
		v.byID[p.ID] = n
	}
	return n
}

// resolveReused gives a ReusedExchange the verdict of the exchange it
// reuses: it is that exchange's output, read again.
func (v *validator) resolveReused(r *Result) {
	fix := func(n *Node) {
		if n.Spark == nil || n.Spark.Op != plan.OpReusedExchange || !n.Support.OK || n.Spark.Reused == nil {
			return
		}
		target := v.byID[n.Spark.Reused.ReusesID]
		switch {
		case target == nil:
			n.Support = Unsupported(ReasonOperator, fmt.Sprintf("ReusedExchange (%d) reuses an exchange Spark printed as unknown", n.Spark.ID))
		case !target.Support.OK:
			n.Support = Unsupported(target.Support.Reason, fmt.Sprintf("reuses (%d): %s", target.Spark.ID, target.Support.Detail))
		case target.Spark.Op != plan.OpExchange && target.Spark.Op != plan.OpBroadcastExchange:
			n.Support = Unsupported(ReasonOperator, fmt.Sprintf("ReusedExchange (%d) reuses (%d) %s, not an exchange", n.Spark.ID, target.Spark.ID, target.Spark.OpName))
		default:
			n.Device = &Payload{Input: target.Spark.Output, Reuses: target}
		}
		n.Verdict = n.Support
	}
	r.Root.walk(fix)
	for _, s := range r.Subqueries {
		s.walk(fix)
	}
}

// nodeCheck collects the verdicts of one operator: the first failure
// decides the operator's Support, every top-level expression gets its own.
type nodeCheck struct {
	opts    *Options
	n       *plan.Node
	first   Support
	exprs   []ExprSupport
	payload *Payload
	binds   convert.Bindings
	scalars []int64 // scalar subqueries the expressions read
}

func (c *nodeCheck) fail(s Support) {
	if c.first.OK {
		c.first = s
	}
}

func (c *nodeCheck) child(i int) convert.Schema {
	if i < len(c.n.Children) {
		return c.n.Children[i].Output
	}
	return nil
}

func (c *nodeCheck) check() {
	p := c.n
	if plumbing[p.Op] {
		return
	}
	if !c.opts.Enabled {
		c.fail(Unsupported(ReasonConfig, "spark.hados.enabled is false"))
		return
	}
	if p.EmptyLeaf() {
		// no rows: it stays a host operator, but the executor reads it as
		// an empty input (no RowToColumnar input needed), so it never
		// keeps the query on the host
		c.outputTypes(p.Output)
		if c.first.OK {
			c.first = EmptyInput
		}
		return
	}
	if _, ok := capabilities[p.Op]; !ok {
		c.fail(Unsupported(ReasonOperator, p.OpName+" is not supported on the device").about(p.OpName))
		return
	}
	switch {
	case p.Scan != nil:
		c.scan()
		return
	case p.Filter != nil:
		b := c.builder(c.child(0))
		c.payload = &Payload{Input: c.child(0), Filter: c.expr(p.Filter.Condition, c.child(0), b, true)}
	case p.Project != nil:
		b := c.builder(c.child(0))
		c.payload = &Payload{Input: c.child(0)}
		for _, e := range p.Project.List {
			c.payload.Project = append(c.payload.Project, c.expr(e, c.child(0), b, false))
			c.payload.Names = append(c.payload.Names, e.Name)
		}
	case p.Agg != nil:
		c.aggregate()
	case p.Join != nil:
		c.join()
	case p.Exchange != nil:
		c.exchange()
	case p.Sort != nil:
		c.payload = &Payload{Input: c.child(0), Global: p.Sort.Global, Orders: c.orders(p.Sort.Orders, c.child(0))}
	case p.TakeOrdered != nil:
		c.topN()
	case p.Limit != nil:
		c.limit(p.Limit.Limit, p.Limit.Offset)
	case p.Op == plan.OpUnion:
		c.union()
	}
	c.outputTypes(p.Output)
	if c.payload != nil {
		c.payload.Scalars = c.scalars
	}
}

// exprList checks expressions over one input, one pipeline.
func (c *nodeCheck) exprList(es []*plan.Expr, in convert.Schema) {
	b := c.builder(in)
	for _, e := range es {
		c.expr(e, in, b, false)
	}
}

func (c *nodeCheck) builder(in convert.Schema) *pipeline.Builder {
	ts := make([]types.DataType, len(in))
	for i, a := range in {
		ts[i] = a.Type
	}
	return pipeline.NewBuilder(ts)
}

// expr checks one expression: configuration, ANSI mode, conversion to the
// IR, then compilation for the device. It returns the converted
// expression, or nil when it is not supported.
func (c *nodeCheck) expr(e *plan.Expr, in convert.Schema, b *pipeline.Builder, filter bool) *expr.Expr {
	x, s := c.checkExpr(e, in, b, filter)
	c.exprs = append(c.exprs, ExprSupport{Expr: clip(e.String()), Support: s})
	if !s.OK {
		c.fail(s)
		return nil
	}
	return x
}

func (c *nodeCheck) checkExpr(e *plan.Expr, in convert.Schema, b *pipeline.Builder, filter bool) (*expr.Expr, Support) {
	o := c.opts
	c.scalars = convert.ScalarSubqueries(e, c.scalars)
	var verdict = Supported
	_ = e.Walk(func(x *plan.Expr) error {
		if x.Kind != plan.ExprCall || !verdict.OK {
			return nil
		}
		switch {
		case o.DisabledExpressions[x.Name]:
			verdict = Unsupported(ReasonConfig, fmt.Sprintf("spark.hados.expression.%s.enabled is false", x.Name)).about(x.Name)
		case o.ANSI && ansiSensitive[x.Name]:
			verdict = Unsupported(ReasonANSI, fmt.Sprintf("%s under spark.sql.ansi.enabled", x.Name)).about(x.Name)
		}
		return nil
	})
	if !verdict.OK {
		return nil, verdict
	}
	x, err := convert.ExprBound(e, in, c.binds)
	if err != nil {
		return nil, supportOf(err)
	}
	if err := compile(b, x, filter); err != nil {
		return nil, supportOf(err)
	}
	return x, Supported
}

// compile asks the device's pipeline compiler; a panic in it (a bug, or a
// tree it did not expect) is reported as an unsupported expression rather
// than taking the planner down.
func compile(b *pipeline.Builder, x *expr.Expr, filter bool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &pipeline.Unsupported{Code: pipeline.ReasonExpression, Msg: fmt.Sprintf("%s: the pipeline compiler failed: %v", clip(x.String()), p)}
		}
	}()
	if filter {
		return b.Filter(x)
	}
	_, err = b.Expr(x)
	return err
}

// ansiSensitive are the calls whose ANSI behaviour (errors on overflow,
// invalid casts, division by zero) the device does not reproduce.
var ansiSensitive = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "div": true, "pmod": true, "abs": true,
	"cast": true, "CheckOverflow": true, "MakeDecimal": true, "sum": true, "avg": true,
}

// scan checks a file scan. Its partition filters become the payload's
// Filter over the scan's output: Spark drops a predicate on partition
// columns from the Filter above the scan once it prunes partitions with
// it, so the executor must apply it (per file, from the values in its
// path). A dynamic pruning filter is left out: it only mirrors a join
// above that drops the same rows.
func (c *nodeCheck) scan() {
	s := c.n.Scan
	if s.Format != "parquet" {
		c.fail(Unsupported(ReasonOperator, "Scan "+s.Format+" (only parquet)"))
		return
	}
	c.payload = nil
	c.outputTypes(s.ReadSchema)
	in := convert.Schema(c.n.Output)
	b := c.builder(in)
	var cond *expr.Expr
	for _, f := range s.PartitionFilters {
		if isDynamicPruning(f) {
			continue
		}
		x := c.expr(f, in, b, true)
		if x == nil {
			return
		}
		if cond == nil {
			cond = x
		} else {
			cond = expr.Call(expr.OpAnd, types.BooleanType, cond, x)
		}
	}
	if cond != nil {
		c.payload = &Payload{Input: in, Filter: cond, Scalars: c.scalars}
	}
}

// isDynamicPruning reports a dynamicpruningexpression(…) partition filter.
func isDynamicPruning(e *plan.Expr) bool {
	return e != nil && e.Kind == plan.ExprCall && e.Name == "dynamicpruningexpression"
}

// outputTypes checks that the device holds every column of attrs.
func (c *nodeCheck) outputTypes(attrs []plan.Attr) {
	for _, a := range attrs {
		if !a.Type.IsKnown() {
			c.fail(Unsupported(ReasonDataType, fmt.Sprintf("the type of %s could not be inferred", a)).about("unknown"))
			return
		}
		if _, err := pipeline.VTypeOf(a.Type); err != nil {
			c.fail(Unsupported(ReasonDataType, fmt.Sprintf("%s: %s", a, err)).about(a.Type.String()))
			return
		}
	}
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:157] + "..."
	}
	return s
}
