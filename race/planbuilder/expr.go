package planbuilder

import (
	"fmt"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// Expressions are plain *plan.Expr values. Column references made with Col
// are unresolved (id 0) until an operator attaches the expression: the
// operator copies it, binds each name to the one attribute of its input
// with that name, and types every node with Spark's rules. Expressions can
// therefore be reused across operators.

// Col refers to the input column named name; it is bound when an operator
// uses the expression (an error if the input has no such column or more
// than one).
func (b *Builder) Col(name string) *plan.Expr {
	return &plan.Expr{Kind: plan.ExprAttr, Name: name}
}

// Cols returns Col for each name.
func (b *Builder) Cols(names ...string) []*plan.Expr {
	out := make([]*plan.Expr, len(names))
	for i, n := range names {
		out[i] = b.Col(n)
	}
	return out
}

func lit(ty types.DataType, l *plan.Literal) *plan.Expr {
	return &plan.Expr{Kind: plan.ExprLiteral, Type: ty, Lit: l}
}

// Int is an int literal.
func (b *Builder) Int(v int32) *plan.Expr { return lit(types.IntType, &plan.Literal{Int: int64(v)}) }

// Long is a bigint literal.
func (b *Builder) Long(v int64) *plan.Expr { return lit(types.LongType, &plan.Literal{Int: v}) }

// Str is a string literal. It must be valid UTF-8, as Spark strings are.
func (b *Builder) Str(s string) *plan.Expr {
	b.checkUTF8("string literal", s)
	return lit(types.StringType, &plan.Literal{Str: s})
}

func (b *Builder) checkUTF8(what, s string) {
	if !utf8.ValidString(s) {
		b.failf("%s %q is not valid UTF-8", what, s)
	}
}

// Strs returns Str for each value.
func (b *Builder) Strs(vals ...string) []*plan.Expr {
	out := make([]*plan.Expr, len(vals))
	for i, v := range vals {
		out[i] = b.Str(v)
	}
	return out
}

// Ints returns Int for each value.
func (b *Builder) Ints(vals ...int32) []*plan.Expr {
	out := make([]*plan.Expr, len(vals))
	for i, v := range vals {
		out[i] = b.Int(v)
	}
	return out
}

// Dec is a decimal literal typed as Spark types a BigDecimal literal:
// "0.06" is decimal(2,2), "100.00" decimal(5,2), "7.0" decimal(2,1).
func (b *Builder) Dec(s string) *plan.Expr {
	digits, scale := s, 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		digits, scale = s[:i]+s[i+1:], len(s)-i-1
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		b.failf("decimal literal %q is not a number", s)
		return lit(types.Unknown, &plan.Literal{})
	}
	p := max(len(new(big.Int).Abs(u).String()), scale)
	ty, err := types.NewDecimal(p, scale)
	if err != nil {
		b.failf("decimal literal %q: %v", s, err)
	}
	return lit(ty, unscaledLiteral(u))
}

func unscaledLiteral(u *big.Int) *plan.Literal {
	if u.IsInt64() {
		return &plan.Literal{Int: u.Int64()}
	}
	return &plan.Literal{Big: u.String()}
}

var epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// Date is a date literal ("1994-01-01").
func (b *Builder) Date(s string) *plan.Expr { return b.DateAdd(s, 0, 0, 0) }

// DateAdd is the date literal s plus years, months and days, folded as
// Spark's optimizer folds date '…' ± interval '…'.
func (b *Builder) DateAdd(s string, years, months, days int) *plan.Expr {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		b.failf("date literal %q: want yyyy-mm-dd", s)
		return lit(types.DateType, &plan.Literal{})
	}
	t = t.AddDate(years, months, days)
	return lit(types.DateType, &plan.Literal{Int: int64(t.Sub(epoch).Hours() / 24)})
}

func call(name string, args ...*plan.Expr) *plan.Expr {
	return &plan.Expr{Kind: plan.ExprCall, Name: name, Args: args}
}

// Arithmetic: the result type is types.Arithmetic's (Spark 3.4+ style: no
// promote_precision or CheckOverflow nodes are added).

// Add is x + y.
func (b *Builder) Add(x, y *plan.Expr) *plan.Expr { return call("+", x, y) }

// Sub is x - y.
func (b *Builder) Sub(x, y *plan.Expr) *plan.Expr { return call("-", x, y) }

// Mul is x * y.
func (b *Builder) Mul(x, y *plan.Expr) *plan.Expr { return call("*", x, y) }

// Div is x / y.
func (b *Builder) Div(x, y *plan.Expr) *plan.Expr { return call("/", x, y) }

// Comparisons. A literal operand is cast to the other operand's type;
// two numeric operands of different types are both cast to their wider
// type, as Spark's type coercion does.

// Eq is x = y.
func (b *Builder) Eq(x, y *plan.Expr) *plan.Expr { return call("=", x, y) }

// Ne is x <> y, which Spark plans as NOT (x = y).
func (b *Builder) Ne(x, y *plan.Expr) *plan.Expr { return b.Not(call("=", x, y)) }

// Lt is x < y.
func (b *Builder) Lt(x, y *plan.Expr) *plan.Expr { return call("<", x, y) }

// Le is x <= y.
func (b *Builder) Le(x, y *plan.Expr) *plan.Expr { return call("<=", x, y) }

// Gt is x > y.
func (b *Builder) Gt(x, y *plan.Expr) *plan.Expr { return call(">", x, y) }

// Ge is x >= y.
func (b *Builder) Ge(x, y *plan.Expr) *plan.Expr { return call(">=", x, y) }

// Between is lo <= x AND x <= hi, as Spark rewrites BETWEEN.
func (b *Builder) Between(x, lo, hi *plan.Expr) *plan.Expr {
	return b.And(b.Ge(x, lo), b.Le(cloneExpr(x), hi))
}

// And folds its operands left-deep, ((a AND b) AND c), as Spark prints
// conjunctions; nil operands are skipped.
func (b *Builder) And(xs ...*plan.Expr) *plan.Expr { return fold("AND", xs) }

// Or folds its operands left-deep.
func (b *Builder) Or(xs ...*plan.Expr) *plan.Expr { return fold("OR", xs) }

func fold(op string, xs []*plan.Expr) *plan.Expr {
	var acc *plan.Expr
	for _, x := range xs {
		switch {
		case x == nil:
		case acc == nil:
			acc = x
		default:
			acc = call(op, acc, x)
		}
	}
	return acc
}

// Not negates x.
func (b *Builder) Not(x *plan.Expr) *plan.Expr { return call("NOT", x) }

// IsNotNull is isnotnull(x).
func (b *Builder) IsNotNull(x *plan.Expr) *plan.Expr { return call("isnotnull", x) }

// NotNull returns isnotnull(col) for each named column, the constraints
// Spark infers for filter columns and join keys.
func (b *Builder) NotNull(names ...string) []*plan.Expr {
	out := make([]*plan.Expr, len(names))
	for i, n := range names {
		out[i] = b.IsNotNull(b.Col(n))
	}
	return out
}

// In is x IN (vals…).
func (b *Builder) In(x *plan.Expr, vals ...*plan.Expr) *plan.Expr {
	return call("IN", append([]*plan.Expr{x}, vals...)...)
}

// Like is x LIKE pattern. Spark's optimizer turns the simple patterns
// into StartsWith ('abc%'), EndsWith ('%abc') and Contains ('%abc%'),
// and so does Like.
func (b *Builder) Like(x *plan.Expr, pattern string) *plan.Expr {
	inner := strings.Trim(pattern, "%")
	if !strings.ContainsAny(inner, "%_") && inner != "" {
		pre, suf := strings.HasPrefix(pattern, "%"), strings.HasSuffix(pattern, "%")
		switch {
		case pre && suf:
			return call("Contains", x, b.Str(inner))
		case suf:
			return call("StartsWith", x, b.Str(inner))
		case pre:
			return call("EndsWith", x, b.Str(inner))
		}
	}
	return call("LIKE", x, b.Str(pattern))
}

// Case is CASE WHEN c1 THEN v1 … [ELSE e] END: pairs of condition and
// value, then an optional else value. Branch values are widened to one
// type; literal branches are cast to it.
func (b *Builder) Case(args ...*plan.Expr) *plan.Expr { return call("CASE", args...) }

// Substring is substring(x, pos, len).
func (b *Builder) Substring(x *plan.Expr, pos, n int32) *plan.Expr {
	return call("substring", x, b.Int(pos), b.Int(n))
}

// Year is year(x), EXTRACT(YEAR FROM x).
func (b *Builder) Year(x *plan.Expr) *plan.Expr { return call("year", x) }

// Cast is cast(x as to).
func (b *Builder) Cast(x *plan.Expr, to types.DataType) *plan.Expr {
	e := call("cast", x)
	e.Type = to
	return e
}

// As names x: "x AS name#id" with a fresh id.
func (b *Builder) As(x *plan.Expr, name string) *plan.Expr {
	b.checkUTF8("alias", name)
	return &plan.Expr{Kind: plan.ExprAlias, Name: name, ID: b.newID(), Args: []*plan.Expr{x}}
}

// Asc orders by x ascending, nulls first (Spark's default).
func (b *Builder) Asc(x *plan.Expr) *plan.Expr {
	return &plan.Expr{Kind: plan.ExprSortOrder, Args: []*plan.Expr{x}, NullsFirst: true}
}

// Desc orders by x descending, nulls last (Spark's default).
func (b *Builder) Desc(x *plan.Expr) *plan.Expr {
	return &plan.Expr{Kind: plan.ExprSortOrder, Args: []*plan.Expr{x}, Desc: true}
}

// ScalarSubquery registers r, whose first output column is the value, as
// a block of Plan.Subqueries and returns the "Subquery
// scalar-subquery#ID" expression that reads it.
func (b *Builder) ScalarSubquery(r *Rel) *plan.Expr {
	if r == nil || r.n == nil || len(r.n.Output) == 0 {
		b.failf("scalar subquery without output")
		return call("scalar-subquery")
	}
	e := &plan.Expr{Kind: plan.ExprCall, Name: "scalar-subquery", ID: b.newID(), Type: r.n.Output[0].Type}
	e.Raw = fmt.Sprintf("[id=#%d]", b.newID())
	b.subs = append(b.subs, &subquery{expr: e, root: r})
	return e
}

func cloneExpr(e *plan.Expr) *plan.Expr {
	if e == nil {
		return nil
	}
	c := *e
	if e.Lit != nil {
		l := *e.Lit
		c.Lit = &l
	}
	if e.Args != nil {
		c.Args = make([]*plan.Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = cloneExpr(a)
		}
	}
	return &c
}
