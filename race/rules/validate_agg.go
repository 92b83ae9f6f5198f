package rules

import (
	"fmt"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/pipeline"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/plan"
)

// aggFuncs are the aggregate functions operators.HashAggregate computes.
var aggFuncs = map[string]bool{"sum": true, "count": true, "avg": true, "min": true, "max": true, "first": true}

// aggregate checks a HashAggregate (or an Object/Sort aggregate, which the
// device runs as a hash aggregate): keys and update-mode arguments over the
// child's output, merge-mode buffers from the child's columns after the
// keys, result expressions over keys and aggregate attributes.
func (c *nodeCheck) aggregate() {
	a := c.n.Agg
	in := c.child(0)
	b := c.builder(in)
	pl := &Payload{Input: in}
	for _, k := range a.Keys {
		pl.Keys = append(pl.Keys, c.expr(k, in, b, false))
	}
	cursor := len(a.Keys) // merge buffers follow the keys in the child's output
	final := false
	for i, f := range a.Functions {
		call, mode, s := c.aggCall(f, in, b, &cursor)
		if i == 0 {
			pl.Mode = mode
		}
		text := f.Func
		if f.Expr != nil {
			text = f.Expr.String()
		}
		if !s.OK && s.Subject == "" {
			s.Subject = f.Func
		}
		c.exprs = append(c.exprs, ExprSupport{Expr: clip(text), Support: s})
		if !s.OK {
			c.fail(s)
			continue
		}
		if len(pl.Calls) > 0 && mode != pl.Mode {
			// one device aggregation updates rows or merges buffers, not both
			c.fail(Unsupported(ReasonAggregate, fmt.Sprintf("%s mixes update and merge modes (%s)", text, f.Mode)).about(f.Func))
			continue
		}
		pl.Calls = append(pl.Calls, call)
		final = final || f.Mode == plan.AggFinal || f.Mode == plan.AggComplete
	}
	if final || len(a.Functions) == 0 {
		pl.ResultInput = resultInput(a, in)
		rb := c.builder(pl.ResultInput)
		for _, r := range a.Results {
			pl.Results = append(pl.Results, c.expr(r, pl.ResultInput, rb, false))
		}
	}
	c.payload = pl
}

// resultInput is the schema result expressions read: the grouping keys,
// then the aggregate attributes.
func resultInput(a *plan.AggInfo, in convert.Schema) convert.Schema {
	var out convert.Schema
	for _, k := range a.Keys {
		if k.Kind == plan.ExprAttr || k.Kind == plan.ExprAlias {
			t := k.Type
			if i := in.Index(k.ID); i >= 0 && in[i].Type.IsKnown() {
				t = in[i].Type
			}
			out = append(out, plan.Attr{Name: k.Name, ID: k.ID, Type: t, Nullable: true})
		}
	}
	return append(out, a.AggAttrs...)
}

func (c *nodeCheck) aggCall(f plan.AggCall, in convert.Schema, b *pipeline.Builder, cursor *int) (operators.AggCall, operators.AggMode, Support) {
	mode := operators.AggUpdate
	if f.Mode == plan.AggPartialMerge || f.Mode == plan.AggFinal {
		mode = operators.AggMerge
	}
	call := operators.AggCall{Func: f.Func}
	switch {
	case !aggFuncs[f.Func]:
		return call, mode, Unsupported(ReasonAggregate, fmt.Sprintf("aggregate function %s has no device implementation", f.Func)).about(f.Func)
	case f.Distinct && f.Mode == plan.AggComplete:
		return call, mode, Unsupported(ReasonAggregate, f.Func+"(DISTINCT …) not rewritten by Spark into grouping")
	case c.opts.DisabledExpressions[f.Func]:
		return call, mode, Unsupported(ReasonConfig, fmt.Sprintf("spark.hados.expression.%s.enabled is false", f.Func))
	case c.opts.ANSI && ansiSensitive[f.Func]:
		return call, mode, Unsupported(ReasonANSI, f.Func+" under spark.sql.ansi.enabled")
	case f.Expr == nil:
		return call, mode, Unsupported(ReasonShape, "aggregate call without expression")
	}
	call.Input = types.LongType // count(*)
	if len(f.Expr.Args) > 0 {
		call.Input = f.Expr.Args[0].Type
	}
	if f.Func == "first" && len(f.Expr.Args) > 1 {
		if l := f.Expr.Args[1].Lit; l != nil && l.Bool {
			call.IgnoreNulls = true
		}
	}
	bt, err := call.BufferTypes()
	if err != nil {
		return call, mode, Unsupported(ReasonAggregate, err.Error())
	}
	for _, t := range bt {
		if _, err := pipeline.VTypeOf(t); err != nil {
			return call, mode, Unsupported(ReasonDataType, fmt.Sprintf("%s buffer: %s", f.Func, err))
		}
	}
	if mode == operators.AggMerge {
		if *cursor+len(bt) > len(in) {
			return call, mode, Unsupported(ReasonShape, fmt.Sprintf("%s: the input lacks its %d buffer columns", f.Expr, len(bt)))
		}
		for i := range bt {
			a := in[*cursor+i]
			call.Args = append(call.Args, expr.Column(*cursor+i, a.Name, a.Type))
		}
		*cursor += len(bt)
		return call, mode, Supported
	}
	args := f.Expr.Args
	if f.Func == "first" && len(args) > 1 {
		args = args[:1]
	}
	for _, arg := range args {
		x, s := c.checkExpr(arg, in, b, false)
		if !s.OK {
			return call, mode, s
		}
		call.Args = append(call.Args, x)
	}
	return call, mode, Supported
}
