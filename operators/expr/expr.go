package expr

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/hados-io/hados/operators/types"
)

// Op names an expression node.
type Op uint8

const (
	OpInvalid Op = iota
	OpColumn     // input column Col
	OpLiteral    // Value (nil: NULL) of Type

	// comparisons: boolean, null if an operand is null (except EqNullSafe)
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpEqNullSafe // <=>: never null

	// three-valued logic
	OpAnd
	OpOr
	OpNot
	OpIsNull    // never null
	OpIsNotNull // never null
	OpIn        // Args[0] IN (Args[1:], all literals)

	// conditionals
	OpCaseWhen // Args: cond1, val1, cond2, val2, …, [else]; no else: NULL
	OpIf       // Args: cond, then, else
	OpCoalesce // first non-null of Args

	// arithmetic; for decimals Type is the result type: the exact result is
	// rounded HALF_UP to Type's scale and is NULL if it does not fit Type's
	// precision; integers wrap (non-ANSI); division or remainder by zero is NULL
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpMod
	OpNeg

	OpCast             // Args[0] cast to Type, Spark's non-ANSI cast
	OpCheckOverflow    // decimal Args[0] rounded HALF_UP to Type, NULL on overflow
	OpPromotePrecision // decimal Args[0] unchanged (Type = its type)
	OpUnscaledValue    // decimal(p<=18) -> bigint unscaled
	OpMakeDecimal      // bigint unscaled -> decimal Type (NULL if it does not fit)

	// dates (date = days since 1970-01-01)
	OpYear
	OpMonth
	OpDayOfMonth
	OpDateAdd // Args: date, int days
	OpDateSub // Args: date, int days

	// strings (UTF-8; characters, not bytes, where Spark counts characters)
	OpStartsWith // Args: string, literal prefix
	OpEndsWith
	OpContains
	OpLike      // Args: string, literal pattern ('%', '_', escape '\\')
	OpSubstring // Args: string, pos (int literal, 1-based), len (int literal)
	OpLength    // characters

	opCount
)

var opNames = [...]string{
	OpInvalid: "invalid", OpColumn: "column", OpLiteral: "literal",
	OpEq: "=", OpNe: "!=", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=", OpEqNullSafe: "<=>",
	OpAnd: "AND", OpOr: "OR", OpNot: "NOT", OpIsNull: "isnull", OpIsNotNull: "isnotnull", OpIn: "IN",
	OpCaseWhen: "CASE", OpIf: "if", OpCoalesce: "coalesce",
	OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpMod: "%", OpNeg: "-",
	OpCast: "cast", OpCheckOverflow: "CheckOverflow", OpPromotePrecision: "promote_precision",
	OpUnscaledValue: "UnscaledValue", OpMakeDecimal: "MakeDecimal",
	OpYear: "year", OpMonth: "month", OpDayOfMonth: "dayofmonth", OpDateAdd: "date_add", OpDateSub: "date_sub",
	OpStartsWith: "StartsWith", OpEndsWith: "EndsWith", OpContains: "Contains", OpLike: "LIKE",
	OpSubstring: "substring", OpLength: "length",
}

func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Ops lists every operation, for tests and tables.
func Ops() []Op {
	out := make([]Op, 0, opCount)
	for o := OpColumn; o < opCount; o++ {
		out = append(out, o)
	}
	return out
}

// Expr is a typed expression over the columns of an input batch. Trees are
// immutable once built; share them freely.
//
// Literal values (Value) by type: boolean bool, int int32, bigint int64,
// double float64, decimal *big.Int (the unscaled value; the scale is
// Type's), date int32 (days), timestamp int64 (µs since the epoch, UTC),
// string string; nil is NULL.
type Expr struct {
	Op    Op
	Type  types.DataType
	Col   int    // OpColumn: index into the input columns
	Name  string // OpColumn: the column's name (for messages only)
	Value any    // OpLiteral
	Args  []*Expr
}

// Column returns a column reference.
func Column(index int, name string, t types.DataType) *Expr {
	return &Expr{Op: OpColumn, Col: index, Name: name, Type: t}
}

// Literal returns a literal of a type (nil value: NULL).
func Literal(v any, t types.DataType) *Expr { return &Expr{Op: OpLiteral, Value: v, Type: t} }

// Call returns an operation node with its result type.
func Call(op Op, t types.DataType, args ...*Expr) *Expr { return &Expr{Op: op, Type: t, Args: args} }

// Between returns lo <= e AND e <= hi (how Spark plans BETWEEN).
func Between(e, lo, hi *Expr) *Expr {
	b := types.DataType{Kind: types.Boolean}
	return Call(OpAnd, b, Call(OpGe, b, e, lo), Call(OpLe, b, e, hi))
}

// Decimal returns a decimal literal from an unscaled int64.
func Decimal(unscaled int64, p, s int) *Expr {
	return Literal(big.NewInt(unscaled), types.DecimalOf(p, s))
}

// Walk calls fn on e and its descendants, depth first, parents first; it
// stops at the first error.
func (e *Expr) Walk(fn func(*Expr) error) error {
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

// String prints the expression in Spark's style.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	switch e.Op {
	case OpColumn:
		if e.Name != "" {
			b.WriteString(e.Name)
		} else {
			fmt.Fprintf(b, "#%d", e.Col)
		}
	case OpLiteral:
		b.WriteString(formatValue(e.Value, e.Type))
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpEqNullSafe, OpAnd, OpOr, OpAdd, OpSub, OpMul, OpDiv, OpMod, OpLike:
		b.WriteByte('(')
		e.Args[0].write(b)
		fmt.Fprintf(b, " %s ", e.Op)
		e.Args[1].write(b)
		b.WriteByte(')')
	case OpNeg:
		b.WriteString("-")
		e.Args[0].write(b)
	case OpNot:
		b.WriteString("NOT ")
		e.Args[0].write(b)
	case OpIn:
		b.WriteByte('(')
		e.Args[0].write(b)
		b.WriteString(" IN (")
		for i, a := range e.Args[1:] {
			if i > 0 {
				b.WriteString(",")
			}
			a.write(b)
		}
		b.WriteString("))")
	case OpCaseWhen:
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
	case OpCast:
		b.WriteString("cast(")
		e.Args[0].write(b)
		fmt.Fprintf(b, " as %s)", e.Type)
	case OpCheckOverflow, OpMakeDecimal:
		fmt.Fprintf(b, "%s(", e.Op)
		e.Args[0].write(b)
		fmt.Fprintf(b, ", %s)", e.Type)
	default:
		fmt.Fprintf(b, "%s(", e.Op)
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.write(b)
		}
		b.WriteByte(')')
	}
}

func formatValue(v any, t types.DataType) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *big.Int:
		return FormatDecimal(x, t.Scale)
	case string:
		return x
	case int32:
		if t.Kind == types.Date {
			return FormatDate(x)
		}
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// FormatDecimal prints an unscaled value at a scale ("-12.34").
func FormatDecimal(u *big.Int, scale int) string {
	s := new(big.Int).Abs(u).String()
	neg := u.Sign() < 0
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
