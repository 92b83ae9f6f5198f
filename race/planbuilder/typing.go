package planbuilder

import (
	"fmt"
	"math/big"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// bind copies e, binds its unresolved column references (id 0) to the
// attributes of scope by name, and types the copy. where names the
// operator in error messages.
func (b *Builder) bind(e *plan.Expr, scope []plan.Attr, where string) *plan.Expr {
	if e == nil {
		return nil
	}
	c := cloneExpr(e)
	if err := checkShape(c); err != nil {
		b.failf("%s: %v", where, err)
		return c
	}
	_ = c.Walk(func(x *plan.Expr) error {
		if x.Kind != plan.ExprAttr || x.ID != 0 {
			return nil
		}
		var found []plan.Attr
		for _, a := range scope {
			if a.Name == x.Name {
				found = append(found, a)
			}
		}
		switch len(found) {
		case 1:
			x.ID, x.Type = found[0].ID, found[0].Type
		case 0:
			b.failf("%s: no input column %q (input: %s)", where, x.Name, attrNames(scope))
		default:
			b.failf("%s: column %q is ambiguous (%d input columns have that name); use Rel.Col", where, x.Name, len(found))
		}
		return nil
	})
	b.typeExpr(c, where)
	return c
}

func (b *Builder) bindAll(xs []*plan.Expr, scope []plan.Attr, where string) []*plan.Expr {
	if len(xs) == 0 {
		return nil
	}
	out := make([]*plan.Expr, 0, len(xs))
	for _, x := range xs {
		if x == nil {
			b.failf("%s: null expression in a list", where)
			continue
		}
		out = append(out, b.bind(x, scope, where))
	}
	return out
}

func attrNames(attrs []plan.Attr) string {
	s := ""
	for i, a := range attrs {
		if i > 0 {
			s += ", "
		}
		s += a.String()
	}
	return s
}

var comparisons = map[string]bool{"=": true, "<": true, "<=": true, ">": true, ">=": true}

var predicates = map[string]bool{"AND": true, "OR": true, "NOT": true, "isnotnull": true, "isnull": true,
	"LIKE": true, "StartsWith": true, "EndsWith": true, "Contains": true}

// typeExpr types e bottom-up with Spark's rules, inserting the casts
// Spark's type coercion inserts.
func (b *Builder) typeExpr(e *plan.Expr, where string) types.DataType {
	for _, a := range e.Args {
		b.typeExpr(a, where)
	}
	switch e.Kind {
	case plan.ExprAlias, plan.ExprSortOrder:
		e.Type = e.Args[0].Type
	case plan.ExprCall:
		e.Type = b.callType(e, where)
	}
	if !e.Type.IsKnown() {
		b.failf("%s: cannot type %s", where, e)
	}
	return e.Type
}

func (b *Builder) callType(e *plan.Expr, where string) types.DataType {
	args := e.Args
	switch name := e.Name; {
	case comparisons[name]:
		b.coerce(args, where)
		return types.BooleanType
	case name == "IN":
		for _, v := range args[1:] {
			b.toType(v, args[0].Type, where)
		}
		return types.BooleanType
	case predicates[name]:
		return types.BooleanType
	case name == "+" || name == "-" || name == "*" || name == "/":
		l, r := args[0], args[1]
		for _, p := range [][2]*plan.Expr{{l, r}, {r, l}} {
			// An integer literal meeting a decimal takes part as the
			// narrowest decimal holding it (DecimalType.fromLiteral).
			if x, o := p[0], p[1]; x.Kind == plan.ExprLiteral && x.Type.IsIntegral() && o.Type.Kind == types.Decimal {
				x.Type = types.LiteralDecimal(x.Lit.Int)
			}
		}
		for _, p := range [][2]*plan.Expr{{l, r}, {r, l}} {
			// A non-literal integral operand of decimal arithmetic is cast
			// to its decimal form, as Spark's ImplicitTypeCasts does.
			if x, o := p[0], p[1]; x.Kind != plan.ExprLiteral && x.Type.IsIntegral() && o.Type.Kind == types.Decimal {
				d, _ := types.AsDecimal(x.Type)
				b.toType(x, d, where)
			}
		}
		ty, err := types.Arithmetic(name, l.Type, r.Type)
		if err != nil {
			b.failf("%s: %v", where, err)
		}
		return ty
	case name == "CASE":
		var vals []*plan.Expr
		for i := 1; i < len(args); i += 2 {
			vals = append(vals, args[i])
		}
		if len(args)%2 == 1 {
			vals = append(vals, args[len(args)-1])
		}
		var ty types.DataType
		for _, v := range vals {
			if v.Kind != plan.ExprLiteral {
				ty = widen(ty, v.Type)
			}
		}
		if !ty.IsKnown() { // only literal branches: widen their own types
			for _, v := range vals {
				ty = widen(ty, v.Type)
			}
		}
		for _, v := range vals {
			b.toType(v, ty, where)
		}
		return ty
	case name == "substring":
		return types.StringType
	case name == "year":
		return types.IntType
	case name == "cast", name == "scalar-subquery":
		return e.Type
	}
	return e.Type
}

func widen(a, b types.DataType) types.DataType {
	if !a.IsKnown() {
		return b
	}
	if w, ok := types.Widen(a, b); ok {
		return w
	}
	return a
}

// coerce makes the two operands of a comparison one type: a literal takes
// the other side's type; numeric operands of different types are cast to
// the wider type.
func (b *Builder) coerce(args []*plan.Expr, where string) {
	l, r := args[0], args[1]
	switch {
	case l.Type == r.Type:
	case r.Kind == plan.ExprLiteral && !(l.Type.IsNumeric() && r.Type.IsNumeric() && widen(l.Type, r.Type) != l.Type):
		b.toType(r, l.Type, where)
	case l.Kind == plan.ExprLiteral && !(l.Type.IsNumeric() && r.Type.IsNumeric() && widen(l.Type, r.Type) != r.Type):
		b.toType(l, r.Type, where)
	case l.Type.IsNumeric() && r.Type.IsNumeric():
		// Both sides become the wider type: literals are converted,
		// other expressions cast.
		w := widen(l.Type, r.Type)
		for _, x := range args {
			b.toType(x, w, where)
		}
	}
}

// toType casts x to ty: a literal is converted in place (as Spark's
// optimizer folds the cast); another expression of a different type is an
// error, since the builder only coerces literals here.
func (b *Builder) toType(x *plan.Expr, ty types.DataType, where string) {
	if x.Type == ty || !ty.IsKnown() {
		return
	}
	if x.Kind != plan.ExprLiteral || x.Lit == nil {
		if x.Type.IsNumeric() && ty.IsNumeric() {
			inner := *x
			*x = plan.Expr{Kind: plan.ExprCall, Name: "cast", Type: ty, Args: []*plan.Expr{&inner}}
			return
		}
		b.failf("%s: %s is %s, want %s", where, x, x.Type, ty)
		return
	}
	switch {
	case ty.Kind == types.Decimal && (x.Type.IsIntegral() || x.Type.Kind == types.Decimal):
		from := 0
		if x.Type.Kind == types.Decimal {
			from = x.Type.Scale
		}
		u := big.NewInt(x.Lit.Int)
		if x.Lit.Big != "" {
			u.SetString(x.Lit.Big, 10)
		}
		if ty.Scale < from {
			b.failf("%s: literal %s has more decimals than %s", where, x, ty)
			return
		}
		u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ty.Scale-from)), nil))
		x.Lit, x.Type = unscaledLiteral(u), ty
	case ty.IsIntegral() && x.Type.IsIntegral():
		x.Type = ty
	default:
		b.failf("%s: literal %s (%s) cannot take type %s", where, x, x.Type, ty)
	}
}

// arity is the number of arguments of the calls the builder types: exact,
// or at least min when exact is -1.
var arity = map[string][2]int{
	"=": {2, 0}, "<": {2, 0}, "<=": {2, 0}, ">": {2, 0}, ">=": {2, 0},
	"+": {2, 0}, "-": {2, 0}, "*": {2, 0}, "/": {2, 0},
	"AND": {2, 0}, "OR": {2, 0}, "NOT": {1, 0}, "isnotnull": {1, 0}, "isnull": {1, 0},
	"LIKE": {2, 0}, "StartsWith": {2, 0}, "EndsWith": {2, 0}, "Contains": {2, 0},
	"IN": {-1, 2}, "CASE": {-1, 2}, "substring": {3, 0}, "year": {1, 0}, "cast": {1, 0},
	"scalar-subquery": {0, 0},
}

// checkShape rejects expressions the builder cannot type: null nodes,
// calls with the wrong number of arguments, literals without a value,
// aliases and sort orders without their operand.
func checkShape(e *plan.Expr) error {
	if e == nil {
		return fmt.Errorf("null expression")
	}
	switch e.Kind {
	case plan.ExprAlias, plan.ExprSortOrder:
		if len(e.Args) != 1 {
			return fmt.Errorf("%s needs one operand, has %d", e.Kind, len(e.Args))
		}
	case plan.ExprLiteral:
		if e.Lit == nil {
			return fmt.Errorf("literal without a value")
		}
	case plan.ExprCall:
		a, ok := arity[e.Name]
		switch {
		case !ok:
			return fmt.Errorf("unsupported function %q", e.Name)
		case a[0] >= 0 && len(e.Args) != a[0]:
			return fmt.Errorf("%s takes %d arguments, has %d", e.Name, a[0], len(e.Args))
		case a[0] < 0 && len(e.Args) < a[1]:
			return fmt.Errorf("%s takes at least %d arguments, has %d", e.Name, a[1], len(e.Args))
		}
	case plan.ExprAttr:
	default:
		return fmt.Errorf("unsupported expression kind %s", e.Kind)
	}
	for _, x := range e.Args {
		if err := checkShape(x); err != nil {
			return err
		}
	}
	return nil
}
