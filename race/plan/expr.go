package plan

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/hados-io/hados/operators/types"
)

// ExprKind is the kind of an expression node.
type ExprKind uint8

// The expression kinds.
const (
	// ExprOpaque is an expression the importer could not parse; Raw keeps
	// its text.
	ExprOpaque ExprKind = iota
	// ExprAttr is a reference to attribute Name#ID.
	ExprAttr
	// ExprLiteral is a constant; Lit holds its value, Type its type.
	ExprLiteral
	// ExprCall is an operator or function application: Name is "=", "AND",
	// "+", "isnotnull", "cast", "CASE", "IN", "sum", … and Args its operands.
	ExprCall
	// ExprAlias names Args[0] as Name#ID ("… AS revenue#20").
	ExprAlias
	// ExprSortOrder orders by Args[0]; Desc and NullsFirst say how.
	ExprSortOrder
	exprKindCount
)

var exprKindNames = [exprKindCount]string{"opaque", "attr", "literal", "call", "alias", "sort"}

// String returns the kind's stable name, used in JSON.
func (k ExprKind) String() string {
	if k < exprKindCount {
		return exprKindNames[k]
	}
	return "opaque"
}

func parseExprKind(s string) (ExprKind, bool) {
	for i, n := range exprKindNames {
		if n == s {
			return ExprKind(i), true
		}
	}
	return 0, false
}

// Expr is a Catalyst expression with its resolved type (types.Unknown when
// it could not be inferred). Expressions are plain trees owned by their
// node; they hold no resources.
//
// Call conventions: binary operators use their symbol ("=", "<=>", "+",
// "AND", "OR", "LIKE"); "NOT" and unary "-" have one argument; "IN" has the
// value then the list; "CASE" has WHEN/THEN pairs then an optional ELSE;
// "cast" has one argument and the target in Type; "CheckOverflow" has the
// value, and the target decimal in Type; "dynamicpruning" (x IN
// dynamicpruning#ID) has x and ID; "scalar-subquery" and
// "reused-scalar-subquery" have ID (the subquery's expression id); "window"
// has the function and its windowspecdefinition; "field" extracts
// Lit.Str from Args[0]; "list" is a bracketed or List(…) list; aggregate
// functions keep Spark's printed name (partial_sum, merge_avg, count) and set
// Distinct for count(distinct …).
type Expr struct {
	Kind       ExprKind       `json:"kind"`
	Type       types.DataType `json:"type"`
	Name       string         `json:"name,omitempty"`
	ID         int64          `json:"id,omitempty"`
	Lit        *Literal       `json:"lit,omitempty"`
	Args       []*Expr        `json:"args,omitempty"`
	Distinct   bool           `json:"distinct,omitempty"`
	Desc       bool           `json:"desc,omitempty"`
	NullsFirst bool           `json:"nullsFirst,omitempty"`
	// Raw is the printed text of opaque expressions and of literals.
	Raw string `json:"raw,omitempty"`
}

// Literal is a constant's value. Which field is meaningful follows the
// expression's type: Bool for boolean; Int for integral types, dates (days
// since 1970-01-01), timestamps (microseconds) and decimals whose unscaled
// value fits in int64 (the scale is the type's); Big, the unscaled value in
// decimal digits, for wider decimals; Float for float/double; Str for
// strings and binary. Null marks the null literal of any type.
type Literal struct {
	Null  bool    `json:"null,omitempty"`
	Bool  bool    `json:"bool,omitempty"`
	Int   int64   `json:"int,omitempty"`
	Big   string  `json:"big,omitempty"`
	Float float64 `json:"float,omitempty"`
	Str   string  `json:"str,omitempty"`
}

// Attr is an attribute (a column) flowing between operators: Spark's
// name#id with its type. Nullability is not printed by EXPLAIN FORMATTED;
// the importer reports every attribute nullable.
type Attr struct {
	Name     string         `json:"name"`
	ID       int64          `json:"id"`
	Type     types.DataType `json:"type"`
	Nullable bool           `json:"nullable"`
}

// String prints name#id.
func (a Attr) String() string { return a.Name + "#" + strconv.FormatInt(a.ID, 10) }

// AttrRef returns an attribute reference expression for a.
func AttrRef(a Attr) *Expr { return &Expr{Kind: ExprAttr, Name: a.Name, ID: a.ID, Type: a.Type} }

// Walk calls fn on e and then on its descendants, depth first; it stops and
// returns fn's first error.
func (e *Expr) Walk(fn func(*Expr) error) error {
	if e == nil {
		return nil
	}
	if err := fn(e); err != nil {
		return err
	}
	for _, a := range e.Args {
		if err := a.Walk(fn); err != nil {
			return err
		}
	}
	return nil
}

var infixOps = map[string]bool{
	"=": true, "<=>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
	"+": true, "-": true, "*": true, "/": true, "%": true, "div": true,
	"&": true, "|": true, "^": true, "AND": true, "OR": true,
}

// String prints the expression the way Spark prints it in a formatted plan.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	switch e.Kind {
	case ExprAttr:
		b.WriteString(e.Name)
		b.WriteByte('#')
		b.WriteString(strconv.FormatInt(e.ID, 10))
	case ExprLiteral:
		b.WriteString(e.literalText())
	case ExprAlias:
		writeArg(b, e, 0)
		b.WriteString(" AS ")
		b.WriteString(e.Name)
		b.WriteByte('#')
		b.WriteString(strconv.FormatInt(e.ID, 10))
	case ExprSortOrder:
		writeArg(b, e, 0)
		if e.Desc {
			b.WriteString(" DESC")
		} else {
			b.WriteString(" ASC")
		}
		if e.NullsFirst {
			b.WriteString(" NULLS FIRST")
		} else {
			b.WriteString(" NULLS LAST")
		}
	case ExprCall:
		e.writeCall(b)
	default:
		b.WriteString(e.Raw)
	}
}

func writeArg(b *strings.Builder, e *Expr, i int) {
	if i < len(e.Args) {
		e.Args[i].write(b)
	} else {
		b.WriteString("<missing>")
	}
}

func (e *Expr) literalText() string {
	if e.Raw != "" || e.Lit == nil {
		return e.Raw
	}
	l := e.Lit
	switch {
	case l.Null:
		return "null"
	case e.Type.Kind == types.Boolean:
		return strconv.FormatBool(l.Bool)
	case e.Type.Kind == types.Decimal:
		digits := l.Big
		if digits == "" {
			digits = strconv.FormatInt(l.Int, 10)
		}
		return formatUnscaled(digits, e.Type.Scale)
	case e.Type.IsIntegral():
		return strconv.FormatInt(l.Int, 10)
	case e.Type.IsFractional():
		return strconv.FormatFloat(l.Float, 'g', -1, 64)
	case e.Type.Kind == types.Date:
		return formatDate(l.Int)
	}
	return l.Str
}

func formatUnscaled(digits string, scale int) string {
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return digits
	}
	neg := u.Sign() < 0
	s := new(big.Int).Abs(u).String()
	if scale > 0 {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func (e *Expr) writeCall(b *strings.Builder) {
	switch {
	case infixOps[e.Name] && len(e.Args) == 2:
		b.WriteByte('(')
		writeArg(b, e, 0)
		b.WriteString(" " + e.Name + " ")
		writeArg(b, e, 1)
		b.WriteByte(')')
		return
	case e.Name == "NOT" && len(e.Args) == 1:
		b.WriteString("NOT ")
		writeArg(b, e, 0)
		return
	case e.Name == "-" && len(e.Args) == 1:
		b.WriteString("-")
		writeArg(b, e, 0)
		return
	case e.Name == "LIKE" && len(e.Args) == 2:
		writeArg(b, e, 0)
		b.WriteString(" LIKE ")
		writeArg(b, e, 1)
		return
	case e.Name == "IN" && len(e.Args) >= 1:
		writeArg(b, e, 0)
		b.WriteString(" IN (")
		for i := 1; i < len(e.Args); i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			e.Args[i].write(b)
		}
		b.WriteByte(')')
		return
	case e.Name == "dynamicpruning" && len(e.Args) == 1:
		writeArg(b, e, 0)
		b.WriteString(" IN dynamicpruning#" + strconv.FormatInt(e.ID, 10))
		return
	case e.Name == "scalar-subquery" || e.Name == "reused-scalar-subquery":
		if e.Name == "reused-scalar-subquery" {
			b.WriteString("ReusedSubquery ")
		}
		b.WriteString("Subquery scalar-subquery#" + strconv.FormatInt(e.ID, 10))
		if e.Raw != "" {
			b.WriteString(", " + e.Raw)
		}
		return
	case e.Name == "field" && len(e.Args) == 1 && e.Lit != nil:
		writeArg(b, e, 0)
		b.WriteString("." + e.Lit.Str)
		return
	case e.Name == "window" && len(e.Args) == 2:
		writeArg(b, e, 0)
		b.WriteByte(' ')
		writeArg(b, e, 1)
		return
	case e.Name == "list":
		b.WriteByte('[')
		writeList(b, e.Args, ", ")
		b.WriteByte(']')
		return
	case e.Name == "cast" && len(e.Args) == 1:
		b.WriteString("cast(")
		writeArg(b, e, 0)
		b.WriteString(" as " + e.Type.String() + ")")
		return
	case e.Name == "CASE":
		b.WriteString("CASE")
		n := len(e.Args)
		for i := 0; i+1 < n; i += 2 {
			b.WriteString(" WHEN ")
			e.Args[i].write(b)
			b.WriteString(" THEN ")
			e.Args[i+1].write(b)
		}
		if n%2 == 1 {
			b.WriteString(" ELSE ")
			e.Args[n-1].write(b)
		}
		b.WriteString(" END")
		return
	}
	b.WriteString(e.Name)
	b.WriteByte('(')
	if e.Distinct {
		b.WriteString("distinct ")
	}
	switch {
	case e.Name == "In" && len(e.Args) == 2 && e.Args[1].Kind == ExprCall && e.Args[1].Name == "list":
		// Spark's sources.In prints "In(col, [a,b])".
		writeSourceArg(b, e.Args[0])
		b.WriteString(", [")
		writeList(b, e.Args[1].Args, ",")
		b.WriteByte(']')
	case compactCalls[e.Name]:
		for i, a := range e.Args {
			if i > 0 {
				b.WriteByte(',')
			}
			if e.Name == "MakeDecimal" {
				a.write(b)
			} else {
				writeSourceArg(b, a)
			}
		}
	default:
		writeList(b, e.Args, ", ")
	}
	b.WriteByte(')')
}

// writeSourceArg prints an argument of a data-source filter, where
// columns appear by name only.
func writeSourceArg(b *strings.Builder, a *Expr) {
	if a.Kind == ExprAttr {
		b.WriteString(a.Name)
		return
	}
	a.write(b)
}

// compactCalls print their arguments without spaces, as Spark does for
// MakeDecimal and the data-source filters.
var compactCalls = map[string]bool{
	"MakeDecimal": true, "IsNotNull": true, "IsNull": true, "EqualTo": true, "EqualNullSafe": true,
	"GreaterThan": true, "GreaterThanOrEqual": true, "LessThan": true, "LessThanOrEqual": true,
	"StringStartsWith": true, "StringEndsWith": true, "StringContains": true, "And": true, "Or": true, "Not": true,
}

func writeList(b *strings.Builder, xs []*Expr, sep string) {
	for i, x := range xs {
		if i > 0 {
			b.WriteString(sep)
		}
		x.write(b)
	}
}
