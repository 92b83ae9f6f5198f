package convert

import (
	"math/big"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// Schema is the input of the expressions being converted: the child
// operator's output attributes, in column order.
type Schema []plan.Attr

// Index returns the column index of attribute id, or -1.
func (s Schema) Index(id int64) int {
	for i, a := range s {
		if a.ID == id {
			return i
		}
	}
	return -1
}

// Expr converts e over the input schema in. The result is a fresh tree;
// err is an *Error when e (or a part of it) has no IR form.
func Expr(e *plan.Expr, in Schema) (*expr.Expr, error) { return ExprBound(e, in, nil) }

// ExprBound is Expr with scalar subquery values: a scalar-subquery (or
// reused-scalar-subquery) reference whose expression id is in binds
// becomes that value, a literal retyped to the reference's type. Without
// a binding a subquery reference does not convert (CodeSubquery).
func ExprBound(e *plan.Expr, in Schema, binds Bindings) (*expr.Expr, error) {
	if e == nil {
		return nil, fail(CodeShape, "<nil>", "<nil>", "missing expression")
	}
	c := converter{in: in, binds: binds}
	out, err := c.expr(e, 0)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Exprs converts a list; the first failure is returned.
func Exprs(es []*plan.Expr, in Schema) ([]*expr.Expr, error) {
	out := make([]*expr.Expr, 0, len(es))
	for _, e := range es {
		x, err := Expr(e, in)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// maxDepth bounds recursion: the importer caps expressions at 256 levels,
// JSON input is checked the same way, this is a last guard.
const maxDepth = 512

type converter struct {
	in    Schema
	binds Bindings
}

func (c converter) expr(e *plan.Expr, depth int) (*expr.Expr, error) {
	if e == nil {
		return nil, fail(CodeShape, "<nil>", "<nil>", "missing argument")
	}
	if depth > maxDepth {
		return nil, fail(CodeShape, "nesting", "…", "expression nested deeper than %d levels", maxDepth)
	}
	switch e.Kind {
	case plan.ExprAttr:
		i := c.in.Index(e.ID)
		if i < 0 {
			return nil, fail(CodeUnresolved, e.Name, e.String(), "attribute is not in the input %s", schemaText(c.in))
		}
		t := c.in[i].Type
		if !t.IsKnown() {
			t = e.Type
		}
		if !t.IsKnown() {
			return nil, fail(CodeDataType, e.Name, e.String(), "the attribute's type is unknown")
		}
		return expr.Column(i, e.Name, t), nil
	case plan.ExprLiteral:
		return literal(e)
	case plan.ExprAlias, plan.ExprSortOrder:
		if len(e.Args) != 1 {
			return nil, fail(CodeShape, e.Kind.String(), e.String(), "want one argument, have %d", len(e.Args))
		}
		return c.expr(e.Args[0], depth+1)
	case plan.ExprCall:
		return c.call(e, depth)
	}
	return nil, fail(CodeExpression, opaqueName(e.Raw), e.Raw, "the expression could not be parsed")
}

func (c converter) call(e *plan.Expr, depth int) (*expr.Expr, error) {
	if subqueryCalls[e.Name] {
		if v, ok := c.binds[e.ID]; ok && IsScalarSubquery(e) && v != nil && v.Op == expr.OpLiteral {
			t := e.Type
			if !t.IsKnown() {
				t = v.Type
			}
			return expr.Literal(v.Value, t), nil
		}
		return nil, fail(CodeSubquery, e.Name, e.String(), "subquery expressions are evaluated on the host")
	}
	f, ok := funcs[e.Name]
	if !ok {
		return nil, fail(CodeExpression, e.Name, e.String(), "function %s has no device implementation", e.Name)
	}
	if e.Distinct {
		return nil, fail(CodeExpression, e.Name, e.String(), "DISTINCT arguments are not supported")
	}
	n := len(e.Args)
	if n < f.args.min || (f.args.max >= 0 && n > f.args.max) {
		return nil, fail(CodeShape, e.Name, e.String(), "%s with %d arguments", e.Name, n)
	}
	if !e.Type.IsKnown() {
		return nil, fail(CodeDataType, e.Name, e.String(), "the result type could not be inferred")
	}
	args := e.Args
	if f.keep > 0 && len(args) > f.keep {
		args = args[:f.keep]
	}
	op := f.op
	if op == expr.OpSub && n == 1 {
		op = expr.OpNeg
	} else if op == expr.OpSub && n != 2 {
		return nil, fail(CodeShape, e.Name, e.String(), "- with %d arguments", n)
	}
	out := make([]*expr.Expr, 0, len(args))
	for _, a := range args {
		x, err := c.expr(a, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	if decimalOperands[op] && len(out) == 2 {
		out[0], out[1] = widenLiteral(out[0], out[1]), widenLiteral(out[1], out[0])
	}
	return expr.Call(op, e.Type, out...), nil
}

// decimalOperands are the binary operations whose integral literal
// operand Spark takes part as a decimal when the other operand is one.
var decimalOperands = map[expr.Op]bool{
	expr.OpAdd: true, expr.OpSub: true, expr.OpMul: true, expr.OpDiv: true, expr.OpMod: true,
	expr.OpEq: true, expr.OpNe: true, expr.OpLt: true, expr.OpLe: true, expr.OpGt: true, expr.OpGe: true,
	expr.OpEqNullSafe: true,
}

// widenLiteral retypes an int or bigint literal x meeting a decimal
// operand as the decimal of its digits (Spark narrows integer literals in
// decimal arithmetic to decimal(digits, 0)); anything else is returned as
// is. This is a retyping of a constant, not an inserted cast.
func widenLiteral(x, other *expr.Expr) *expr.Expr {
	if x.Op != expr.OpLiteral || other.Type.Kind != types.Decimal || x.Value == nil {
		return x
	}
	var v int64
	switch n := x.Value.(type) {
	case int32:
		v = int64(n)
	case int64:
		v = n
	default:
		return x
	}
	u := big.NewInt(v)
	digits := len(new(big.Int).Abs(u).String())
	return expr.Literal(u, types.DecimalOf(digits, 0))
}

// opaqueName names an opaque expression by its leading identifier
// ("DecimalType(10,2)" → "DecimalType").
func opaqueName(raw string) string {
	for i, r := range raw {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			if i == 0 {
				return "opaque"
			}
			return raw[:i]
		}
	}
	if raw == "" {
		return "opaque"
	}
	return raw
}

func schemaText(s Schema) string {
	b := []byte{'['}
	for i, a := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		if i == 8 {
			b = append(b, "…"...)
			break
		}
		b = append(b, a.String()...)
	}
	return string(append(b, ']'))
}
