package planbuilder

import (
	"sort"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

var boolType = types.BooleanType

// pushable translates the conjuncts of a filter condition into Spark's
// data-source filters (org.apache.spark.sql.sources: IsNotNull, EqualTo,
// LessThan, …, In, StringStartsWith, Not, Or, And), in order, dropping the
// conjuncts Spark cannot push (column-to-column comparisons, functions of
// columns, scalar subqueries).
func pushable(cond *plan.Expr) []*plan.Expr {
	var out []*plan.Expr
	for _, c := range conjuncts(cond) {
		if f := sourceFilter(c); f != nil {
			out = append(out, f)
		}
	}
	return out
}

func conjuncts(e *plan.Expr) []*plan.Expr {
	if e == nil {
		return nil
	}
	if e.Kind == plan.ExprCall && e.Name == "AND" && len(e.Args) == 2 {
		return append(conjuncts(e.Args[0]), conjuncts(e.Args[1])...)
	}
	return []*plan.Expr{e}
}

var sourceComparisons = map[string][2]string{ // op → source filter, and the one for flipped operands
	"=":  {"EqualTo", "EqualTo"},
	"<":  {"LessThan", "GreaterThan"},
	"<=": {"LessThanOrEqual", "GreaterThanOrEqual"},
	">":  {"GreaterThan", "LessThan"},
	">=": {"GreaterThanOrEqual", "LessThanOrEqual"},
}

var sourceStrings = map[string]string{"StartsWith": "StringStartsWith", "EndsWith": "StringEndsWith", "Contains": "StringContains"}

func isCol(e *plan.Expr) bool { return e.Kind == plan.ExprAttr }
func isLit(e *plan.Expr) bool { return e.Kind == plan.ExprLiteral }

func sourceCall(name string, args ...*plan.Expr) *plan.Expr {
	e := call(name, args...)
	e.Type = boolType
	return e
}

func sourceFilter(e *plan.Expr) *plan.Expr {
	if e.Kind != plan.ExprCall {
		return nil
	}
	a := e.Args
	switch e.Name {
	case "isnotnull":
		if isCol(a[0]) {
			return sourceCall("IsNotNull", cloneExpr(a[0]))
		}
	case "NOT":
		if f := sourceFilter(a[0]); f != nil {
			return sourceCall("Not", f)
		}
	case "AND", "OR":
		l, r := sourceFilter(a[0]), sourceFilter(a[1])
		if l != nil && r != nil {
			return sourceCall(map[string]string{"AND": "And", "OR": "Or"}[e.Name], l, r)
		}
	case "IN":
		if !isCol(a[0]) {
			return nil
		}
		vals := make([]*plan.Expr, 0, len(a)-1)
		for _, v := range a[1:] {
			if !isLit(v) {
				return nil
			}
			vals = append(vals, cloneExpr(v))
		}
		for _, v := range vals {
			_ = v.Walk(setLiteralRaw)
		}
		// Spark prints the pushed In's values sorted by their text.
		sort.SliceStable(vals, func(i, j int) bool { return vals[i].Raw < vals[j].Raw })
		list := call("list", vals...)
		list.Type = a[0].Type
		return sourceCall("In", cloneExpr(a[0]), list)
	default:
		if ops, ok := sourceComparisons[e.Name]; ok {
			switch {
			case isCol(a[0]) && isLit(a[1]):
				return sourceCall(ops[0], cloneExpr(a[0]), cloneExpr(a[1]))
			case isLit(a[0]) && isCol(a[1]):
				return sourceCall(ops[1], cloneExpr(a[1]), cloneExpr(a[0]))
			}
		}
		if name, ok := sourceStrings[e.Name]; ok && isCol(a[0]) && isLit(a[1]) {
			return sourceCall(name, cloneExpr(a[0]), cloneExpr(a[1]))
		}
	}
	return nil
}
