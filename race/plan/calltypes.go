package plan

import (
	"strings"

	"github.com/hados-io/hados/operators/types"
)

// The types of calls: which functions are predicates, which keep their
// argument's type, and Spark's rules for arithmetic, CASE and rounding.

var booleanCalls = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "isnull": true, "isnotnull": true, "LIKE": true,
	"StartsWith": true, "EndsWith": true, "Contains": true, "dynamicpruningexpression": true,
	"exists": true, "might_contain": true, "IsNull": true, "IsNotNull": true, "And": true, "Or": true,
	"Not": true, "AlwaysTrue": true, "AlwaysFalse": true,
}

var comparisonCalls = map[string]bool{
	"=": true, "<=>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
	"EqualTo": true, "EqualNullSafe": true, "GreaterThan": true, "GreaterThanOrEqual": true,
	"LessThan": true, "LessThanOrEqual": true, "StringStartsWith": true, "StringEndsWith": true,
	"StringContains": true,
}

var stringCalls = map[string]bool{
	"substr": true, "substring": true, "upper": true, "lower": true, "concat": true, "trim": true,
	"ltrim": true, "rtrim": true, "concat_ws": true, "lpad": true, "rpad": true, "replace": true,
}

// call returns the type of a call, coercing untyped literal operands to
// their context on the way.
func (t *typer) call(e *Expr) types.DataType {
	args := e.Args
	arg := func(i int) types.DataType {
		if i < len(args) {
			return args[i].Type
		}
		return types.Unknown
	}
	name := e.Name
	switch {
	case comparisonCalls[name]:
		if len(args) == 2 {
			coerceLiteral(args[1], args[0].Type)
			coerceLiteral(args[0], args[1].Type)
		}
		return types.BooleanType
	case name == "IN" || name == "In":
		for _, a := range args[min(1, len(args)):] {
			if a.Kind == ExprCall && a.Name == "list" {
				for _, x := range a.Args {
					coerceLiteral(x, arg(0))
				}
			}
			coerceLiteral(a, arg(0))
		}
		return types.BooleanType
	case name == "dynamicpruning":
		if len(args) == 1 && args[0].Kind == ExprAttr && !args[0].Type.IsKnown() {
			t.set(args[0].ID, t.pruning[e.ID])
		}
		return types.BooleanType
	case booleanCalls[name]:
		return types.BooleanType
	case name == "-" && len(args) == 1, name == "abs", name == "promote_precision",
		name == "|", name == "&", name == "^", name == "shiftleft", name == "shiftright", name == "window":
		return arg(0)
	case name == "+" || name == "-" || name == "*" || name == "/" || name == "%" || name == "div" || name == "pmod":
		return arithmetic(name, args)
	case name == "cast":
		return e.Type
	case name == "CheckOverflow":
		if ty, err := types.CheckOverflow(arg(1)); err == nil {
			return ty
		}
	case name == "MakeDecimal":
		if len(args) >= 3 && args[1].Lit != nil && args[2].Lit != nil {
			if ty, err := types.MakeDecimal(int(args[1].Lit.Int), int(args[2].Lit.Int)); err == nil {
				return ty
			}
		}
	case name == "UnscaledValue":
		return types.LongType
	case name == "CASE":
		var vals []*Expr
		for i := 1; i < len(args); i += 2 {
			vals = append(vals, args[i])
		}
		if len(args)%2 == 1 {
			vals = append(vals, args[len(args)-1])
		}
		return unify(vals)
	case name == "coalesce" || name == "nvl" || name == "ifnull" || name == "greatest" || name == "least":
		return unify(args)
	case name == "if" && len(args) == 3:
		return unify(args[1:])
	case stringCalls[name]:
		return types.StringType
	case name == "year" || name == "month" || name == "dayofmonth" || name == "quarter" || name == "dayofweek" || name == "rank" || name == "dense_rank" || name == "row_number" || name == "ntile":
		return types.IntType
	case name == "date_add" || name == "date_sub":
		return types.DateType
	case name == "round" || name == "bround":
		return roundType(args)
	case name == "named_struct":
		return structType(e)
	case name == "field" && len(args) == 1 && e.Lit != nil:
		return t.fields[args[0].ID][e.Lit.Str]
	case name == "scalar-subquery" || name == "reused-scalar-subquery":
		return t.scalar[e.ID]
	default:
		fn := strings.TrimPrefix(strings.TrimPrefix(name, "partial_"), "merge_")
		if ty, err := types.Aggregate(fn, arg(0)); err == nil {
			return ty
		}
	}
	return types.Unknown
}

// unify widens the types of xs, coercing untyped literals to the widened
// type of the others.
func unify(xs []*Expr) types.DataType {
	var ty types.DataType
	for _, x := range xs {
		if x.Kind != ExprLiteral {
			ty = widenKnown(ty, x.Type)
		}
	}
	for _, x := range xs {
		if x.Kind == ExprLiteral {
			coerceLiteral(x, ty)
			ty = widenKnown(ty, x.Type)
		}
	}
	return ty
}

// arithmetic types a binary arithmetic call. An integer literal meeting a
// decimal takes part as the narrowest decimal holding it, as Spark's
// DecimalPrecision does for literals.
func arithmetic(op string, args []*Expr) types.DataType {
	if len(args) != 2 {
		return types.Unknown
	}
	l, r := args[0], args[1]
	if l.Kind == ExprLiteral && r.Type.IsFractional() {
		coerceLiteral(l, r.Type)
	}
	if r.Kind == ExprLiteral && l.Type.IsFractional() {
		coerceLiteral(r, l.Type)
	}
	lt, rt := operandType(l, r), operandType(r, l)
	ty, err := types.Arithmetic(op, lt, rt)
	if err != nil {
		return types.Unknown
	}
	return ty
}

func operandType(x, other *Expr) types.DataType {
	if orig, ok := promotedFrom(x); ok {
		return orig
	}
	if x.Kind != ExprLiteral || x.Lit == nil {
		return x.Type
	}
	if x.Type.IsIntegral() && other.Type.Kind == types.Decimal {
		return types.LiteralDecimal(x.Lit.Int)
	}
	if _, promoted := promotedFrom(other); promoted && x.Type.Kind == types.Decimal {
		// Next to promote_precision a literal was cast to the widened type
		// and folded, so it prints with the widened scale (1.2 as
		// 1.200000, 100 as 100.00). Spark typed it before widening: take
		// the narrowest decimal that prints the same value.
		return narrowestDecimal(x.Raw, x.Type)
	}
	return x.Type
}

// narrowestDecimal is the decimal type of the literal raw without
// trailing fractional zeros.
func narrowestDecimal(raw string, t types.DataType) types.DataType {
	if !strings.Contains(raw, ".") {
		return t
	}
	e := newLiteral(strings.TrimRight(strings.TrimRight(raw, "0"), "."))
	switch {
	case e.Type.Kind == types.Decimal:
		return e.Type
	case e.Type.IsIntegral():
		return types.LiteralDecimal(e.Lit.Int)
	}
	return t
}

// promotedFrom recognises Spark 3.0-3.3's promote_precision(cast(e as T)),
// which DecimalPrecision wraps around the operands of decimal arithmetic
// to widen them: the result type was computed from e's type, not T. A
// cast that narrows is the query's own and is kept.
func promotedFrom(x *Expr) (types.DataType, bool) {
	if x.Kind != ExprCall || x.Name != "promote_precision" || len(x.Args) != 1 {
		return types.Unknown, false
	}
	in := x.Args[0]
	if in.Kind == ExprCall && in.Name == "cast" && len(in.Args) == 1 && in.Type.Kind == types.Decimal {
		from := in.Args[0].Type
		if d, ok := types.AsDecimal(from); ok && !from.IsFractional() && widens(d, in.Type) {
			return d, true
		}
	}
	return in.Type, in.Type.IsKnown()
}

// widens reports whether decimal to holds every value of decimal from.
func widens(from, to types.DataType) bool {
	return to.Precision-to.Scale >= from.Precision-from.Scale && to.Scale >= from.Scale
}

// roundType is Spark's RoundBase type: decimal(p,s) rounded to r digits
// becomes decimal(p-s+1+min(r,s), min(r,s)); other types keep theirs.
func roundType(args []*Expr) types.DataType {
	if len(args) == 0 {
		return types.Unknown
	}
	x := args[0].Type
	if x.Kind != types.Decimal {
		return x
	}
	r := 0
	if len(args) > 1 && args[1].Lit != nil {
		r = int(args[1].Lit.Int)
	}
	if r < 0 {
		r = 0
	}
	s := min(r, x.Scale)
	return types.Bounded(x.Precision-x.Scale+1+s, s)
}

// structFields maps the field names of named_struct(name1, value1, …),
// printed unquoted, to the values' types.
func structFields(e *Expr) map[string]types.DataType {
	m := map[string]types.DataType{}
	for i := 0; i+1 < len(e.Args); i += 2 {
		m[e.Args[i].String()] = e.Args[i+1].Type
	}
	return m
}

// structType is the (unsupported) struct type of a named_struct call,
// named as Spark prints it: struct<name:type,…>.
func structType(e *Expr) types.DataType {
	var b strings.Builder
	b.WriteString("struct<")
	for i := 0; i+1 < len(e.Args); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e.Args[i].String() + ":" + e.Args[i+1].Type.String())
	}
	b.WriteByte('>')
	return types.UnsupportedType(b.String())
}
