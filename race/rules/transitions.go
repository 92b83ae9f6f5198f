package rules

import "github.com/hados-io/hados/race/plan"

// transitions places the host↔device boundaries: Spark's ColumnarToRow
// above a device node goes (the device node's parent reads device columns,
// or gets our own ColumnarToRow), then a ColumnarToRow goes wherever a
// device node feeds the host and a RowToColumnar wherever the host feeds
// a device node. It rebuilds every node's children from the Spark tree's
// shape, so it can run again after the strategy reverts nodes.
func transitions(r *Result) error {
	r.Root = place(r.base, false)
	for i, s := range r.subBase {
		r.Subqueries[i] = place(s, false)
	}
	return nil
}

// place rebuilds the subtree n from the Spark tree's shape (Node.base);
// parentDevice says whether n's parent reads device columns. It returns
// the subtree's new root.
func place(n *Node, parentDevice bool) *Node {
	if n == nil {
		return nil
	}
	if isSparkC2R(n) && len(n.base) == 1 && n.base[0].Kind.OnDevice() {
		// Spark's ColumnarToRow above a device node: redundant (a host
		// parent gets our own ColumnarToRow below).
		return place(n.base[0], parentDevice)
	}
	dev := n.Kind.OnDevice()
	n.Children = n.Children[:0]
	for _, c := range n.base {
		n.Children = append(n.Children, place(c, dev))
	}
	switch {
	case dev && !parentDevice:
		return &Node{Kind: ColumnarToRow, Verdict: Supported, Support: Supported, Children: []*Node{n}}
	case !dev && parentDevice:
		return &Node{Kind: RowToColumnar, Verdict: Supported, Support: Supported, Children: []*Node{n}}
	}
	return n
}

func isSparkC2R(n *Node) bool {
	return n.Kind == KindHost && n.Spark != nil && n.Spark.Op == plan.OpColumnarToRow
}
