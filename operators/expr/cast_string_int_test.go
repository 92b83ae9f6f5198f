package expr

import (
	"math"
	"testing"
)

// TestCastStringIntEdges covers the string ↔ int/bigint edge cases the
// device once disagreed on (a number with no digit, "." or "-.", is 0 in
// Spark) and the chained cast(cast(s as int) as string). The full table,
// run on the device as well, is operators/testdata/cast_string_int.golden.
func TestCastStringIntEdges(t *testing.T) {
	viaInt := func(s string) *Expr { return cast(cast(str(s), tInt), tStr) }
	viaLong := func(s string) *Expr { return cast(cast(str(s), tLong), tStr) }
	runEvalCases(t, []evalCase{
		{"'-.'→int is 0", cast(str("-."), tInt), int32(0)},
		{"'+.'→bigint is 0", cast(str("+."), tLong), int64(0)},
		{"' . '→int is 0", cast(str(" . "), tInt), int32(0)},
		{"'..'→int", cast(str(".."), tInt), nil},
		{"'-'→int", cast(str("-"), tInt), nil},
		{"' - '→int", cast(str(" - "), tInt), nil},
		{"blank→int", cast(str(" \t\n"), tInt), nil},
		{"'+-1'→int", cast(str("+-1"), tInt), nil},
		{"control chars trimmed", cast(str("\x7f3\x00"), tInt), int32(3)},
		{"nbsp not trimmed", cast(str("\u00a03"), tInt), nil},
		{"'2147483647.99'→int", cast(str("2147483647.99"), tInt), int32(math.MaxInt32)},
		{"'-2147483649'→int overflows", cast(str("-2147483649"), tInt), nil},
		{"'-2147483649'→bigint", cast(str("-2147483649"), tLong), int64(-2147483649)},
		{"min→bigint", cast(str("-9223372036854775808"), tLong), int64(math.MinInt64)},
		{"min-1→bigint overflows", cast(str("-9223372036854775809"), tLong), nil},
		{"'.'→int→string", viaInt("."), "0"},
		{"'-.'→bigint→string", viaLong("-."), "0"},
		{"' -0012.7 '→int→string", viaInt(" -0012.7 "), "-12"},
		{"'abc'→int→string", viaInt("abc"), nil},
		{"''→int→string", viaInt(""), nil},
		{"'2147483648'→int→string", viaInt("2147483648"), nil},
		{"'2147483648'→bigint→string", viaLong("2147483648"), "2147483648"},
		{"null→int→string", cast(cast(null(tStr), tInt), tStr), nil},
		{"min int→string→int", cast(cast(i32(math.MinInt32), tStr), tInt), int32(math.MinInt32)},
		{"min bigint→string→bigint", cast(cast(i64(math.MinInt64), tStr), tLong), int64(math.MinInt64)},
	})
}
