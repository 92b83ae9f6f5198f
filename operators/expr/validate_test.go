package expr

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators/types"
)

func testSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "ntz", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	}, nil)
}

func TestValidateAccepts(t *testing.T) {
	s := testSchema()
	i := Column(0, "i", tInt)
	d := Column(2, "d", tDec(20, 2))
	good := []*Expr{
		i,
		Column(1, "s", tStr),
		Column(5, "ls", tStr),
		Call(OpEq, tBool, i, i32(3)),
		Call(OpLt, tBool, d, decLit("1.5", 2, 1)), // decimals of different scales compare
		Call(OpIn, tBool, i, i32(1), null(tInt), null(tNull)),
		Call(OpAnd, tBool, Call(OpIsNull, tBool, i), null(tNull)),
		Call(OpCaseWhen, tStr, Call(OpGt, tBool, i, i32(0)), Column(1, "s", tStr), null(tNull)),
		Call(OpAdd, tDec(21, 2), d, d),
		Call(OpCheckOverflow, tDec(10, 2), Call(OpMul, tDec(38, 4), d, d)),
		Call(OpLike, tBool, Column(1, "s", tStr), str(`a\%%`)),
		Call(OpSubstring, tStr, Column(5, "ls", tStr), i, i32(2)),
		Call(OpCast, tStr, d),
		Literal(nil, tNull),
	}
	for _, e := range good {
		if err := Validate(e, s); err != nil {
			t.Errorf("Validate(%s): %v", e, err)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	s := testSchema()
	i := Column(0, "i", tInt)
	d := Column(2, "d", tDec(20, 2))
	cases := []struct {
		name        string
		e           *Expr
		want        string // substring of the error
		unsupported bool
	}{
		{"nil", nil, "nil expression", false},
		{"column out of range", Column(9, "x", tInt), "column index 9 out of range", false},
		{"negative column", Column(-1, "x", tInt), "out of range", false},
		{"column type", Column(0, "i", tLong), "but the expression says bigint", false},
		{"column decimal type", Column(2, "d", tDec(20, 3)), "decimal(20,3)", false},
		{"tinyint column", Column(3, "b", types.ByteType), "tinyint", true},
		{"timestamp_ntz column", Column(4, "ntz", types.TimestampNTZType), "timestamp_ntz", true},
		{"literal Go type", Literal(int64(1), tInt), "Go value 1 of type int64", false},
		{"decimal literal too wide", Literal(big.NewInt(1000), tDec(3, 0)), "does not fit decimal(3,0)", false},
		{"nil big.Int", Literal((*big.Int)(nil), tDec(3, 0)), "nil *big.Int", false},
		{"null literal with value", Literal(int32(1), tNull), "must have a nil value", false},
		{"negative scale", Literal(big.NewInt(1), types.DecimalOf(5, -2)), "decimal(5,-2)", true},
		{"precision 39", Literal(big.NewInt(1), types.DecimalOf(39, 0)), "decimal(39,0)", true},
		{"not comparable", Call(OpEq, tBool, i, str("1")), "not comparable: int vs string", false},
		{"comparison arity", Call(OpEq, tBool, i), "takes 2 argument(s), got 1", false},
		{"comparison result", Call(OpEq, tInt, i, i), "result type is int, want boolean", false},
		{"and of int", Call(OpAnd, tBool, i, b(true)), "argument 0 (i) has type int, want boolean", false},
		{"not arity", Call(OpNot, tBool), "takes 1 argument(s), got 0", false},
		{"in non-literal", Call(OpIn, tBool, i, i), "list item 1 (i) is not a literal", false},
		{"in empty", Call(OpIn, tBool, i), "at least 2", false},
		{"in type", Call(OpIn, tBool, i, str("x")), "not comparable", false},
		{"case branch type", Call(OpCaseWhen, tInt, b(true), str("x")), "argument 1 (x) has type string, want int", false},
		{"case arity", Call(OpCaseWhen, tInt, b(true)), "at least 2", false},
		{"if cond", Call(OpIf, tInt, i, i, i), "want boolean", false},
		{"coalesce empty", Call(OpCoalesce, tInt), "at least 1", false},
		{"decimal add type", Call(OpAdd, tDec(20, 2), d, d), "Spark types decimal(20,2) + decimal(20,2) as decimal(21,2)", false},
		{"decimal with int operand", Call(OpAdd, tDec(21, 2), d, i), "argument 1 (i) has type int, want decimal", false},
		{"int plus bigint", Call(OpAdd, tLong, i, i64(1)), "argument 0 (i) has type int, want bigint", false},
		{"string arithmetic", Call(OpAdd, tStr, str("a"), str("b")), "not supported", false},
		{"neg string", Call(OpNeg, tStr, str("a")), "negation of string", false},
		{"neg type", Call(OpNeg, tLong, i), "want bigint", false},
		{"cast forbidden", Call(OpCast, tInt, Literal(int32(0), tDate)), "cannot cast date to int", false},
		{"cast string to timestamp", Call(OpCast, tTS, str("2020-01-01")), "cast from string to timestamp", true},
		{"check overflow arg", Call(OpCheckOverflow, tDec(5, 2), i), "want decimal", false},
		{"check overflow target", Call(OpCheckOverflow, tInt, d), "target must be decimal, got int", false},
		{"promote precision type", Call(OpPromotePrecision, tDec(21, 2), d), "want decimal(21,2)", false},
		{"unscaled value p20", Call(OpUnscaledValue, tLong, d), "precision <= 18", false},
		{"make decimal from int", Call(OpMakeDecimal, tDec(5, 2), i), "want bigint", false},
		{"year of string", Call(OpYear, tInt, str("2020")), "want date", false},
		{"date_add days bigint", Call(OpDateAdd, tDate, Literal(int32(0), tDate), i64(1)), "want int", false},
		{"like non-literal", Call(OpLike, tBool, str("a"), Column(1, "s", tStr)), "pattern must be a literal", false},
		{"like bad escape", Call(OpLike, tBool, str("a"), str(`a\b`)), `not allowed to precede "b"`, false},
		{"like trailing escape", Call(OpLike, tBool, str("a"), str(`a\`)), "not allowed to end the pattern", false},
		{"substring pos type", Call(OpSubstring, tStr, str("a"), i64(1), i32(1)), "argument 1 (1) has type bigint, want int", false},
		{"length result", Call(OpLength, tLong, str("a")), "want int", false},
		{"nil argument", Call(OpNot, tBool, nil), "argument 0 is nil", false},
		{"unknown op", &Expr{Op: Op(200), Type: tBool}, "unknown operation 200", false},
		{"nested error names the inner op", Call(OpNot, tBool, Call(OpAnd, tBool, i, i)), "AND", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.e, s)
			if err == nil {
				t.Fatalf("Validate(%v) = nil, want an error containing %q", c.e, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate error %q does not contain %q", err, c.want)
			}
			if got := errors.Is(err, ErrUnsupported); got != c.unsupported {
				t.Errorf("errors.Is(%q, ErrUnsupported) = %v, want %v", err, got, c.unsupported)
			}
		})
	}
	if err := Validate(i, nil); err == nil {
		t.Error("Validate with a nil schema succeeded")
	}
}

func TestEvalRejectsInvalid(t *testing.T) {
	rec := emptyRecord(1)
	defer rec.Release()
	if _, err := Eval(Call(OpEq, tBool, i32(1)), rec, nil); err == nil || !strings.Contains(err.Error(), "takes 2") {
		t.Errorf("Eval of a malformed tree: %v", err)
	}
	if _, err := Eval(i32(1), nil, nil); err == nil {
		t.Error("Eval of a nil record succeeded")
	}
}
