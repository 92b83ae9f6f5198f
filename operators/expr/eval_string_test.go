package expr

import (
	"math"
	"testing"
)

func TestSubstring(t *testing.T) {
	sub := func(s string, pos, n int32) *Expr { return Call(OpSubstring, tStr, str(s), i32(pos), i32(n)) }
	runEvalCases(t, []evalCase{
		{"pos 5 len 1", sub("Spark SQL", 5, 1), "k"},
		{"pos -3 len 2", sub("Spark SQL", -3, 2), "SQ"},
		{"pos 0 is 1", sub("Spark SQL", 0, 2), "Sp"},
		{"pos 1 len 0", sub("abc", 1, 0), ""},
		{"negative len", sub("abc", 1, -1), ""},
		{"past the end", sub("abc", 10, 2), ""},
		{"len past the end", sub("abc", 2, 10), "bc"},
		{"len max int", sub("abc", 2, math.MaxInt32), "bc"},
		{"pos before start keeps end", sub("abc", -5, 3), "a"},
		{"pos before start, end at 0", sub("abc", -5, 2), ""},
		{"pos min int: end = 3+MinInt32+MaxInt32 = 2", sub("abc", math.MinInt32, math.MaxInt32), "ab"},
		{"pos -1", sub("abc", -1, 5), "c"},
		{"empty string", sub("", 1, 1), ""},
		{"utf8 chars", sub("日本語x", 2, 2), "本語"},
		{"utf8 from end", sub("😀é", -1, 1), "é"},
		{"utf8 4-byte", sub("a😀b", 2, 1), "😀"},
		{"null string", Call(OpSubstring, tStr, null(tStr), i32(1), i32(1)), nil},
		{"null pos", Call(OpSubstring, tStr, str("a"), null(tInt), i32(1)), nil},
	})
}

func TestLength(t *testing.T) {
	ln := func(s string) *Expr { return Call(OpLength, tInt, str(s)) }
	runEvalCases(t, []evalCase{
		{"empty", ln(""), int32(0)},
		{"ascii", ln("abc"), int32(3)},
		{"cjk", ln("日本語"), int32(3)},
		{"emoji and accent", ln("😀é"), int32(2)},
		{"null", Call(OpLength, tInt, null(tStr)), nil},
	})
}

func TestLike(t *testing.T) {
	like := func(s, p string) *Expr { return Call(OpLike, tBool, str(s), str(p)) }
	runEvalCases(t, []evalCase{
		{"prefix", like("abc", "a%"), true},
		{"suffix", like("abc", "%c"), true},
		{"underscores", like("abc", "_b_"), true},
		{"too short", like("abc", "a_"), false},
		{"exact", like("abc", "abc"), true},
		{"case sensitive", like("ABC", "abc"), false},
		{"empty matches %", like("", "%"), true},
		{"empty vs _", like("", "_"), false},
		{"empty pattern", like("", ""), true},
		{"_ is one utf8 char", like("日本語", "日_語"), true},
		{"_ matches 4-byte char", like("😀", "_"), true},
		{"two _ vs one char", like("😀", "__"), false},
		{"é is not e", like("é", "e"), false},
		{"escaped %", like("a%b", `a\%b`), true},
		{"escaped % is literal", like("axb", `a\%b`), false},
		{"escaped _", like("a_b", `a\_b`), true},
		{"escaped _ is literal", like("axb", `a\_b`), false},
		{"escaped backslash", like(`a\b`, `a\\b`), true},
		{"_ matches newline", like("a\nb", "a_b"), true},
		{"% matches newline", like("a\n\nb", "a%b"), true},
		{"backtracking", like("mississippi", "m%iss%ppi"), true},
		{"many %", like("aaa", "%a%a%a%"), true},
		{"many % fail", like("aa", "%a%a%a%"), false},
		{"regex chars literal", like("a.c", "a.c"), true},
		{"regex chars literal 2", like("abc", "a.c"), false},
		{"null input", Call(OpLike, tBool, null(tStr), str("a")), nil},
		{"null pattern", Call(OpLike, tBool, str("a"), null(tStr)), nil},
	})
}

func TestStringPredicates(t *testing.T) {
	f := func(op Op, s, p string) *Expr { return Call(op, tBool, str(s), str(p)) }
	runEvalCases(t, []evalCase{
		{"startswith", f(OpStartsWith, "abc", "ab"), true},
		{"startswith empty", f(OpStartsWith, "abc", ""), true},
		{"startswith longer", f(OpStartsWith, "ab", "abc"), false},
		{"startswith bytes", f(OpStartsWith, "é", "\xc3"), true},
		{"endswith", f(OpEndsWith, "abc", "bc"), true},
		{"endswith no", f(OpEndsWith, "abc", "ab"), false},
		{"contains", f(OpContains, "日本語", "本"), true},
		{"contains empty in empty", f(OpContains, "", ""), true},
		{"contains no", f(OpContains, "abc", "d"), false},
		{"null", Call(OpContains, tBool, null(tStr), str("a")), nil},
		{"null needle", Call(OpStartsWith, tBool, str("a"), null(tStr)), nil},
	})
}

func TestDateFunctions(t *testing.T) {
	d := func(y, m, dd int) *Expr { return Literal(DaysFromCivil(y, m, dd), tDate) }
	dv := func(y, m, dd int) int32 { return DaysFromCivil(y, m, dd) }
	runEvalCases(t, []evalCase{
		{"year", Call(OpYear, tInt, d(2000, 2, 29)), int32(2000)},
		{"month", Call(OpMonth, tInt, d(2000, 2, 29)), int32(2)},
		{"dayofmonth", Call(OpDayOfMonth, tInt, d(2000, 2, 29)), int32(29)},
		{"year before epoch", Call(OpYear, tInt, Literal(int32(-1), tDate)), int32(1969)},
		{"month before epoch", Call(OpMonth, tInt, Literal(int32(-1), tDate)), int32(12)},
		{"day before epoch", Call(OpDayOfMonth, tInt, Literal(int32(-1), tDate)), int32(31)},
		{"year 1", Call(OpYear, tInt, d(1, 1, 1)), int32(1)},
		{"year 1900", Call(OpYear, tInt, d(1900, 3, 1)), int32(1900)},
		{"year null", Call(OpYear, tInt, null(tDate)), nil},
		{"date_add leap", Call(OpDateAdd, tDate, d(2000, 2, 28), i32(1)), dv(2000, 2, 29)},
		{"date_add non-leap", Call(OpDateAdd, tDate, d(1900, 2, 28), i32(1)), dv(1900, 3, 1)},
		{"date_add negative", Call(OpDateAdd, tDate, d(2100, 1, 1), i32(-1)), dv(2099, 12, 31)},
		{"date_sub", Call(OpDateSub, tDate, d(1970, 1, 1), i32(1)), int32(-1)},
		{"date_add wraps", Call(OpDateAdd, tDate, Literal(int32(math.MaxInt32), tDate), i32(1)), int32(math.MinInt32)},
		{"date_add null days", Call(OpDateAdd, tDate, d(2000, 1, 1), null(tInt)), nil},
	})
}
