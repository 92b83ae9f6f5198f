package expr

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators/types"
)

// ErrUnsupported marks expressions that are valid Spark but that the
// reference evaluator does not implement (Validate wraps it).
var ErrUnsupported = errors.New("not supported by the reference evaluator")

// Validate type-checks e against the schema of the batches it will run on.
// It checks, bottom-up, that every column index exists and its Arrow type
// maps (types.FromArrow) to the column's Type; that every literal's Go
// value matches its Type (see Expr) and decimals fit their precision; and
// that every operation has a legal number and types of arguments and a
// result Type consistent with Spark's typing: comparison operands of the
// same type (decimals of any precision and scale), boolean logic, decimal
// arithmetic typed as types.Arithmetic says, casts that types.Cast allows,
// and so on (see the rules in validateOp). An argument of the null type
// (an untyped NULL literal) is accepted wherever a value is.
//
// Validate also rejects what the reference evaluator cannot run: types
// other than boolean, int, bigint, double, decimal, date, timestamp (UTC),
// string and null, and the casts listed as unsupported in cast.go; those
// errors wrap ErrUnsupported. Errors name the operation, the expression
// and the offending argument.
func Validate(e *Expr, schema *arrow.Schema) error {
	if schema == nil {
		return fmt.Errorf("expr: Validate: nil schema")
	}
	return validateTree(e, schema)
}

func validateTree(e *Expr, schema *arrow.Schema) error {
	if e == nil {
		return fmt.Errorf("expr: nil expression")
	}
	for i, a := range e.Args {
		if a == nil {
			return fmt.Errorf("expr: %s: argument %d is nil", e.Op, i)
		}
		if err := validateTree(a, schema); err != nil {
			return err
		}
	}
	if !evaluable(e.Type) {
		return nodeErr(e, "result type %s: %w", e.Type, ErrUnsupported)
	}
	if err := validateOp(e, schema); err != nil {
		return nodeErr(e, "%w", err)
	}
	return nil
}

// nodeErr prefixes an error with the operation and the expression.
func nodeErr(e *Expr, format string, a ...any) error {
	return fmt.Errorf("expr: %s in %s: %w", e.Op, safeString(e), fmt.Errorf(format, a...))
}

// safeString prints e, abbreviated, even when it is malformed (String
// indexes Args by the operation's arity).
func safeString(e *Expr) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("%s(<%d args>)", e.Op, len(e.Args))
		}
	}()
	s = e.String()
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// evaluable reports whether the evaluator handles values of type t.
func evaluable(t types.DataType) bool {
	switch t.Kind {
	case types.Boolean, types.Int, types.Long, types.Double, types.Date, types.Timestamp, types.String, types.Null:
		return true
	case types.Decimal:
		_, err := types.NewDecimal(t.Precision, t.Scale)
		return err == nil
	}
	return false
}

var (
	boolT = types.BooleanType
	intT  = types.IntType
	longT = types.LongType
	dateT = types.DateType
	strT  = types.StringType
)

// arity checks the number of arguments: exactly lo when hi == lo, at least
// lo when hi < 0, else within [lo, hi].
func arity(e *Expr, lo, hi int) error {
	n := len(e.Args)
	switch {
	case hi == lo && n != lo:
		return fmt.Errorf("takes %d argument(s), got %d", lo, n)
	case hi < 0 && n < lo:
		return fmt.Errorf("takes at least %d arguments, got %d", lo, n)
	case hi > lo && (n < lo || n > hi):
		return fmt.Errorf("takes %d to %d arguments, got %d", lo, hi, n)
	}
	return nil
}

// argKind checks that argument i is of one of the kinds (or null).
func argKind(e *Expr, i int, kinds ...types.Kind) error {
	a := e.Args[i]
	if a.Type.Kind == types.Null {
		return nil
	}
	for _, k := range kinds {
		if a.Type.Kind == k {
			return nil
		}
	}
	want := ""
	for j, k := range kinds {
		if j > 0 {
			want += " or "
		}
		want += k.String()
	}
	return fmt.Errorf("argument %d (%s) has type %s, want %s", i, safeString(a), a.Type, want)
}

// argIs checks that argument i has exactly type t (or null).
func argIs(e *Expr, i int, t types.DataType) error {
	a := e.Args[i]
	if a.Type != t && a.Type.Kind != types.Null {
		return fmt.Errorf("argument %d (%s) has type %s, want %s", i, safeString(a), a.Type, t)
	}
	return nil
}

// resultIs checks the node's own Type.
func resultIs(e *Expr, t types.DataType) error {
	if e.Type != t {
		return fmt.Errorf("result type is %s, want %s", e.Type, t)
	}
	return nil
}

// comparable checks that arguments i and j can be compared: the same kind
// (decimals of any precision and scale), or one of them null.
func comparable(e *Expr, i, j int) error {
	a, b := e.Args[i].Type, e.Args[j].Type
	if a.Kind == types.Null || b.Kind == types.Null || a.Kind == b.Kind {
		return nil
	}
	return fmt.Errorf("arguments %d (%s) and %d (%s) are not comparable: %s vs %s",
		i, safeString(e.Args[i]), j, safeString(e.Args[j]), a, b)
}

// all runs checks in order and returns the first error.
func all(errs ...func() error) error {
	for _, f := range errs {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

var arithSymbols = map[Op]string{OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpMod: "%"}

// validateOp checks one node whose arguments are valid.
func validateOp(e *Expr, schema *arrow.Schema) error {
	switch e.Op {
	case OpColumn:
		return validateColumn(e, schema)
	case OpLiteral:
		if len(e.Args) != 0 {
			return fmt.Errorf("a literal takes no arguments, got %d", len(e.Args))
		}
		return validateLiteral(e.Value, e.Type)
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpEqNullSafe:
		return all(func() error { return arity(e, 2, 2) }, func() error { return resultIs(e, boolT) },
			func() error { return comparable(e, 0, 1) })
	case OpAnd, OpOr:
		return all(func() error { return arity(e, 2, 2) }, func() error { return resultIs(e, boolT) },
			func() error { return argKind(e, 0, types.Boolean) }, func() error { return argKind(e, 1, types.Boolean) })
	case OpNot:
		return all(func() error { return arity(e, 1, 1) }, func() error { return resultIs(e, boolT) },
			func() error { return argKind(e, 0, types.Boolean) })
	case OpIsNull, OpIsNotNull:
		return all(func() error { return arity(e, 1, 1) }, func() error { return resultIs(e, boolT) })
	case OpIn:
		return validateIn(e)
	case OpCaseWhen, OpIf, OpCoalesce:
		return validateConditional(e)
	case OpAdd, OpSub, OpMul, OpDiv, OpMod:
		return validateArith(e)
	case OpNeg:
		return all(func() error { return arity(e, 1, 1) },
			func() error { return argIs(e, 0, e.Type) },
			func() error {
				switch e.Type.Kind {
				case types.Int, types.Long, types.Double, types.Decimal:
					return nil
				}
				return fmt.Errorf("negation of %s is not supported", e.Type)
			})
	case OpCast:
		return validateCast(e)
	case OpCheckOverflow:
		return all(func() error { return arity(e, 1, 1) }, func() error { return argKind(e, 0, types.Decimal) },
			func() error { _, err := types.CheckOverflow(e.Type); return err })
	case OpPromotePrecision:
		return all(func() error { return arity(e, 1, 1) }, func() error { return argIs(e, 0, e.Type) })
	case OpUnscaledValue:
		return all(func() error { return arity(e, 1, 1) }, func() error { return resultIs(e, longT) },
			func() error {
				if e.Args[0].Type.Kind == types.Null {
					return nil
				}
				_, err := types.UnscaledValue(e.Args[0].Type)
				return err
			})
	case OpMakeDecimal:
		return all(func() error { return arity(e, 1, 1) }, func() error { return argIs(e, 0, longT) },
			func() error { _, err := types.MakeDecimal(e.Type.Precision, e.Type.Scale); return err })
	case OpYear, OpMonth, OpDayOfMonth:
		return all(func() error { return arity(e, 1, 1) }, func() error { return resultIs(e, intT) },
			func() error { return argIs(e, 0, dateT) })
	case OpDateAdd, OpDateSub:
		return all(func() error { return arity(e, 2, 2) }, func() error { return resultIs(e, dateT) },
			func() error { return argIs(e, 0, dateT) }, func() error { return argIs(e, 1, intT) })
	case OpStartsWith, OpEndsWith, OpContains:
		return all(func() error { return arity(e, 2, 2) }, func() error { return resultIs(e, boolT) },
			func() error { return argIs(e, 0, strT) }, func() error { return argIs(e, 1, strT) })
	case OpLike:
		return validateLike(e)
	case OpSubstring:
		return all(func() error { return arity(e, 3, 3) }, func() error { return resultIs(e, strT) },
			func() error { return argIs(e, 0, strT) }, func() error { return argIs(e, 1, intT) },
			func() error { return argIs(e, 2, intT) })
	case OpLength:
		return all(func() error { return arity(e, 1, 1) }, func() error { return resultIs(e, intT) },
			func() error { return argIs(e, 0, strT) })
	}
	return fmt.Errorf("unknown operation %d", uint8(e.Op))
}

func validateColumn(e *Expr, schema *arrow.Schema) error {
	if len(e.Args) != 0 {
		return fmt.Errorf("a column reference takes no arguments, got %d", len(e.Args))
	}
	if e.Col < 0 || e.Col >= schema.NumFields() {
		return fmt.Errorf("column index %d out of range: the input has %d columns", e.Col, schema.NumFields())
	}
	f := schema.Field(e.Col)
	t, err := types.FromArrow(f.Type)
	if err != nil {
		return fmt.Errorf("column %d (%s): %w", e.Col, f.Name, err)
	}
	if t != e.Type {
		return fmt.Errorf("column %d (%s) has Arrow type %s (%s), but the expression says %s", e.Col, f.Name, f.Type, t, e.Type)
	}
	if !readableArrow(f.Type) {
		return fmt.Errorf("column %d (%s): Arrow type %s: %w", e.Col, f.Name, f.Type, ErrUnsupported)
	}
	return nil
}

// readableArrow reports the Arrow types rowReader handles.
func readableArrow(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.DATE32, arrow.TIMESTAMP,
		arrow.DECIMAL64, arrow.DECIMAL128, arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.NULL:
		return true
	case arrow.DICTIONARY:
		switch t.(*arrow.DictionaryType).ValueType.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.DATE32, arrow.TIMESTAMP,
			arrow.DECIMAL64, arrow.DECIMAL128:
			return true
		}
		return false
	}
	return false
}

// validateLiteral checks a literal's Go value against its type.
func validateLiteral(v any, t types.DataType) error {
	if v == nil {
		return nil
	}
	ok := false
	switch t.Kind {
	case types.Boolean:
		_, ok = v.(bool)
	case types.Int, types.Date:
		_, ok = v.(int32)
	case types.Long, types.Timestamp:
		_, ok = v.(int64)
	case types.Double:
		_, ok = v.(float64)
	case types.String:
		_, ok = v.(string)
	case types.Decimal:
		u, k := v.(*big.Int)
		if k && u == nil {
			return fmt.Errorf("decimal literal has a nil *big.Int: use a nil Value for NULL")
		}
		if k && !fitsPrecision(u, t.Precision) {
			return fmt.Errorf("decimal literal %s does not fit %s", FormatDecimal(u, t.Scale), t)
		}
		ok = k
	case types.Null:
		return fmt.Errorf("a literal of type %s must have a nil value, got %v (%T)", t, v, v)
	}
	if !ok {
		return fmt.Errorf("literal of type %s has Go value %v of type %T", t, v, v)
	}
	return nil
}

func validateIn(e *Expr) error {
	if err := all(func() error { return arity(e, 2, -1) }, func() error { return resultIs(e, boolT) }); err != nil {
		return err
	}
	for i := 1; i < len(e.Args); i++ {
		if e.Args[i].Op != OpLiteral {
			return fmt.Errorf("list item %d (%s) is not a literal", i, safeString(e.Args[i]))
		}
		if err := comparable(e, 0, i); err != nil {
			return err
		}
	}
	return nil
}

// validateConditional checks CASE, IF and coalesce: conditions boolean,
// every value of the result type (or null).
func validateConditional(e *Expr) error {
	var isCond func(i int) bool
	switch e.Op {
	case OpCaseWhen:
		if err := arity(e, 2, -1); err != nil {
			return err
		}
		isCond = func(i int) bool { return i%2 == 0 && i+1 < len(e.Args) }
	case OpIf:
		if err := arity(e, 3, 3); err != nil {
			return err
		}
		isCond = func(i int) bool { return i == 0 }
	default:
		if err := arity(e, 1, -1); err != nil {
			return err
		}
		isCond = func(int) bool { return false }
	}
	for i := range e.Args {
		var err error
		if isCond(i) {
			err = argKind(e, i, types.Boolean)
		} else {
			err = argIs(e, i, e.Type)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// validateArith checks +, -, *, /, %: for a decimal result both operands
// are decimals and the result is types.Arithmetic's; otherwise (int,
// bigint, double) both operands have the result type.
func validateArith(e *Expr) error {
	if err := arity(e, 2, 2); err != nil {
		return err
	}
	switch e.Type.Kind {
	case types.Decimal:
		if err := all(func() error { return argKind(e, 0, types.Decimal) },
			func() error { return argKind(e, 1, types.Decimal) }); err != nil {
			return err
		}
		want, err := types.Arithmetic(arithSymbols[e.Op], e.Args[0].Type, e.Args[1].Type)
		if err != nil {
			return err
		}
		if want != e.Type {
			return fmt.Errorf("result type is %s, but Spark types %s %s %s as %s",
				e.Type, e.Args[0].Type, arithSymbols[e.Op], e.Args[1].Type, want)
		}
		return nil
	case types.Int, types.Long, types.Double:
		return all(func() error { return argIs(e, 0, e.Type) }, func() error { return argIs(e, 1, e.Type) })
	}
	return fmt.Errorf("arithmetic with result type %s is not supported", e.Type)
}

func validateCast(e *Expr) error {
	if err := arity(e, 1, 1); err != nil {
		return err
	}
	from := e.Args[0].Type
	if _, err := types.Cast(from, e.Type); err != nil {
		return err
	}
	if _, err := castFunc(from, e.Type); err != nil {
		return err
	}
	return nil
}

func validateLike(e *Expr) error {
	if err := all(func() error { return arity(e, 2, 2) }, func() error { return resultIs(e, boolT) },
		func() error { return argIs(e, 0, strT) }, func() error { return argIs(e, 1, strT) }); err != nil {
		return err
	}
	p := e.Args[1]
	if p.Op != OpLiteral {
		return fmt.Errorf("argument 1 (%s): the pattern must be a literal", safeString(p))
	}
	if s, ok := p.Value.(string); ok {
		if _, err := parseLike(s); err != nil {
			return err
		}
	}
	return nil
}
