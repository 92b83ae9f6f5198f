package plan

import "github.com/hados-io/hados/operators/types"

// Typing partition columns. A scan prints its partition columns in Output
// but not in ReadSchema, so they start untyped. Most are typed by the plan
// itself during the fixpoint (a join key against a dimension's key, the
// dynamic-pruning subquery that filters them). The fallbacks here run after
// it, for the scan columns still unknown, from the strongest evidence to
// the weakest:
//
//  1. the same column of the same table, typed at another scan of this plan;
//  2. the import's Catalog (learned from other plans, or given); a leaf
//     that names no table (EmptyRelation) by column name alone, when every
//     table the catalog has that name in agrees;
//  3. a literal the column is compared with in the scan's PartitionFilters
//     (p = 5, p IN (a, b), p >= 2000-01-01): the literal's natural type.
//     Spark prints the literal already cast to the column's type, so its
//     shape gives the family (integral, decimal, date, string) but an
//     integer that fits 32 bits reads as int even for a bigint column.

// unknownScanColumns calls fn for each output column still untyped of a
// scan, or of another leaf (EmptyRelation, LocalTableScan …).
func (t *typer) unknownScanColumns(fn func(n *Node, a Attr)) {
	_ = t.p.Walk(func(n *Node) error {
		if n.Scan == nil && len(n.Children) > 0 {
			return nil
		}
		for _, a := range n.Output {
			if !t.env[a.ID].IsKnown() {
				fn(n, a)
			}
		}
		return nil
	})
}

// ownCatalog is what the plan's scans say about their tables so far.
func (t *typer) ownCatalog() *Catalog {
	c := NewCatalog()
	scanColumns(t.p, func(_ *Node, a Attr) types.DataType { return t.env[a.ID] }, c.Add)
	return c
}

// fromCatalog types the unknown scan columns c knows.
func (t *typer) fromCatalog(c *Catalog) {
	if c == nil {
		return
	}
	t.unknownScanColumns(func(n *Node, a Attr) {
		var ty types.DataType
		var ok bool
		if n.Scan != nil {
			ty, ok = c.Lookup(n.Scan.Table, a.Name)
		} else {
			ty, ok = c.LookupColumn(a.Name)
		}
		if ok {
			t.set(a.ID, ty)
		}
	})
}

// fromPartitionLiterals types unknown columns compared with literals in
// their scan's PartitionFilters.
func (t *typer) fromPartitionLiterals() {
	t.unknownScanColumns(func(n *Node, a Attr) {
		if n.Scan == nil {
			return
		}
		var ty types.DataType
		for _, f := range n.Scan.PartitionFilters {
			_ = f.Walk(func(e *Expr) error {
				ty = widenKnown(ty, literalEvidence(e, a.ID))
				return nil
			})
		}
		t.set(a.ID, ty)
	})
}

// literalEvidence is the natural type of the literals e compares attribute
// id with ("id op literal", "literal op id", "id IN (literals)"), or
// Unknown.
func literalEvidence(e *Expr, id int64) types.DataType {
	if e.Kind != ExprCall || len(e.Args) < 2 {
		return types.Unknown
	}
	natural := func(x *Expr) types.DataType {
		if x.Kind != ExprLiteral || x.Raw == "null" {
			return types.Unknown
		}
		return newLiteral(x.Raw).Type
	}
	isCol := func(x *Expr) bool { return x.Kind == ExprAttr && x.ID == id }
	var ty types.DataType
	switch {
	case comparisonCalls[e.Name] && len(e.Args) == 2:
		if isCol(e.Args[0]) {
			ty = natural(e.Args[1])
		} else if isCol(e.Args[1]) {
			ty = natural(e.Args[0])
		}
	case e.Name == "IN" && isCol(e.Args[0]):
		for _, x := range e.Args[1:] {
			ty = widenKnown(ty, natural(x))
		}
	}
	return ty
}
