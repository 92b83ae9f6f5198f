package planbuilder

import (
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// AggFn is an aggregate function call in a GROUP BY: sum, avg, min, max,
// count, count(distinct); Name is the column its final result is known
// by (the SQL alias).
type AggFn struct {
	Func     string
	Arg      *plan.Expr
	Distinct bool
	Name     string
}

// As names the aggregate's result.
func (a AggFn) As(name string) AggFn { a.Name = name; return a }

// Sum is sum(x).
func (b *Builder) Sum(x *plan.Expr) AggFn { return AggFn{Func: "sum", Arg: x, Name: "sum"} }

// Avg is avg(x).
func (b *Builder) Avg(x *plan.Expr) AggFn { return AggFn{Func: "avg", Arg: x, Name: "avg"} }

// Min is min(x).
func (b *Builder) Min(x *plan.Expr) AggFn { return AggFn{Func: "min", Arg: x, Name: "min"} }

// Max is max(x).
func (b *Builder) Max(x *plan.Expr) AggFn { return AggFn{Func: "max", Arg: x, Name: "max"} }

// Count is count(x).
func (b *Builder) Count(x *plan.Expr) AggFn { return AggFn{Func: "count", Arg: x, Name: "count"} }

// CountStar is count(*), which Spark prints as count(1).
func (b *Builder) CountStar() AggFn { return AggFn{Func: "count", Arg: b.Int(1), Name: "count"} }

// CountDistinct is count(distinct x).
func (b *Builder) CountDistinct(x *plan.Expr) AggFn {
	return AggFn{Func: "count", Arg: x, Distinct: true, Name: "count"}
}

// aggState remembers a partial aggregate for the final aggregate that
// merges it.
type aggState struct {
	keys []*plan.Expr
	fns  []AggFn
	args []*plan.Expr // bound arguments
}

var bufferNames = map[string][]string{"avg": {"sum", "count"}, "count": {"count"}, "min": {"min"}, "max": {"max"}}

func bufferAttrNames(fn string, arg types.DataType) []string {
	if fn == "sum" {
		if arg.Kind == types.Decimal {
			return []string{"sum", "isEmpty"}
		}
		return []string{"sum"}
	}
	return bufferNames[fn]
}

// aggCall is the printed call of fn in a mode: partial_sum(x), sum(x).
func aggCall(prefix string, fn AggFn, arg *plan.Expr) *plan.Expr {
	e := call(prefix+fn.Func, cloneExpr(arg))
	e.Distinct = fn.Distinct
	ty, _ := types.Aggregate(fn.Func, arg.Type)
	e.Type = ty
	return e
}

// PartialAgg is the map side of a GROUP BY: a HashAggregate computing the
// partial buffers of aggs per group of keys (columns of r). Follow it with
// an exchange and FinalAgg.
func (r *Rel) PartialAgg(keys []*plan.Expr, aggs ...AggFn) *Rel {
	b := r.b
	where := r.where(plan.OpHashAggregate) + " (partial)"
	st := &aggState{keys: b.bindAll(keys, r.n.Output, where), fns: aggs}
	info := &plan.AggInfo{Keys: st.keys}
	for _, k := range st.keys {
		if k.Kind != plan.ExprAttr {
			b.failf("%s: grouping key %s must be a column (project it first)", where, k)
		}
		info.Results = append(info.Results, cloneExpr(k))
	}
	for _, fn := range aggs {
		if fn.Arg == nil || bufferAttrNames(fn.Func, types.LongType) == nil {
			b.failf("%s: aggregate %q needs an argument and one of sum, avg, min, max, count", where, fn.Func)
			continue
		}
		arg := b.bind(fn.Arg, r.n.Output, where)
		st.args = append(st.args, arg)
		c := aggCall("partial_", fn, arg)
		info.Functions = append(info.Functions, plan.AggCall{Func: fn.Func, Mode: plan.AggPartial, Distinct: fn.Distinct, Type: c.Type, Expr: c})
		bufs, err := types.AggregateBuffer(fn.Func, arg.Type)
		if err != nil {
			b.failf("%s: %v", where, err)
		}
		names := bufferAttrNames(fn.Func, arg.Type)
		for i, ty := range bufs {
			if i < len(names) {
				info.AggAttrs = append(info.AggAttrs, b.newAttr(names[i], ty))
			}
		}
		for i, ty := range bufs {
			if i < len(names) {
				info.Results = append(info.Results, plan.AttrRef(b.newAttr(names[i], ty)))
			}
		}
	}
	n := r.unary(plan.OpHashAggregate, outputOf(b, info.Results, where))
	n.Agg = info
	b.aggs[n] = st
	return r.wrap(n)
}

// FinalAgg merges the partial aggregate below r (through its exchange, or
// through a ReusedExchange of it, whose attribute ids it then reads) into
// the final results. results are expressions over the grouping keys
// and the aggregates' names (AggFn.Name), each a column or an alias; a
// bare aggregate name becomes "agg AS name". With no results the output is
// the keys and then every aggregate under its name.
func (r *Rel) FinalAgg(results ...*plan.Expr) *Rel {
	b := r.b
	where := r.where(plan.OpHashAggregate) + " (final)"
	var st *aggState
	var reused map[int64]int64 // over a ReusedExchange: the original's attribute ids to the reuse's
	for n := r.n; n != nil && st == nil; {
		st = b.aggs[n]
		if orig, ok := b.reuses[n]; ok && n.Op == plan.OpReusedExchange {
			reused = map[int64]int64{}
			for i, a := range orig.Output {
				reused[a.ID] = n.Output[i].ID
			}
			n = orig
			continue
		}
		if len(n.Children) != 1 {
			break
		}
		n = n.Children[0]
	}
	if st == nil {
		b.failf("%s: no partial aggregate below", where)
		return r
	}
	if len(st.args) != len(st.fns) { // the partial aggregate failed
		return r
	}
	keys := cloneExprs(st.keys)
	for _, k := range keys {
		if id, ok := reused[k.ID]; ok {
			k.ID = id
		}
	}
	info := &plan.AggInfo{Keys: cloneExprs(keys)}
	var scope []plan.Attr
	realName := map[int64]string{}
	for _, k := range keys {
		scope = append(scope, plan.Attr{Name: k.Name, ID: k.ID, Type: k.Type})
	}
	for i, fn := range st.fns {
		c := aggCall("", fn, st.args[i])
		info.Functions = append(info.Functions, plan.AggCall{Func: fn.Func, Mode: plan.AggFinal, Distinct: fn.Distinct, Type: c.Type, Expr: c})
		// Spark names the result attribute by the printed call (without
		// "distinct").
		pc := cloneExpr(c)
		pc.Distinct = false
		a := b.newAttr(pc.String(), c.Type)
		info.AggAttrs = append(info.AggAttrs, a)
		realName[a.ID] = a.Name
		scope = append(scope, plan.Attr{Name: fn.Name, ID: a.ID, Type: a.Type})
	}
	if len(results) == 0 {
		for _, k := range keys {
			results = append(results, b.Col(k.Name))
		}
		for _, fn := range st.fns {
			results = append(results, b.Col(fn.Name))
		}
	}
	for _, res := range results {
		x := b.bind(res, scope, where)
		_ = x.Walk(func(e *plan.Expr) error {
			if name, ok := realName[e.ID]; ok && e.Kind == plan.ExprAttr {
				e.Name = name
			}
			return nil
		})
		if x.Kind == plan.ExprAttr {
			if _, ok := realName[x.ID]; ok && res.Kind == plan.ExprAttr {
				x = b.As(x, res.Name)
				x.Type = x.Args[0].Type
			}
		}
		info.Results = append(info.Results, x)
	}
	n := r.unary(plan.OpHashAggregate, outputOf(b, info.Results, where))
	n.Agg = info
	return r.wrap(n)
}

func cloneExprs(xs []*plan.Expr) []*plan.Expr {
	if len(xs) == 0 {
		return nil
	}
	out := make([]*plan.Expr, len(xs))
	for i, x := range xs {
		out[i] = cloneExpr(x)
	}
	return out
}

// Aggregate is a GROUP BY as Spark plans it: PartialAgg, an exchange
// (hashpartitioning by the keys, or SinglePartition without keys) and
// FinalAgg(results…).
func (r *Rel) Aggregate(keys []*plan.Expr, aggs []AggFn, results ...*plan.Expr) *Rel {
	p := r.PartialAgg(keys, aggs...)
	var ex *Rel
	if len(keys) == 0 {
		ex = p.SingleExchange()
	} else {
		ex = p.HashExchange(keys...)
	}
	return ex.FinalAgg(results...)
}
