package expr

import (
	"math"
	"testing"
)

func TestThreeValuedLogic(t *testing.T) {
	T, F, N := b(true), b(false), null(tBool)
	vals := map[string]*Expr{"T": T, "F": F, "N": N}
	// Truth tables in Kleene logic: rows x, columns y in order T F N.
	and := map[string]any{"TT": true, "TF": false, "TN": nil, "FT": false, "FF": false, "FN": false, "NT": nil, "NF": false, "NN": nil}
	or := map[string]any{"TT": true, "TF": true, "TN": true, "FT": true, "FF": false, "FN": nil, "NT": true, "NF": nil, "NN": nil}
	var cases []evalCase
	for xn, x := range vals {
		for yn, y := range vals {
			cases = append(cases,
				evalCase{name: xn + " AND " + yn, e: Call(OpAnd, tBool, x, y), want: and[xn+yn]},
				evalCase{name: xn + " OR " + yn, e: Call(OpOr, tBool, x, y), want: or[xn+yn]})
		}
	}
	cases = append(cases,
		evalCase{"NOT T", Call(OpNot, tBool, T), false},
		evalCase{"NOT F", Call(OpNot, tBool, F), true},
		evalCase{"NOT N", Call(OpNot, tBool, N), nil},
		evalCase{"isnull N", Call(OpIsNull, tBool, null(tInt)), true},
		evalCase{"isnull 1", Call(OpIsNull, tBool, i32(1)), false},
		evalCase{"isnotnull N", Call(OpIsNotNull, tBool, null(tStr)), false},
		evalCase{"isnotnull ''", Call(OpIsNotNull, tBool, str("")), true},
		evalCase{"untyped null AND F", Call(OpAnd, tBool, null(tNull), F), false},
	)
	runEvalCases(t, cases)
}

func TestIn(t *testing.T) {
	in := func(x *Expr, list ...*Expr) *Expr { return Call(OpIn, tBool, append([]*Expr{x}, list...)...) }
	runEvalCases(t, []evalCase{
		{"match", in(i32(2), i32(1), i32(2)), true},
		{"no match", in(i32(3), i32(1), i32(2)), false},
		{"no match with null", in(i32(3), i32(1), null(tInt)), nil},
		{"match with null", in(i32(1), null(tInt), i32(1)), true},
		{"null value", in(null(tInt), i32(1)), nil},
		{"null value empty-ish list of null", in(null(tInt), null(tInt)), nil},
		{"NaN in (NaN)", in(f64(math.NaN()), f64(1), f64(math.NaN())), true},
		{"-0.0 in (0.0)", in(f64(math.Copysign(0, -1)), f64(0)), true},
		{"decimal scales", in(decLit("1.50", 5, 2), decLit("1.5", 3, 1)), true},
		{"string bytes", in(str("é"), str("e"), str("é")), true},
		{"untyped null item", in(str("x"), null(tNull)), nil},
	})
}

func TestComparisons(t *testing.T) {
	nan, negz := math.NaN(), math.Copysign(0, -1)
	cmp := func(op Op, x, y *Expr) *Expr { return Call(op, tBool, x, y) }
	runEvalCases(t, []evalCase{
		{"", cmp(OpEq, i32(1), i32(1)), true},
		{"", cmp(OpNe, i32(1), i32(1)), false},
		{"", cmp(OpLt, i64(math.MinInt64), i64(0)), true},
		{"", cmp(OpGe, i32(-1), i32(-1)), true},
		{"null = 1", cmp(OpEq, null(tInt), i32(1)), nil},
		{"1 < null", cmp(OpLt, i32(1), null(tInt)), nil},
		{"NaN = NaN", cmp(OpEq, f64(nan), f64(nan)), true},
		{"NaN > +Inf", cmp(OpGt, f64(nan), f64(math.Inf(1))), true},
		{"NaN != 1", cmp(OpNe, f64(nan), f64(1)), true},
		{"1 < NaN", cmp(OpLt, f64(1), f64(nan)), true},
		{"-0.0 = 0.0", cmp(OpEq, f64(negz), f64(0)), true},
		{"-0.0 < 0.0", cmp(OpLt, f64(negz), f64(0)), false},
		{"-Inf < -MaxFloat", cmp(OpLt, f64(math.Inf(-1)), f64(-math.MaxFloat64)), true},
		{"false < true", cmp(OpLt, b(false), b(true)), true},
		{"'a' < 'b'", cmp(OpLt, str("a"), str("b")), true},
		{"'Z' < 'a' (bytes)", cmp(OpLt, str("Z"), str("a")), true},
		{"'' < 'a'", cmp(OpLt, str(""), str("a")), true},
		{"'ab' > 'a'", cmp(OpGt, str("ab"), str("a")), true},
		{"'é' > 'z' (UTF-8 bytes)", cmp(OpGt, str("é"), str("z")), true},
		{"1.5 = 1.50", cmp(OpEq, decLit("1.5", 2, 1), decLit("1.50", 3, 2)), true},
		{"-0.01 < 0.0", cmp(OpLt, decLit("-0.01", 3, 2), decLit("0", 1, 0)), true},
		{"1.10 > 1.1 no", cmp(OpGt, decLit("1.10", 38, 2), decLit("1.1", 2, 1)), false},
		{"date", cmp(OpLt, date("1969-12-31"), date("1970-01-01")), true},
		{"timestamp", cmp(OpGe, ts(-1), ts(0)), false},
	})
}

func TestEqNullSafe(t *testing.T) {
	ns := func(x, y *Expr) *Expr { return Call(OpEqNullSafe, tBool, x, y) }
	runEvalCases(t, []evalCase{
		{"null <=> null", ns(null(tInt), null(tInt)), true},
		{"null <=> 1", ns(null(tInt), i32(1)), false},
		{"1 <=> null", ns(i32(1), null(tInt)), false},
		{"1 <=> 1", ns(i32(1), i32(1)), true},
		{"1 <=> 2", ns(i32(1), i32(2)), false},
		{"NaN <=> NaN", ns(f64(math.NaN()), f64(math.NaN())), true},
		{"'' <=> null", ns(str(""), null(tStr)), false},
	})
}

func TestConditionals(t *testing.T) {
	T, F, N := b(true), b(false), null(tBool)
	runEvalCases(t, []evalCase{
		{"case first true", Call(OpCaseWhen, tInt, F, i32(1), T, i32(2), T, i32(3)), int32(2)},
		{"case null cond skipped", Call(OpCaseWhen, tInt, N, i32(1), T, i32(2)), int32(2)},
		{"case else", Call(OpCaseWhen, tInt, F, i32(1), i32(9)), int32(9)},
		{"case no else", Call(OpCaseWhen, tInt, F, i32(1), N, i32(2)), nil},
		{"case null value", Call(OpCaseWhen, tInt, T, null(tInt), i32(2)), nil},
		{"if true", Call(OpIf, tStr, T, str("a"), str("b")), "a"},
		{"if false", Call(OpIf, tStr, F, str("a"), str("b")), "b"},
		{"if null", Call(OpIf, tStr, N, str("a"), str("b")), "b"},
		{"coalesce", Call(OpCoalesce, tLong, null(tLong), i64(7), i64(8)), int64(7)},
		{"coalesce all null", Call(OpCoalesce, tLong, null(tLong), null(tNull)), nil},
		{"coalesce decimal", Call(OpCoalesce, tDec(5, 2), null(tDec(5, 2)), decLit("1.25", 5, 2)), decVal("1.25", 2)},
		{"coalesce NaN is not null", Call(OpCoalesce, tDbl, f64(math.NaN()), f64(1)), math.NaN()},
	})
}
