package expr

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators/types"
)

func cast(x *Expr, to types.DataType) *Expr { return Call(OpCast, to, x) }

func TestCastFromBooleanAndIntegers(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"true→int", cast(b(true), tInt), int32(1)},
		{"false→bigint", cast(b(false), tLong), int64(0)},
		{"true→double", cast(b(true), tDbl), 1.0},
		{"true→decimal(1,0)", cast(b(true), tDec(1, 0)), big.NewInt(1)},
		{"true→decimal(1,1) overflows", cast(b(true), tDec(1, 1)), nil},
		{"true→string", cast(b(true), tStr), "true"},
		{"true→timestamp is 1µs", cast(b(true), tTS), int64(1)},
		{"0→boolean", cast(i32(0), tBool), false},
		{"-1→boolean", cast(i64(-1), tBool), true},
		{"2^32+5→int wraps", cast(i64(1<<32+5), tInt), int32(5)},
		{"-1→int", cast(i64(-1), tInt), int32(-1)},
		{"max bigint→double rounds", cast(i64(math.MaxInt64), tDbl), 9.223372036854776e18},
		{"123→decimal(5,2)", cast(i32(123), tDec(5, 2)), decVal("123.00", 2)},
		{"1000→decimal(5,2) overflows", cast(i32(1000), tDec(5, 2)), nil},
		{"min bigint→decimal(19,0)", cast(i64(math.MinInt64), tDec(19, 0)), big.NewInt(math.MinInt64)},
		{"1→timestamp", cast(i64(1), tTS), int64(1_000_000)},
		{"max→timestamp saturates", cast(i64(math.MaxInt64), tTS), int64(math.MaxInt64)},
		{"min int→timestamp", cast(i32(math.MinInt32), tTS), int64(math.MinInt32) * 1_000_000},
		{"-5→string", cast(i32(-5), tStr), "-5"},
		{"null→string", cast(null(tInt), tStr), nil},
		{"untyped null→int", cast(null(tNull), tInt), nil},
	})
}

func TestCastFromDouble(t *testing.T) {
	negz := math.Copysign(0, -1)
	runEvalCases(t, []evalCase{
		{"NaN→boolean", cast(f64(math.NaN()), tBool), true},
		{"0→boolean", cast(f64(0), tBool), false},
		{"-0→boolean", cast(f64(negz), tBool), false},
		{"1.9→int truncates", cast(f64(1.9), tInt), int32(1)},
		{"-1.9→int truncates", cast(f64(-1.9), tInt), int32(-1)},
		{"NaN→int", cast(f64(math.NaN()), tInt), int32(0)},
		{"1e10→int saturates", cast(f64(1e10), tInt), int32(math.MaxInt32)},
		{"-1e10→int saturates", cast(f64(-1e10), tInt), int32(math.MinInt32)},
		{"inf→bigint", cast(f64(math.Inf(1)), tLong), int64(math.MaxInt64)},
		{"-inf→bigint", cast(f64(math.Inf(-1)), tLong), int64(math.MinInt64)},
		{"9.3e18→bigint", cast(f64(9.3e18), tLong), int64(math.MaxInt64)},
		{"0.1→decimal(5,2)", cast(f64(0.1), tDec(5, 2)), decVal("0.10", 2)},
		// 1.005 is 1.00499999999999989… in binary, but Spark goes through
		// Double.toString ("1.005") and rounds HALF_UP.
		{"1.005→decimal(5,2) via toString", cast(f64(1.005), tDec(5, 2)), decVal("1.01", 2)},
		{"2.5→decimal(1,0)", cast(f64(2.5), tDec(1, 0)), big.NewInt(3)},
		{"-2.5→decimal(1,0)", cast(f64(-2.5), tDec(1, 0)), big.NewInt(-3)},
		{"1e20→decimal(38,0)", cast(f64(1e20), tDec(38, 0)), bigOf("100000000000000000000")},
		{"123.456→decimal(4,2) overflows", cast(f64(123.456), tDec(4, 2)), nil},
		{"1e308→decimal(38,0)", cast(f64(1e308), tDec(38, 0)), nil},
		{"5e-324→decimal(38,38)", cast(f64(5e-324), tDec(38, 38)), big.NewInt(0)},
		{"NaN→decimal", cast(f64(math.NaN()), tDec(5, 2)), nil},
		{"inf→decimal", cast(f64(math.Inf(1)), tDec(5, 2)), nil},
		{"1.5→timestamp", cast(f64(1.5), tTS), int64(1_500_000)},
		{"-1.5→timestamp", cast(f64(-1.5), tTS), int64(-1_500_000)},
		{"NaN→timestamp", cast(f64(math.NaN()), tTS), nil},
		{"1e300→timestamp saturates", cast(f64(1e300), tTS), int64(math.MaxInt64)},
	})
}

func TestFormatDouble(t *testing.T) {
	cases := []struct {
		d    float64
		want string
	}{
		{1, "1.0"}, {0.1, "0.1"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {-1.5, "-1.5"},
		{100, "100.0"}, {1234567, "1234567.0"}, {9999999, "9999999.0"}, {1e7, "1.0E7"}, {12345678.9, "1.23456789E7"},
		{0.001, "0.001"}, {0.002, "0.002"}, {0.0001, "1.0E-4"}, {123.456, "123.456"}, {1e21, "1.0E21"},
		{1.0 / 3, "0.3333333333333333"}, {2.0 / 3, "0.6666666666666666"}, {math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {math.SmallestNonzeroFloat64, "4.9E-324"},
		{math.MaxFloat64, "1.7976931348623157E308"}, {1e23, "1.0E23"}, {-1e-5, "-1.0E-5"}, {0.30000000000000004, "0.30000000000000004"},
		{2e-3, "0.002"}, {1.0e-3 * 9.99, "0.00999"},
	}
	for _, c := range cases {
		if got := FormatDouble(c.d); got != c.want {
			t.Errorf("FormatDouble(%g) = %q, want %q", c.d, got, c.want)
		}
		if got := evalOne(t, cast(f64(c.d), tStr)); got != c.want {
			t.Errorf("cast(%g as string) = %v, want %q", c.d, got, c.want)
		}
	}
}

func TestCastFromDecimal(t *testing.T) {
	p37 := Literal(new(big.Int).Set(pow10(37)), tDec(38, 0))
	n37 := Literal(new(big.Int).Neg(pow10(37)), tDec(38, 0))
	runEvalCases(t, []evalCase{
		{"0.00→boolean", cast(decLit("0.00", 3, 2), tBool), false},
		{"0.01→boolean", cast(decLit("0.01", 3, 2), tBool), true},
		{"1.99→int truncates", cast(decLit("1.99", 3, 2), tInt), int32(1)},
		{"-1.99→int truncates", cast(decLit("-1.99", 3, 2), tInt), int32(-1)},
		{"12345678901.23→int wraps", cast(decLit("12345678901.23", 13, 2), tInt), int32(-539222987)},
		{"10^37→bigint wraps", cast(p37, tLong), int64(68739955140067328)},
		{"-10^37→bigint wraps", cast(n37, tLong), int64(-68739955140067328)},
		{"1.23→double", cast(decLit("1.23", 5, 2), tDbl), 1.23},
		{"0.1 at scale 38→double", cast(decLit("0.1", 38, 38), tDbl), 0.1},
		{"1.25→decimal(2,1) half up", cast(decLit("1.25", 5, 2), tDec(2, 1)), decVal("1.3", 1)},
		{"-1.25→decimal(2,1) half away", cast(decLit("-1.25", 5, 2), tDec(2, 1)), decVal("-1.3", 1)},
		{"9.99→decimal(2,1) overflows", cast(decLit("9.99", 5, 2), tDec(2, 1)), nil},
		{"1.5→decimal(38,37)", cast(decLit("1.5", 2, 1), tDec(38, 37)), decVal("1.5", 37)},
		{"-0.05→string", cast(decLit("-0.05", 5, 2), tStr), "-0.05"},
		{"1.50→string keeps scale", cast(decLit("1.50", 5, 2), tStr), "1.50"},
		{"7→string", cast(decLit("7", 3, 0), tStr), "7"},
		{"0.000001→string plain", cast(decLit("0.000001", 6, 6), tStr), "0.000001"},
		{"0.0000010→string plain", cast(decLit("0.0000010", 7, 7), tStr), "0.0000010"},
		{"0.0000001→string scientific", cast(decLit("0.0000001", 7, 7), tStr), "1E-7"},
		{"-0.00000010→string scientific", cast(decLit("-0.00000010", 8, 8), tStr), "-1.0E-7"},
		{"-0.0000000123→string", cast(decLit("-0.0000000123", 12, 10), tStr), "-1.23E-8"},
		{"zero at scale 10→string", cast(decLit("0", 38, 10), tStr), "0E-10"},
		{"zero at scale 6→string", cast(decLit("0", 38, 6), tStr), "0.000000"},
		{"p38 max→string", cast(Literal(new(big.Int).Sub(pow10(38), big.NewInt(1)), tDec(38, 0)), tStr), "99999999999999999999999999999999999999"},
		{"1.5→timestamp", cast(decLit("1.5", 5, 2), tTS), int64(1_500_000)},
		{"0.0000015→timestamp truncates", cast(decLit("0.0000015", 7, 7), tTS), int64(1)},
		{"-0.0000015→timestamp truncates", cast(decLit("-0.0000015", 7, 7), tTS), int64(-1)},
	})
}

func TestCastDatesAndTimestamps(t *testing.T) {
	day := func(y, m, d int) int32 { return DaysFromCivil(y, m, d) }
	runEvalCases(t, []evalCase{
		{"date→string", cast(Literal(day(2000, 2, 29), tDate), tStr), "2000-02-29"},
		{"epoch→string", cast(Literal(int32(0), tDate), tStr), "1970-01-01"},
		{"year 1→string", cast(Literal(day(1, 1, 1), tDate), tStr), "0001-01-01"},
		{"date 0→timestamp", cast(Literal(int32(0), tDate), tTS), int64(0)},
		{"date -1→timestamp", cast(Literal(int32(-1), tDate), tTS), int64(-86_400_000_000)},
		{"date max→timestamp overflows", cast(Literal(int32(math.MaxInt32), tDate), tTS), nil},
		{"ts 0→boolean", cast(ts(0), tBool), false},
		{"ts -1→boolean", cast(ts(-1), tBool), true},
		{"ts -1µs→bigint floors", cast(ts(-1), tLong), int64(-1)},
		{"ts 1.5s→bigint", cast(ts(1_500_000), tLong), int64(1)},
		{"ts→int wraps", cast(ts(int64(1<<32+7)*1_000_000), tInt), int32(7)},
		{"ts 1.5s→double", cast(ts(1_500_000), tDbl), 1.5},
		{"ts 1.5s→decimal(5,2)", cast(ts(1_500_000), tDec(5, 2)), decVal("1.50", 2)},
		{"ts -1µs→date", cast(ts(-1), tDate), int32(-1)},
		{"ts 0→date", cast(ts(0), tDate), int32(0)},
		{"ts 0→string", cast(ts(0), tStr), "1970-01-01 00:00:00"},
		{"ts 1.5s→string", cast(ts(1_500_000), tStr), "1970-01-01 00:00:01.5"},
		{"ts -1µs→string", cast(ts(-1), tStr), "1969-12-31 23:59:59.999999"},
		{"ts→string ms", cast(ts(86_400_000_000+3_723_123_000), tStr), "1970-01-02 01:02:03.123"},
	})
}

func TestCastFromString(t *testing.T) {
	day := func(y, m, d int) int32 { return DaysFromCivil(y, m, d) }
	runEvalCases(t, []evalCase{
		{"' 12 '→int", cast(str(" 12 "), tInt), int32(12)},
		{"tab 42 newline→int", cast(str("\t42\n"), tInt), int32(42)},
		{"'1.9'→int drops fraction", cast(str("1.9"), tInt), int32(1)},
		{"'-1.9'→int", cast(str("-1.9"), tInt), int32(-1)},
		{"'.'→int is 0", cast(str("."), tInt), int32(0)},
		{"'1.'→int", cast(str("1."), tInt), int32(1)},
		{"'1.x'→int", cast(str("1.x"), tInt), nil},
		{"'+7'→int", cast(str("+7"), tInt), int32(7)},
		{"'1e3'→int", cast(str("1e3"), tInt), nil},
		{"'abc'→int", cast(str("abc"), tInt), nil},
		{"''→int", cast(str(""), tInt), nil},
		{"'+'→int", cast(str("+"), tInt), nil},
		{"'1 2'→int", cast(str("1 2"), tInt), nil},
		{"'2147483648'→int overflows", cast(str("2147483648"), tInt), nil},
		{"'-2147483648'→int", cast(str("-2147483648"), tInt), int32(math.MinInt32)},
		{"max→bigint", cast(str("9223372036854775807"), tLong), int64(math.MaxInt64)},
		{"max+1→bigint overflows", cast(str("9223372036854775808"), tLong), nil},
		{"arabic digit→int", cast(str("١"), tInt), nil},
		{"'1.5'→double", cast(str("1.5"), tDbl), 1.5},
		{"' 1e3 '→double", cast(str(" 1e3 "), tDbl), 1000.0},
		{"'1d'→double", cast(str("1d"), tDbl), 1.0},
		{"'0x1p3'→double", cast(str("0x1p3"), tDbl), 8.0},
		{"'0x10'→double needs p", cast(str("0x10"), tDbl), nil},
		{"'NaN'→double", cast(str("NaN"), tDbl), math.NaN()},
		{"'-Infinity'→double", cast(str("-Infinity"), tDbl), math.Inf(-1)},
		{"'inf'→double", cast(str("inf"), tDbl), math.Inf(1)},
		{"'-INF'→double", cast(str("-INF"), tDbl), math.Inf(-1)},
		{"'nan'→double", cast(str("nan"), tDbl), math.NaN()},
		{"'1e400'→double", cast(str("1e400"), tDbl), math.Inf(1)},
		{"'.5'→double", cast(str(".5"), tDbl), 0.5},
		{"'5.'→double", cast(str("5."), tDbl), 5.0},
		{"'.'→double", cast(str("."), tDbl), nil},
		{"'1_0'→double", cast(str("1_0"), tDbl), nil},
		{"'Infinityx'→double", cast(str("Infinityx"), tDbl), nil},
		{"''→double", cast(str(""), tDbl), nil},
		{"'1.005'→decimal(5,2)", cast(str("1.005"), tDec(5, 2)), decVal("1.01", 2)},
		{"'-1.005'→decimal(5,2)", cast(str("-1.005"), tDec(5, 2)), decVal("-1.01", 2)},
		{"' 12.3 '→decimal(5,2)", cast(str(" 12.3 "), tDec(5, 2)), decVal("12.30", 2)},
		{"'1e2'→decimal(5,2)", cast(str("1e2"), tDec(5, 2)), decVal("100.00", 2)},
		{"'1e3'→decimal(5,2) overflows", cast(str("1e3"), tDec(5, 2)), nil},
		{"'1e-10'→decimal(5,2)", cast(str("1e-10"), tDec(5, 2)), big.NewInt(0)},
		{"huge negative exponent", cast(str("1e-1000000000"), tDec(5, 2)), big.NewInt(0)},
		{"huge exponent", cast(str("1e1000000000"), tDec(38, 0)), nil},
		{"'+.5'→decimal", cast(str("+.5"), tDec(5, 2)), decVal("0.50", 2)},
		{"'1.5d'→decimal", cast(str("1.5d"), tDec(5, 2)), nil},
		{"'abc'→decimal", cast(str("abc"), tDec(5, 2)), nil},
		{"'true'→boolean", cast(str("true"), tBool), true},
		{"' YES '→boolean", cast(str(" YES "), tBool), true},
		{"'t'→boolean", cast(str("t"), tBool), true},
		{"'1'→boolean", cast(str("1"), tBool), true},
		{"'0'→boolean", cast(str("0"), tBool), false},
		{"'No'→boolean", cast(str("No"), tBool), false},
		{"'2'→boolean", cast(str("2"), tBool), nil},
		{"''→boolean", cast(str(""), tBool), nil},
		{"'2020-02-29'→date", cast(str("2020-02-29"), tDate), day(2020, 2, 29)},
		{"'2021-02-29'→date invalid", cast(str("2021-02-29"), tDate), nil},
		{"'2021'→date", cast(str("2021"), tDate), day(2021, 1, 1)},
		{"'2021-3'→date", cast(str("2021-3"), tDate), day(2021, 3, 1)},
		{"'2021-1-1'→date", cast(str("2021-1-1"), tDate), day(2021, 1, 1)},
		{"'2021-03-07T12:00'→date", cast(str("2021-03-07T12:00"), tDate), day(2021, 3, 7)},
		{"'2021-03-07 junk'→date", cast(str("2021-03-07 junk"), tDate), day(2021, 3, 7)},
		{"' 2021-03 '→date", cast(str(" 2021-03 "), tDate), day(2021, 3, 1)},
		{"'2021-03T'→date", cast(str("2021-03T"), tDate), nil},
		{"'202'→date", cast(str("202"), tDate), nil},
		{"'12021-01-01'→date", cast(str("12021-01-01"), tDate), day(12021, 1, 1)},
		{"'2021-001-01'→date", cast(str("2021-001-01"), tDate), nil},
		{"'2021-13-01'→date", cast(str("2021-13-01"), tDate), nil},
		{"'2021/01/01'→date", cast(str("2021/01/01"), tDate), nil},
		{"'2021-01-01-'→date", cast(str("2021-01-01-"), tDate), nil},
		{"'9999999-12-31'→date overflows int days", cast(str("9999999-12-31"), tDate), nil},
		{"''→date", cast(str(""), tDate), nil},
	})
}

func TestCastUnsupported(t *testing.T) {
	s := arrow.NewSchema(nil, nil)
	for _, c := range []struct {
		e           *Expr
		unsupported bool
	}{
		{cast(str("2020-01-01 00:00:00"), tTS), true},
		{cast(Literal(int32(0), tDate), tInt), false},  // Spark forbids it
		{cast(i32(0), tDate), false},                   // Spark forbids it
		{cast(Literal(int32(0), tDate), tBool), false}, // Spark forbids it
	} {
		err := Validate(c.e, s)
		if err == nil {
			t.Errorf("Validate(%s) = nil, want an error", c.e)
			continue
		}
		if got := errors.Is(err, ErrUnsupported); got != c.unsupported {
			t.Errorf("Validate(%s) = %v: errors.Is(ErrUnsupported) = %v, want %v", c.e, err, got, c.unsupported)
		}
	}
}
