package rules

import (
	"fmt"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/plan"
)

// Scalar subqueries. A scalar-subquery#N reference is a value computed by
// another plan (a block of the plan's Subqueries). Validation stands a
// typed null in for it, so the consuming operator is checked and compiled
// like any other; the executor runs the subquery first and Bind converts
// the consumer again with the value in place.

// scalarPlaceholders returns a typed null for every scalar subquery of p
// that has a plan (a block repeating an earlier one shares its id).
func scalarPlaceholders(p *plan.Plan) convert.Bindings {
	binds := convert.Bindings{}
	for _, sq := range p.Subqueries {
		if sq == nil || sq.Root == nil || !convert.IsScalarSubquery(sq.HostExpr) || !sq.HostExpr.Type.IsKnown() {
			continue
		}
		if len(sq.Root.Output) != 1 {
			continue // a scalar subquery returns one column; anything else stays unbound (falls back)
		}
		binds[sq.HostExpr.ID] = expr.Literal(nil, sq.HostExpr.Type)
	}
	return binds
}

// ScalarSubquery returns the converted tree computing scalar subquery id
// (the N of scalar-subquery#N) and its Spark block.
func (r *Result) ScalarSubquery(id int64) (*Node, *plan.Subquery, error) {
	for i, sq := range r.Plan.Subqueries {
		if sq != nil && sq.Root != nil && convert.IsScalarSubquery(sq.HostExpr) && sq.HostExpr.ID == id && i < len(r.Subqueries) {
			return r.Subqueries[i], sq, nil
		}
	}
	return nil, nil, fmt.Errorf("rules: %s: no plan for scalar-subquery#%d", r.Plan.Name, id)
}

// Bind converts n's expressions again with the values of the scalar
// subqueries it reads (Payload.Scalars), each a typed literal (a null
// literal for a subquery that returned no row). The result replaces
// n.Device for execution; n itself is not changed, so one Result can run
// many times with different values.
func (r *Result) Bind(n *Node, values convert.Bindings) (*Payload, error) {
	if n == nil || n.Spark == nil || n.Device == nil {
		return nil, fmt.Errorf("rules: bind: not a converted device operator")
	}
	for _, id := range n.Device.Scalars {
		if _, ok := values[id]; !ok {
			return nil, fmt.Errorf("rules: bind (%d) %s: no value for scalar-subquery#%d", n.Spark.ID, n.Spark.OpName, id)
		}
	}
	c := &nodeCheck{opts: &r.Options, n: n.Spark, first: Supported, binds: values}
	c.check()
	if !c.first.OK {
		return nil, fmt.Errorf("rules: bind (%d) %s: %s", n.Spark.ID, n.Spark.OpName, c.first)
	}
	if c.payload == nil {
		return nil, fmt.Errorf("rules: bind (%d) %s: no payload", n.Spark.ID, n.Spark.OpName)
	}
	c.payload.Reuses = n.Device.Reuses
	return c.payload, nil
}
