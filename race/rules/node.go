package rules

import (
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/plan"
)

// Node is one node of the converted tree. Kind says where it runs; Spark
// is the operator it stands for (nil for an inserted transition). Nodes
// are plain data owned by their Result: nothing to release.
type Node struct {
	Kind  Kind
	Spark *plan.Node
	// Support is validate's verdict on the operator and its expressions;
	// Exprs the verdict on each top-level expression.
	Support Support
	Exprs   []ExprSupport
	// Verdict is the final decision: Support, or the strategy's reason for
	// keeping a supported operator on the host.
	Verdict Support
	// Planned marks a device operator declared by capability only (not
	// executable today; see the capability table).
	Planned bool
	// Pipeline is the fused device pipeline the node belongs to (0: none).
	Pipeline int
	// Device is the converted payload of a device operator, for the
	// executor (nil for scans, unions and transitions).
	Device   *Payload
	Children []*Node
	// base are the children as in Spark's tree (what transitions rebuild
	// Children from).
	base []*Node
}

// ExprSupport is the verdict on one top-level expression of a node.
type ExprSupport struct {
	Expr    string  `json:"expr"`
	Support Support `json:"support"`
}

// Payload is a device operator's converted expressions, over the columns
// of its child's output (Input).
type Payload struct {
	Input convert.Schema
	// Filter is a filter's condition.
	Filter *expr.Expr
	// Project is a projection's list (aliases resolved: Names hold them).
	Project []*expr.Expr
	Names   []string
	// Aggregation: grouping keys, calls in operators' form and mode, and
	// for Final/Complete aggregations the result expressions over keys
	// then aggregate attributes (ResultInput).
	Keys        []*expr.Expr
	Calls       []operators.AggCall
	Mode        operators.AggMode
	Results     []*expr.Expr
	ResultInput convert.Schema

	// Orders are a Sort's, a TopN's or a range exchange's sort keys; Global
	// marks a Sort of the whole output (its input is range partitioned).
	Orders []SortKey
	Global bool
	// Limit and Offset are a limit's or a TopN's (TopN's projection is
	// Project/Names, nil for the child's columns).
	Limit, Offset int64
	// Join is a hash join's (any of Spark's three equi-join operators).
	Join *JoinPayload
	// Partitioning is an exchange's.
	Partitioning *Partitioning
	// Reuses is the exchange a ReusedExchange reads again (a DpuExchange
	// or DpuBroadcastExchange of the same Result).
	Reuses *Node
	// Scalars are the expression ids of the scalar subqueries the node's
	// expressions read. Until bound (Result.Bind), the payload holds a
	// typed null in their place: it validates, it does not run.
	Scalars []int64
}

// Name prints the node the way explain does: "DpuFilter", or the Spark
// operator's own name on the host.
func (n *Node) Name() string {
	switch {
	case n.Kind == KindHost && n.Spark != nil:
		return n.Spark.OpName
	case n.Kind == DpuScan && n.Spark != nil && n.Spark.Scan != nil:
		return "DpuScan " + n.Spark.Scan.Format
	}
	return n.Kind.String()
}

// Output is the attributes the node produces.
func (n *Node) Output() []plan.Attr {
	if n.Spark != nil {
		return n.Spark.Output
	}
	if len(n.Children) == 1 {
		return n.Children[0].Output()
	}
	return nil
}

// counted reports whether the node is a Spark operator that counts as
// offloaded or fallen back (not plumbing, not an inserted transition, not
// a leaf of no rows read as an empty input: it runs nowhere).
func (n *Node) counted() bool {
	return n.Spark != nil && !IsPlumbing(n.Spark.Op) && !n.IsEmptyInput()
}

// walk visits the tree parents first.
func (n *Node) walk(fn func(*Node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.Children {
		c.walk(fn)
	}
}
