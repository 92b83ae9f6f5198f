package plan

import "github.com/hados-io/hados/operators/types"

// maxTypingPasses bounds the fixpoint iteration of inferTypes. Types flow
// forward through each tree in one pass; further passes carry them across
// ReusedExchange, subqueries and join keys.
const maxTypingPasses = 8

// typer infers attribute and expression types over a whole plan.
type typer struct {
	p       *Plan
	env     map[int64]types.DataType
	nodes   map[int]*Node
	scalar  map[int64]types.DataType            // scalar-subquery id → result type
	pruning map[int64]types.DataType            // dynamicpruning id → key type
	names   map[int64]string                    // attribute id → name
	structs map[int64]map[string]types.DataType // struct attribute id → field types
	fields  map[int64]map[string]types.DataType // scalar-subquery id → its struct's field types
	byName  map[string]types.DataType
	changed bool
}

// nameTypes maps each attribute name to its type when all typed
// attributes of that name agree.
func (t *typer) nameTypes() {
	t.byName = map[string]types.DataType{}
	conflict := map[string]bool{}
	for id, ty := range t.env {
		name, ok := t.names[id]
		if !ok || conflict[name] {
			continue
		}
		if old, seen := t.byName[name]; seen && old != ty {
			conflict[name] = true
			delete(t.byName, name)
			continue
		}
		t.byName[name] = ty
	}
}

// inferTypes types every attribute and expression of p from the scans'
// ReadSchema and Spark's typing rules, leaving types.Unknown where nothing
// is known.
func inferTypes(p *Plan, cat *Catalog) {
	t := &typer{p: p, env: map[int64]types.DataType{}, nodes: map[int]*Node{},
		scalar: map[int64]types.DataType{}, pruning: map[int64]types.DataType{},
		structs: map[int64]map[string]types.DataType{}, fields: map[int64]map[string]types.DataType{}}
	deriveOutputs(p.Root)
	for _, s := range p.Subqueries {
		deriveOutputs(s.Root)
	}
	t.names = map[int64]string{}
	_ = p.Walk(func(n *Node) error {
		if _, ok := t.nodes[n.ID]; !ok {
			t.nodes[n.ID] = n
		}
		for _, a := range n.Output {
			t.names[a.ID] = a.Name
		}
		for _, a := range n.Input {
			t.names[a.ID] = a.Name
		}
		return nil
	})
	t.fixpoint()
	// Scan columns nothing above typed (partition columns outside
	// ReadSchema) by weaker evidence, strongest first, each followed by
	// the fixpoint to carry the new types through the plan.
	for _, fallback := range []func(){
		func() { t.fromCatalog(t.ownCatalog()) },
		func() { t.fromCatalog(cat) },
		t.fromPartitionLiterals,
	} {
		t.changed = false
		if fallback(); t.changed {
			t.fixpoint()
		}
	}
	// Stamp the final types on every attribute list.
	_ = p.Walk(func(n *Node) error {
		t.stamp(n.Output)
		t.stamp(n.Input)
		if n.Agg != nil {
			t.stamp(n.Agg.AggAttrs)
		}
		return nil
	})
}

// fixpoint runs typing passes until nothing changes.
func (t *typer) fixpoint() {
	for pass := 0; pass < maxTypingPasses; pass++ {
		t.changed = false
		t.nameTypes()
		for _, s := range t.p.Subqueries {
			t.tree(s.Root)
		}
		t.tree(t.p.Root)
		t.subqueries()
		if !t.changed {
			break
		}
	}
}

func (t *typer) stamp(attrs []Attr) {
	for i := range attrs {
		if ty, ok := t.env[attrs[i].ID]; ok {
			attrs[i].Type = ty
		}
	}
}

func (t *typer) set(id int64, ty types.DataType) {
	if !ty.IsKnown() {
		return
	}
	if old := t.env[id]; old != ty {
		t.env[id] = ty
		t.changed = true
	}
}

func (t *typer) tree(n *Node) {
	if n == nil {
		return
	}
	for _, c := range n.Children {
		t.tree(c)
	}
	t.node(n)
}

func (t *typer) node(n *Node) {
	if s := n.Scan; s != nil {
		for _, o := range n.Output {
			for _, f := range s.ReadSchema {
				if f.Name == o.Name {
					t.set(o.ID, f.Type)
				}
			}
		}
	}
	if j := n.Join; j != nil {
		if j.Exists != nil {
			t.set(j.Exists.ID, types.BooleanType)
		}
		for i := 0; i < len(j.LeftKeys) && i < len(j.RightKeys); i++ {
			l, r := j.LeftKeys[i], j.RightKeys[i]
			lt, rt := t.expr(l), t.expr(r)
			if l.Kind == ExprAttr && !lt.IsKnown() {
				t.set(l.ID, rt)
			}
			if r.Kind == ExprAttr && !rt.IsKnown() {
				t.set(r.ID, lt)
			}
		}
	}
	if a := n.Agg; a != nil {
		t.aggregate(a)
	}
	n.Exprs(func(e *Expr) { t.expr(e) })
	if r := n.Reused; r != nil {
		if target := t.reuseTarget(n); target != nil {
			t.positional(n.Output, target.Output)
		}
	}
	if n.Op == OpUnion {
		for _, c := range n.Children[min(1, len(n.Children)):] {
			t.positional(n.Output, c.Output)
		}
	}
	if e := n.Expand; e != nil {
		for i, o := range n.Output {
			var ty types.DataType
			for _, row := range e.Projections {
				if i < len(row) {
					ty = widenKnown(ty, row[i].Type)
				}
			}
			if !t.env[o.ID].IsKnown() {
				t.set(o.ID, ty)
			}
		}
	}
	// Pass-through operators: inputs typed by position from the child.
	if len(n.Children) == 1 && len(n.Input) == len(n.Children[0].Output) {
		t.positional(n.Input, n.Children[0].Output)
	}
}

// reuseTarget is the exchange a ReusedExchange reuses: the printed
// operator id, or for "[Reuses operator id: unknown]" an exchange whose
// output has the same column names.
func (t *typer) reuseTarget(n *Node) *Node {
	if n.Reused.ReusesID != 0 {
		return t.nodes[n.Reused.ReusesID]
	}
	var found *Node
	_ = t.p.Walk(func(c *Node) error {
		if found != nil || (c.Op != OpExchange && c.Op != OpBroadcastExchange) || len(c.Output) != len(n.Output) {
			return nil
		}
		for i := range c.Output {
			if c.Output[i].Name != n.Output[i].Name {
				return nil
			}
		}
		found = c
		return nil
	})
	return found
}

// positional types attributes of dst left unknown from src by position.
func (t *typer) positional(dst, src []Attr) {
	for i := 0; i < len(dst) && i < len(src); i++ {
		if !t.env[dst[i].ID].IsKnown() {
			t.set(dst[i].ID, t.env[src[i].ID])
		}
	}
}

func widenKnown(a, b types.DataType) types.DataType {
	switch {
	case !a.IsKnown():
		return b
	case !b.IsKnown():
		return a
	}
	if w, ok := types.Widen(a, b); ok {
		return w
	}
	return a
}

// aggregate types an aggregate's buffer and result attributes. Partial
// and merge modes emit buffers: their Results end with one attribute per
// buffer slot (sum and isEmpty for a decimal sum, sum and count for avg …).
// Their Aggregate Attributes list either those buffers (newer Spark) or one
// result per function (older Spark); both forms are recognised by count.
func (t *typer) aggregate(a *AggInfo) {
	for _, k := range a.Keys {
		t.expr(k)
	}
	var bufs, results []types.DataType
	buffered := false
	for i := range a.Functions {
		c := &a.Functions[i]
		ty := t.expr(c.Expr)
		c.Type = ty
		results = append(results, ty)
		var argType types.DataType
		args := c.Expr.Args
		if len(args) > 0 {
			argType = args[0].Type
		}
		switch c.Mode {
		case AggPartial, AggPartialMerge:
			buffered = true
			b, err := types.AggregateBuffer(c.Func, argType)
			if err != nil || (len(args) > 0 && !argType.IsKnown() && c.Func != "count") {
				b = make([]types.DataType, bufferWidth(c.Func, argType))
			}
			bufs = append(bufs, b...)
		default:
			bufs = append(bufs, ty)
		}
	}
	attrTypes := results
	if buffered && len(a.AggAttrs) == len(bufs) {
		attrTypes = bufs
	}
	if len(a.AggAttrs) == len(attrTypes) {
		for i, at := range a.AggAttrs {
			t.set(at.ID, attrTypes[i])
		}
	}
	for _, r := range a.Results {
		t.expr(r)
	}
	// A partial aggregate's results are its keys then its buffers.
	if buffered {
		off := len(a.Results) - len(bufs)
		for i, b := range bufs {
			if j := off + i; j >= 0 && a.Results[j].Kind == ExprAttr && !t.env[a.Results[j].ID].IsKnown() {
				t.set(a.Results[j].ID, b)
			}
		}
	}
}

// bufferWidth is the number of buffer attributes of fn, for placeholders.
func bufferWidth(fn string, arg types.DataType) int {
	switch fn {
	case "avg", "first", "last":
		return 2
	case "sum":
		if arg.Kind == types.Decimal || !arg.IsKnown() {
			return 2
		}
		return 1
	case "stddev_samp", "stddev_pop", "stddev", "variance", "var_samp", "var_pop":
		return 3
	}
	return 1
}

func (t *typer) subqueries() {
	var last types.DataType
	for _, s := range t.p.Subqueries {
		h := s.HostExpr
		if h == nil || h.Kind != ExprCall {
			continue
		}
		if s.Root != nil && len(s.Root.Output) > 0 {
			last = t.env[s.Root.Output[0].ID]
		} else {
			last = types.Unknown
		}
		switch h.Name {
		case "scalar-subquery":
			if last.IsKnown() {
				t.scalar[h.ID] = last
			}
			if s.Root != nil && len(s.Root.Output) > 0 {
				if f, ok := t.structs[s.Root.Output[0].ID]; ok {
					t.fields[h.ID] = f
				}
			}
		case "dynamicpruning":
			if last.IsKnown() {
				t.pruning[h.ID] = last
			}
		}
		t.expr(h)
	}
}

// expr types e and its descendants, returning e's type.
func (t *typer) expr(e *Expr) types.DataType {
	if e == nil {
		return types.Unknown
	}
	switch e.Kind {
	case ExprAttr:
		if ty, ok := t.env[e.ID]; ok {
			e.Type = ty
		} else if ty, ok := t.byName[e.Name]; ok {
			// An id printed nowhere else: type it as the column of that name.
			e.Type = ty
		}
	case ExprAlias:
		if len(e.Args) == 1 {
			e.Type = t.expr(e.Args[0])
			t.set(e.ID, e.Type)
			if c := e.Args[0]; c.Kind == ExprCall && c.Name == "named_struct" {
				t.structs[e.ID] = structFields(c)
			}
		}
	case ExprSortOrder:
		if len(e.Args) == 1 {
			e.Type = t.expr(e.Args[0])
		}
	case ExprCall:
		for _, a := range e.Args {
			t.expr(a)
		}
		if ty := t.call(e); ty.IsKnown() || e.Name != "cast" {
			e.Type = ty
		}
	}
	return e.Type
}
