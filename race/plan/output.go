package plan

// deriveOutputs fills Output for operators that do not print it, from
// their inputs and children, children first.
func deriveOutputs(n *Node) {
	if n == nil {
		return
	}
	for _, c := range n.Children {
		deriveOutputs(c)
	}
	if n.Output != nil {
		return
	}
	child := func(i int) []Attr {
		if i < len(n.Children) {
			return n.Children[i].Output
		}
		return nil
	}
	switch {
	case n.Project != nil:
		n.Output = exprAttrs(n.Project.List)
	case n.Agg != nil:
		n.Output = exprAttrs(n.Agg.Results)
	case n.TakeOrdered != nil:
		n.Output = exprAttrs(n.TakeOrdered.Projection)
	case n.Join != nil:
		out := append([]Attr(nil), child(0)...)
		switch n.Join.Type {
		case JoinLeftSemi, JoinLeftAnti:
		case JoinExistence:
			if n.Join.Exists != nil {
				out = append(out, *n.Join.Exists)
			}
		default:
			out = append(out, child(1)...)
		}
		n.Output = out
	case n.Window != nil:
		base := n.Input
		if base == nil {
			base = child(0)
		}
		n.Output = append(append([]Attr(nil), base...), exprAttrs(n.Window.Exprs)...)
	case n.Op == OpUnion:
		n.Output = append([]Attr(nil), child(0)...)
	case n.Input != nil:
		n.Output = append([]Attr(nil), n.Input...)
	default:
		n.Output = append([]Attr(nil), child(0)...)
	}
}

// exprAttrs returns the attributes a list of output expressions defines:
// attribute references as they are, aliases as their target.
func exprAttrs(xs []*Expr) []Attr {
	out := make([]Attr, 0, len(xs))
	for _, x := range xs {
		switch x.Kind {
		case ExprAttr, ExprAlias:
			out = append(out, Attr{Name: x.Name, ID: x.ID, Type: x.Type, Nullable: true})
		}
	}
	return out
}
