package planbuilder

import (
	"fmt"
	"sort"

	"github.com/hados-io/hados/race/plan"
)

// Rel is a relation under construction: the operator built last, whose
// Output is the relation's columns. Methods add one operator on top and
// return the new relation; a Rel is never modified. Errors (an unknown
// column, an expression that cannot be typed) are recorded in the Builder
// and returned by Build.
type Rel struct {
	b *Builder
	n *plan.Node
}

// Build builds the plan whose root is r (Builder.Build).
func (r *Rel) Build(name string) (*plan.Plan, error) { return r.b.Build(name, r) }

// Node returns the relation's top operator (owned by the plan under
// construction: read it, do not modify it).
func (r *Rel) Node() *plan.Node { return r.n }

// Output returns the relation's columns.
func (r *Rel) Output() []plan.Attr { return r.n.Output }

// Col returns a resolved reference to r's column named name: use it where
// a bare Col would be ambiguous (self joins, a table joined twice).
func (r *Rel) Col(name string) *plan.Expr {
	for _, a := range r.n.Output {
		if a.Name == name {
			return plan.AttrRef(a)
		}
	}
	r.b.failf("(%s) has no column %q (columns: %s)", r.n.Op, name, attrNames(r.n.Output))
	return r.b.Col(name)
}

// codegen reports the operators Spark runs inside whole-stage codegen.
func codegen(op plan.Op) bool {
	switch op {
	case plan.OpScan, plan.OpExchange, plan.OpBroadcastExchange, plan.OpReusedExchange, plan.OpTakeOrderedAndProject:
		return false
	}
	return true
}

// unary adds an operator over r whose Input is r's output.
func (r *Rel) unary(op plan.Op, out []plan.Attr) *plan.Node {
	n := &plan.Node{Op: op, OpName: op.String(), Codegen: codegen(op), Children: []*plan.Node{r.n},
		Input: cloneAttrs(r.n.Output), Output: cloneAttrs(out)}
	return n
}

func (r *Rel) wrap(n *plan.Node) *Rel { return &Rel{b: r.b, n: n} }

func cloneAttrs(a []plan.Attr) []plan.Attr {
	if len(a) == 0 {
		return nil
	}
	return append([]plan.Attr(nil), a...)
}

func (r *Rel) where(op plan.Op) string { return fmt.Sprintf("%s over %s", op, r.n.Op) }

// Scan reads the named columns of table (in the table's column order, as
// Spark's column pruning orders them) and converts them to rows: a Scan
// parquet node under a ColumnarToRow node. A Filter placed directly on the
// returned relation pushes its translatable conjuncts into the scan's
// PushedFilters.
func (b *Builder) Scan(table string, cols ...string) *Rel {
	def, ok := b.tables[table]
	if !ok {
		b.failf("scan of unknown table %q", table)
	}
	want := map[string]bool{}
	for _, c := range cols {
		want[c] = true
	}
	var out []plan.Attr
	for _, c := range def {
		if want[c.Name] {
			out = append(out, b.newAttr(c.Name, c.Type))
			delete(want, c.Name)
		}
	}
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for c := range want {
			missing = append(missing, c)
		}
		sort.Strings(missing)
		b.failf("table %s has no column(s) %v", table, missing)
	}
	full := b.opts.Database + "." + table
	s := &plan.ScanInfo{Format: "parquet", Table: full, Batched: true,
		Location: "InMemoryFileIndex [" + table + "]"}
	for _, a := range out {
		s.ReadSchema = append(s.ReadSchema, a)
		s.RequiredColumns = append(s.RequiredColumns, a.Name)
	}
	scan := &plan.Node{Op: plan.OpScan, OpName: "Scan parquet", Header: full, Output: out, Scan: s}
	r := &Rel{b: b, n: scan}
	c2r := r.unary(plan.OpColumnarToRow, out)
	b.scanned[c2r] = scan
	return r.wrap(c2r)
}

// Filter keeps the rows where cond holds. Over a fresh Scan it also sets
// the scan's PushedFilters.
func (r *Rel) Filter(cond *plan.Expr) *Rel {
	if cond == nil {
		r.b.failf("Filter over %s without a condition", r.n.Op)
		return r
	}
	c := r.b.bind(cond, r.n.Output, r.where(plan.OpFilter))
	n := r.unary(plan.OpFilter, r.n.Output)
	n.Filter = &plan.FilterInfo{Condition: c}
	// Only a condition that bound and typed cleanly is translated (after
	// an error the build fails anyway).
	if scan := r.b.scanned[r.n]; scan != nil && r.b.err == nil {
		scan.Scan.PushedFilters = pushable(c)
	}
	return r.wrap(n)
}

// Project computes exprs: column references and aliases (As).
func (r *Rel) Project(exprs ...*plan.Expr) *Rel {
	list := r.b.bindAll(exprs, r.n.Output, r.where(plan.OpProject))
	n := r.unary(plan.OpProject, outputOf(r.b, list, "Project"))
	n.Project = &plan.ProjectInfo{List: list}
	return r.wrap(n)
}

// Keep projects the named columns.
func (r *Rel) Keep(names ...string) *Rel { return r.Project(r.b.Cols(names...)...) }

// outputOf returns the attributes a list of output expressions defines.
func outputOf(b *Builder, list []*plan.Expr, where string) []plan.Attr {
	out := make([]plan.Attr, 0, len(list))
	for _, x := range list {
		switch x.Kind {
		case plan.ExprAttr, plan.ExprAlias:
			out = append(out, plan.Attr{Name: x.Name, ID: x.ID, Type: x.Type, Nullable: true})
		default:
			b.failf("%s: output expression %s needs a name (use As)", where, x)
		}
	}
	return out
}

func (r *Rel) exchange(kind plan.PartitioningKind, exprs []*plan.Expr, parts int) *Rel {
	n := r.unary(plan.OpExchange, r.n.Output)
	n.Exchange = &plan.ExchangeInfo{Kind: kind, Exprs: exprs, NumPartitions: parts,
		ShuffleOrigin: "ENSURE_REQUIREMENTS"}
	return r.wrap(n)
}

// HashExchange shuffles by hashpartitioning(keys, Options.Partitions).
func (r *Rel) HashExchange(keys ...*plan.Expr) *Rel {
	return r.exchange(plan.PartHash, r.b.bindAll(keys, r.n.Output, r.where(plan.OpExchange)), r.b.opts.Partitions)
}

// SingleExchange gathers every row into one partition (SinglePartition).
func (r *Rel) SingleExchange() *Rel { return r.exchange(plan.PartSingle, nil, 1) }

// Sort sorts each partition (global false) or, after a range exchange,
// the whole relation (global true) by orders (Asc/Desc).
func (r *Rel) Sort(global bool, orders ...*plan.Expr) *Rel {
	n := r.unary(plan.OpSort, r.n.Output)
	n.Sort = &plan.SortInfo{Orders: r.b.bindAll(orders, r.n.Output, r.where(plan.OpSort)), Global: global}
	return r.wrap(n)
}

// OrderBy is ORDER BY without LIMIT as Spark plans it: an Exchange
// rangepartitioning(orders, Options.Partitions) and a global Sort.
func (r *Rel) OrderBy(orders ...*plan.Expr) *Rel {
	ex := r.exchange(plan.PartRange, r.b.bindAll(orders, r.n.Output, r.where(plan.OpExchange)), r.b.opts.Partitions)
	return ex.Sort(true, orders...)
}

// TakeOrdered is ORDER BY … LIMIT limit as Spark plans it: a
// TakeOrderedAndProject of the projection (all columns when empty).
func (r *Rel) TakeOrdered(limit int64, orders []*plan.Expr, projection ...*plan.Expr) *Rel {
	where := r.where(plan.OpTakeOrderedAndProject)
	if len(projection) == 0 {
		for _, a := range r.n.Output {
			projection = append(projection, plan.AttrRef(a))
		}
	}
	proj := r.b.bindAll(projection, r.n.Output, where)
	n := r.unary(plan.OpTakeOrderedAndProject, outputOf(r.b, proj, where))
	n.TakeOrdered = &plan.TakeOrderedInfo{Limit: limit, Orders: r.b.bindAll(orders, r.n.Output, where), Projection: proj}
	return r.wrap(n)
}

// Union concatenates r and others (Spark's UnionExec): every child has r's
// column count and types; the output keeps r's attributes (nullable when
// any child's column is).
func (r *Rel) Union(others ...*Rel) *Rel {
	out := cloneAttrs(r.n.Output)
	children := []*plan.Node{r.n}
	for i, o := range others {
		if len(o.n.Output) != len(out) {
			r.b.failf("Union child %d has %d columns, the first %d", i+1, len(o.n.Output), len(out))
			continue
		}
		for k, a := range o.n.Output {
			if a.Type != out[k].Type {
				r.b.failf("Union child %d column %d (%s) is %s, the first child's %s", i+1, k, a.Name, a.Type, out[k].Type)
			}
			out[k].Nullable = out[k].Nullable || a.Nullable
		}
		children = append(children, o.n)
	}
	return r.wrap(&plan.Node{Op: plan.OpUnion, OpName: plan.OpUnion.String(), Children: children, Output: out})
}
