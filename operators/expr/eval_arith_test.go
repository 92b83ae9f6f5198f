package expr

import (
	"math"
	"math/big"
	"testing"

	"github.com/hados-io/hados/operators/types"
)

func TestIntegerArithmetic(t *testing.T) {
	ar := func(op Op, x, y *Expr) *Expr { return Call(op, x.Type, x, y) }
	runEvalCases(t, []evalCase{
		{"int max+1 wraps", ar(OpAdd, i32(math.MaxInt32), i32(1)), int32(math.MinInt32)},
		{"int min-1 wraps", ar(OpSub, i32(math.MinInt32), i32(1)), int32(math.MaxInt32)},
		{"int max*2 wraps", ar(OpMul, i32(math.MaxInt32), i32(2)), int32(-2)},
		{"bigint min-1 wraps", ar(OpSub, i64(math.MinInt64), i64(1)), int64(math.MaxInt64)},
		{"bigint max*max", ar(OpMul, i64(math.MaxInt64), i64(math.MaxInt64)), int64(1)},
		{"7 div 2", ar(OpDiv, i32(7), i32(2)), int32(3)},
		{"-7 div 2 truncates", ar(OpDiv, i32(-7), i32(2)), int32(-3)},
		{"div by zero", ar(OpDiv, i64(7), i64(0)), nil},
		{"min div -1 wraps", ar(OpDiv, i64(math.MinInt64), i64(-1)), int64(math.MinInt64)},
		{"-7 % 3", ar(OpMod, i32(-7), i32(3)), int32(-1)},
		{"7 % -3", ar(OpMod, i32(7), i32(-3)), int32(1)},
		{"% zero", ar(OpMod, i32(7), i32(0)), nil},
		{"min % -1", ar(OpMod, i32(math.MinInt32), i32(-1)), int32(0)},
		{"null + 1", ar(OpAdd, null(tInt), i32(1)), nil},
		{"neg min wraps", Call(OpNeg, tInt, i32(math.MinInt32)), int32(math.MinInt32)},
		{"neg 5", Call(OpNeg, tLong, i64(5)), int64(-5)},
	})
}

func TestDoubleArithmetic(t *testing.T) {
	ar := func(op Op, x, y float64) *Expr { return Call(op, tDbl, f64(x), f64(y)) }
	negz := math.Copysign(0, -1)
	runEvalCases(t, []evalCase{
		{"0.1+0.2", ar(OpAdd, 0.1, 0.2), 0.30000000000000004},
		{"inf-inf", ar(OpSub, math.Inf(1), math.Inf(1)), math.NaN()},
		{"max*2", ar(OpMul, math.MaxFloat64, 2), math.Inf(1)},
		{"1/0 null", ar(OpDiv, 1, 0), nil},
		{"1/-0 null", ar(OpDiv, 1, negz), nil},
		{"0/0 null", ar(OpDiv, 0, 0), nil},
		{"NaN/1", ar(OpDiv, math.NaN(), 1), math.NaN()},
		{"1/3", ar(OpDiv, 1, 3), 1.0 / 3},
		{"5.5%2", ar(OpMod, 5.5, 2), 1.5},
		{"-5.5%2", ar(OpMod, -5.5, 2), -1.5},
		{"1%0 null", ar(OpMod, 1, 0), nil},
		{"inf%2", ar(OpMod, math.Inf(1), 2), math.NaN()},
		{"neg 0", Call(OpNeg, tDbl, f64(0)), negz},
	})
}

// decArith builds x op y typed as Spark types it.
func decArith(t *testing.T, op Op, x, y *Expr) *Expr {
	t.Helper()
	rt, err := types.Arithmetic(arithSymbols[op], x.Type, y.Type)
	if err != nil {
		t.Fatal(err)
	}
	return Call(op, rt, x, y)
}

func TestDecimalArithmetic(t *testing.T) {
	max38 := new(big.Int).Sub(pow10(38), big.NewInt(1))
	d38 := func(u *big.Int, s int) *Expr { return Literal(u, tDec(38, s)) }
	type tc struct {
		name     string
		op       Op
		x, y     *Expr
		wantType types.DataType
		want     any // *big.Int unscaled at wantType's scale, or nil
	}
	cases := []tc{
		{"999.99+0.01", OpAdd, decLit("999.99", 5, 2), decLit("0.01", 5, 2), tDec(6, 2), decVal("1000.00", 2)},
		{"-5.5-5.5", OpSub, decLit("-5.5", 3, 1), decLit("5.5", 3, 1), tDec(4, 1), decVal("-11.0", 1)},
		{"mixed scales", OpAdd, decLit("1.5", 2, 1), decLit("0.25", 3, 2), tDec(4, 2), decVal("1.75", 2)},
		{"p38 max+0 fits", OpAdd, d38(max38, 0), d38(big.NewInt(0), 0), tDec(38, 0), max38},
		{"p38 max+1 overflows to null", OpAdd, d38(max38, 0), d38(big.NewInt(1), 0), tDec(38, 0), nil},
		{"p38 -max-1 overflows to null", OpSub, d38(new(big.Int).Neg(max38), 0), d38(big.NewInt(1), 0), tDec(38, 0), nil},
		// decimal(38,38)+decimal(38,0) is decimal(38,6): the sum is rounded HALF_UP.
		{"add loses scale, .5 up", OpAdd, d38(decVal("0.0000005", 38), 38), d38(big.NewInt(0), 0), tDec(38, 6), big.NewInt(1)},
		{"add loses scale, -.5 away", OpAdd, d38(decVal("-0.0000005", 38), 38), d38(big.NewInt(0), 0), tDec(38, 6), big.NewInt(-1)},
		{"add loses scale, .49 down", OpAdd, d38(decVal("0.00000049", 38), 38), d38(big.NewInt(0), 0), tDec(38, 6), big.NewInt(0)},
		{"1.5*1.5", OpMul, decLit("1.5", 3, 1), decLit("1.5", 3, 1), tDec(7, 2), decVal("2.25", 2)},
		{"-1.5*0.1", OpMul, decLit("-1.5", 3, 1), decLit("0.1", 2, 1), tDec(6, 2), decVal("-0.15", 2)},
		{"mul loses scale .5 up", OpMul, d38(decVal("0.0000005", 10), 10), d38(decVal("1", 10), 10), tDec(38, 6), big.NewInt(1)},
		{"mul overflow null", OpMul, d38(max38, 0), decLit("2", 1, 0), tDec(38, 0), nil},
		// Spark rounds the product to 38 digits first: exact
		// 1234567890246911794.01234550049999999999995 becomes
		// …0123455005 and then …012346 at scale 6 (a single rounding
		// would give …012345). Checked with Python's decimal module.
		{"mul double rounding", OpMul, d38(bigOf("12345678901234550049999999995"), 10), d38(bigOf("10000000001"), 10),
			tDec(38, 6), bigOf("1234567890246911794012346")},
		{"1/3", OpDiv, decLit("1", 3, 0), decLit("3", 3, 0), tDec(9, 6), decVal("0.333333", 6)},
		{"2/3 half up", OpDiv, decLit("2", 3, 0), decLit("3", 3, 0), tDec(9, 6), decVal("0.666667", 6)},
		{"-2/3 half away", OpDiv, decLit("-2", 3, 0), decLit("3", 3, 0), tDec(9, 6), decVal("-0.666667", 6)},
		{"1/8 exact .125", OpDiv, decLit("1", 1, 0), decLit("8", 1, 0), tDec(7, 6), decVal("0.125", 6)},
		{"div by zero null", OpDiv, decLit("1", 3, 0), decLit("0.00", 3, 2), tDec(11, 6), nil},
		{"0/x", OpDiv, decLit("0", 3, 0), decLit("7", 3, 0), tDec(9, 6), big.NewInt(0)},
		// q = 9734132932610276896098376304546890535 / 139025547 is
		// 70016864832837355396978774732.2935584997…; MathContext(38)
		// makes it …732.293558500, which rounds to …732.293559 (a single
		// rounding would give …732.293558). Checked with Python's decimal.
		{"div double rounding", OpDiv, d38(bigOf("9734132932610276896098376304546890535"), 0), Literal(big.NewInt(139025547), tDec(10, 0)),
			tDec(38, 6), bigOf("70016864832837355396978774732293559")},
		{"div overflow null", OpDiv, d38(max38, 0), decLit("0.1", 1, 1), tDec(38, 6), nil},
		{"10.25%3.0", OpMod, decLit("10.25", 5, 2), decLit("3.0", 3, 1), tDec(4, 2), decVal("1.25", 2)},
		{"-10.25%3.0", OpMod, decLit("-10.25", 5, 2), decLit("3.0", 3, 1), tDec(4, 2), decVal("-1.25", 2)},
		{"10.25%-3.0", OpMod, decLit("10.25", 5, 2), decLit("-3.0", 3, 1), tDec(4, 2), decVal("1.25", 2)},
		{"% zero null", OpMod, decLit("10.25", 5, 2), decLit("0", 1, 0), tDec(3, 2), nil},
		{"null operand", OpAdd, null(tDec(5, 2)), decLit("1", 1, 0), tDec(6, 2), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := decArith(t, c.op, c.x, c.y)
			if e.Type != c.wantType {
				t.Fatalf("%s: type %s, want %s", e, e.Type, c.wantType)
			}
			var want any
			if c.want != nil {
				want = c.want
			}
			if got := evalOne(t, e); !sameValue(got, want) {
				t.Errorf("%s = %v, want %v", e, show(got), show(want))
			}
		})
	}
}

func TestDecimalFunctions(t *testing.T) {
	co := func(x *Expr, p, s int) *Expr { return Call(OpCheckOverflow, tDec(p, s), x) }
	runEvalCases(t, []evalCase{
		{"CheckOverflow 1.245 half up", co(decLit("1.245", 5, 3), 4, 2), decVal("1.25", 2)},
		{"CheckOverflow -1.245 half away", co(decLit("-1.245", 5, 3), 4, 2), decVal("-1.25", 2)},
		{"CheckOverflow 1.244 down", co(decLit("1.244", 5, 3), 4, 2), decVal("1.24", 2)},
		{"CheckOverflow 999.995 overflows", co(decLit("999.995", 6, 3), 5, 2), nil},
		{"CheckOverflow widen", co(decLit("1.5", 2, 1), 38, 37), decVal("1.5", 37)},
		{"CheckOverflow too many int digits", co(decLit("123", 3, 0), 2, 0), nil},
		{"CheckOverflow null", co(null(tDec(3, 0)), 2, 0), nil},
		{"promote_precision", Call(OpPromotePrecision, tDec(5, 2), decLit("-1.23", 5, 2)), decVal("-1.23", 2)},
		{"UnscaledValue", Call(OpUnscaledValue, tLong, decLit("-1.23", 5, 2)), int64(-123)},
		{"UnscaledValue p18", Call(OpUnscaledValue, tLong, Literal(new(big.Int).Sub(pow10(18), big.NewInt(1)), tDec(18, 0))), int64(999999999999999999)},
		{"MakeDecimal", Call(OpMakeDecimal, tDec(4, 2), i64(-9999)), decVal("-99.99", 2)},
		{"MakeDecimal overflow", Call(OpMakeDecimal, tDec(4, 2), i64(12345)), nil},
		{"MakeDecimal p38", Call(OpMakeDecimal, tDec(38, 0), i64(math.MinInt64)), big.NewInt(math.MinInt64)},
		{"neg decimal", Call(OpNeg, tDec(38, 0), Literal(new(big.Int).Sub(pow10(38), big.NewInt(1)), tDec(38, 0))),
			new(big.Int).Sub(big.NewInt(1), pow10(38))},
	})
}

func TestDecimalRoundingHelpers(t *testing.T) {
	cases := []struct {
		num, den int64
		s        int
		want     int64
	}{
		{5, 10, 0, 1}, {-5, 10, 0, -1}, {4, 10, 0, 0}, {15, 10, 0, 2}, {-15, 10, 0, -2},
		{1, 3, 2, 33}, {2, 3, 2, 67}, {-2, 3, 2, -67}, {5, -10, 0, -1}, {150, 1, -2, 2}, {149, 1, -2, 1},
	}
	for _, c := range cases {
		if got := roundRat(big.NewInt(c.num), big.NewInt(c.den), c.s).Int64(); got != c.want {
			t.Errorf("roundRat(%d/%d, %d) = %d, want %d", c.num, c.den, c.s, got, c.want)
		}
	}
	for _, c := range []struct {
		u    string
		want int
	}{{"0", 1}, {"9", 1}, {"10", 2}, {"-99", 2}, {"100000000000000000000000000000000000000", 39}, {"99999999999999999999999999999999999999", 38}} {
		if got := numDigits(bigOf(c.u)); got != c.want {
			t.Errorf("numDigits(%s) = %d, want %d", c.u, got, c.want)
		}
	}
	// roundSignificant: 2/3 to 3 digits is 0.667 (667 at scale 3); 1234.5 to 4 digits is 1235.
	if u, s := roundSignificant(big.NewInt(2), big.NewInt(3), 3); u.Int64() != 667 || s != 3 {
		t.Errorf("roundSignificant(2/3, 3) = %s e-%d", u, s)
	}
	if u, s := roundSignificant(big.NewInt(12345), big.NewInt(10), 4); u.Int64() != 1235 || s != 0 {
		t.Errorf("roundSignificant(1234.5, 4) = %s e-%d", u, s)
	}
	// 99995 to 4 digits carries into a fifth: 9999.5e1 → 10000e1 = 100000.
	if u, s := roundSignificant(big.NewInt(99995), big.NewInt(1), 4); rescale(u, s, 0).Int64() != 100000 {
		t.Errorf("roundSignificant(99995, 4) = %s e%d, want 100000", u, -s)
	}
}
