package convert

import (
	"slices"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/plan"
)

// arity bounds a call's argument count; max < 0 means unbounded.
type arity struct{ min, max int }

// fn is how one Catalyst function maps to the IR: its Op, its arity and
// how many of its leading arguments are kept (Spark prints extra
// arguments, such as CheckOverflow's target type, that the IR carries in
// the expression's Type instead).
type fn struct {
	op   expr.Op
	args arity
	keep int // 0: keep all
}

// funcs maps Spark's printed function names to the IR. A name missing
// here is an unsupported expression.
var funcs = map[string]fn{
	"=": {op: expr.OpEq, args: arity{2, 2}}, "!=": {op: expr.OpNe, args: arity{2, 2}},
	"<": {op: expr.OpLt, args: arity{2, 2}}, "<=": {op: expr.OpLe, args: arity{2, 2}},
	">": {op: expr.OpGt, args: arity{2, 2}}, ">=": {op: expr.OpGe, args: arity{2, 2}},
	"<=>": {op: expr.OpEqNullSafe, args: arity{2, 2}},
	"AND": {op: expr.OpAnd, args: arity{2, 2}}, "OR": {op: expr.OpOr, args: arity{2, 2}},
	"NOT":    {op: expr.OpNot, args: arity{1, 1}},
	"isnull": {op: expr.OpIsNull, args: arity{1, 1}}, "isnotnull": {op: expr.OpIsNotNull, args: arity{1, 1}},
	"IN":   {op: expr.OpIn, args: arity{2, -1}},
	"CASE": {op: expr.OpCaseWhen, args: arity{2, -1}}, "if": {op: expr.OpIf, args: arity{3, 3}},
	"coalesce": {op: expr.OpCoalesce, args: arity{1, -1}},
	"+":        {op: expr.OpAdd, args: arity{2, 2}}, "*": {op: expr.OpMul, args: arity{2, 2}},
	"/": {op: expr.OpDiv, args: arity{2, 2}}, "%": {op: expr.OpMod, args: arity{2, 2}},
	// "-" is OpSub with two arguments and OpNeg with one (see call).
	"-":                 {op: expr.OpSub, args: arity{1, 2}},
	"cast":              {op: expr.OpCast, args: arity{1, 1}},
	"CheckOverflow":     {op: expr.OpCheckOverflow, args: arity{1, 3}, keep: 1},
	"promote_precision": {op: expr.OpPromotePrecision, args: arity{1, 1}},
	"UnscaledValue":     {op: expr.OpUnscaledValue, args: arity{1, 1}},
	"MakeDecimal":       {op: expr.OpMakeDecimal, args: arity{1, 4}, keep: 1},
	"year":              {op: expr.OpYear, args: arity{1, 1}}, "month": {op: expr.OpMonth, args: arity{1, 1}},
	"dayofmonth": {op: expr.OpDayOfMonth, args: arity{1, 1}},
	"date_add":   {op: expr.OpDateAdd, args: arity{2, 2}}, "date_sub": {op: expr.OpDateSub, args: arity{2, 2}},
	"StartsWith": {op: expr.OpStartsWith, args: arity{2, 2}}, "EndsWith": {op: expr.OpEndsWith, args: arity{2, 2}},
	"Contains": {op: expr.OpContains, args: arity{2, 2}}, "LIKE": {op: expr.OpLike, args: arity{2, 2}},
	"substr": {op: expr.OpSubstring, args: arity{3, 3}}, "substring": {op: expr.OpSubstring, args: arity{3, 3}},
	"length": {op: expr.OpLength, args: arity{1, 1}}, "char_length": {op: expr.OpLength, args: arity{1, 1}},
}

// subqueryCalls are the subquery references of the plan IR.
var subqueryCalls = map[string]bool{
	"scalar-subquery": true, "reused-scalar-subquery": true, "dynamicpruning": true,
	"dynamicpruningexpression": true, "exists": true,
}

// Bindings are the values of scalar subqueries, by the subquery
// reference's expression id (the N of scalar-subquery#N): typed literals.
type Bindings map[int64]*expr.Expr

// IsScalarSubquery reports a scalar subquery reference
// (scalar-subquery#N or reused-scalar-subquery#N).
func IsScalarSubquery(e *plan.Expr) bool {
	return e != nil && e.Kind == plan.ExprCall && (e.Name == "scalar-subquery" || e.Name == "reused-scalar-subquery")
}

// ScalarSubqueries returns the expression ids of the scalar subquery
// references in e, in tree order, without repeats.
func ScalarSubqueries(e *plan.Expr, into []int64) []int64 {
	_ = e.Walk(func(x *plan.Expr) error {
		if IsScalarSubquery(x) && !slices.Contains(into, x.ID) {
			into = append(into, x.ID)
		}
		return nil
	})
	return into
}

// Supported reports whether a Spark function name has an IR operation.
func Supported(name string) bool {
	_, ok := funcs[name]
	return ok
}

// Functions lists the Spark function names that convert, for
// documentation and tests.
func Functions() []string {
	out := make([]string, 0, len(funcs))
	for k := range funcs {
		out = append(out, k)
	}
	return out
}
