package plan

// Version is the version of the plan IR and of its JSON form.
const Version = 1

// Plan is an imported physical plan. It is plain data: nothing to release.
type Plan struct {
	Version int `json:"version"`
	// Name names the plan's source (a file name), used in messages.
	Name       string      `json:"name,omitempty"`
	Root       *Node       `json:"root,omitempty"`
	Subqueries []*Subquery `json:"subqueries,omitempty"`
}

// Subquery is one block of the "===== Subqueries =====" section.
type Subquery struct {
	// ID is the N of "Subquery:N".
	ID int `json:"id"`
	// HostID is the id of the operator hosting the subquery expression.
	HostID int `json:"hostId,omitempty"`
	// HostExpr is the hosting expression (x IN dynamicpruning#N, Subquery
	// scalar-subquery#N …).
	HostExpr *Expr `json:"hostExpr,omitempty"`
	// Kind, ExprID and PlanID are read from HostExpr: the kind of
	// subquery, the expression id the plan's expressions carry
	// (Expr.ID of the "scalar-subquery", "reused-scalar-subquery" and
	// "dynamicpruning" calls) and Spark's printed [id=#M] (scalar
	// subqueries only). Kind is "" for a hosting expression the importer
	// does not recognise.
	Kind   SubqueryKind `json:"kind,omitempty"`
	ExprID int64        `json:"exprId,omitempty"`
	PlanID int64        `json:"planId,omitempty"`
	// Root is the subquery's plan; nil when the block repeats a subquery
	// already printed (a ReusedSubquery, or a dynamic-pruning subquery
	// shared by several scans).
	Root *Node `json:"root,omitempty"`
	// Reuses is, when Root is nil, the ID of the block of the same Kind and
	// ExprID that prints the plan (0 when Root is set or no block does).
	// Plan.SubqueryFor follows it.
	Reuses int `json:"reuses,omitempty"`
	Line   int `json:"line,omitempty"`
}

// Walk calls fn on every node of the main plan and then of each subquery
// plan, parents before children; it stops at fn's first error.
func (p *Plan) Walk(fn func(*Node) error) error {
	if err := walkNode(p.Root, fn); err != nil {
		return err
	}
	for _, s := range p.Subqueries {
		if err := walkNode(s.Root, fn); err != nil {
			return err
		}
	}
	return nil
}

func walkNode(n *Node, fn func(*Node) error) error {
	if n == nil {
		return nil
	}
	if err := fn(n); err != nil {
		return err
	}
	for _, c := range n.Children {
		if err := walkNode(c, fn); err != nil {
			return err
		}
	}
	return nil
}

// Node returns the node with operator id id, searching the main plan and
// the subqueries, or nil.
func (p *Plan) Node(id int) *Node {
	var found *Node
	_ = p.Walk(func(n *Node) error {
		if n.ID == id && found == nil {
			found = n
		}
		return nil
	})
	return found
}

// Exprs calls fn on every top-level expression of n's payload.
func (n *Node) Exprs(fn func(*Expr)) {
	each := func(xs []*Expr) {
		for _, x := range xs {
			if x != nil {
				fn(x)
			}
		}
	}
	one := func(x *Expr) {
		if x != nil {
			fn(x)
		}
	}
	if s := n.Scan; s != nil {
		each(s.PushedFilters)
		each(s.PartitionFilters)
		each(s.DataFilters)
	}
	if f := n.Filter; f != nil {
		one(f.Condition)
	}
	if p := n.Project; p != nil {
		each(p.List)
	}
	if a := n.Agg; a != nil {
		each(a.Keys)
		for _, c := range a.Functions {
			one(c.Expr)
		}
		each(a.Results)
	}
	if j := n.Join; j != nil {
		each(j.LeftKeys)
		each(j.RightKeys)
		one(j.Condition)
	}
	if s := n.Sort; s != nil {
		each(s.Orders)
	}
	if t := n.TakeOrdered; t != nil {
		each(t.Orders)
		each(t.Projection)
	}
	if e := n.Exchange; e != nil {
		each(e.Exprs)
	}
	if e := n.Expand; e != nil {
		for _, p := range e.Projections {
			each(p)
		}
	}
	if w := n.Window; w != nil {
		each(w.Exprs)
		each(w.PartitionBy)
		each(w.OrderBy)
	}
}
