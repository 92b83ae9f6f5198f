package planbuilder_test

import (
	"fmt"

	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/planbuilder"
)

// A TPC-H Q6-like plan: scan with pushed filters, project, and Spark's
// partial/final aggregate around a single-partition exchange.
func Example() {
	b := planbuilder.New()
	c := b.Col
	q := b.Scan("lineitem", "l_quantity", "l_extendedprice", "l_discount").
		Filter(b.And(b.IsNotNull(c("l_quantity")), b.Lt(c("l_quantity"), b.Int(24)))).
		Keep("l_extendedprice", "l_discount").
		Aggregate(nil, []planbuilder.AggFn{b.Sum(b.Mul(c("l_extendedprice"), c("l_discount"))).As("revenue")})
	p, err := b.Build("example", q)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = p.Walk(func(n *plan.Node) error {
		fmt.Printf("(%d) %s %v\n", n.ID, n.Op, n.Output)
		n.Exprs(func(e *plan.Expr) { fmt.Printf("    %s : %s\n", e, e.Type) })
		return nil
	})
	// Output:
	// (7) HashAggregate [revenue#9]
	//     sum((l_extendedprice#2 * l_discount#3)) : decimal(38,4)
	//     sum((l_extendedprice#2 * l_discount#3))#8 AS revenue#9 : decimal(38,4)
	// (6) Exchange [sum#6 isEmpty#7]
	// (5) HashAggregate [sum#6 isEmpty#7]
	//     partial_sum((l_extendedprice#2 * l_discount#3)) : decimal(38,4)
	//     sum#6 : decimal(38,4)
	//     isEmpty#7 : boolean
	// (4) Project [l_extendedprice#2 l_discount#3]
	//     l_extendedprice#2 : decimal(15,2)
	//     l_discount#3 : decimal(15,2)
	// (3) Filter [l_quantity#1 l_extendedprice#2 l_discount#3]
	//     (isnotnull(l_quantity#1) AND (l_quantity#1 < 24.00)) : boolean
	// (2) ColumnarToRow [l_quantity#1 l_extendedprice#2 l_discount#3]
	// (1) Scan [l_quantity#1 l_extendedprice#2 l_discount#3]
	//     IsNotNull(l_quantity) : boolean
	//     LessThan(l_quantity,24.00) : boolean
}
