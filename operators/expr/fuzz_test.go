package expr

import (
	"math"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hados-io/hados/operators/types"
)

// FuzzEval checks that random trees over random batches always validate
// and evaluate, releasing all memory.
func FuzzEval(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 42, 1 << 40, math.MaxUint64} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkRandom(t, seed, 3, nil)
	})
}

// FuzzCastFromString checks that every string cast gives a value of the
// target type (decimals within their precision) or NULL, and that dates
// and integers survive a round trip through their string form.
func FuzzCastFromString(f *testing.F) {
	for _, s := range stringPool {
		f.Add(s)
	}
	f.Add("+12021-12-31")
	f.Add("0x1.8p1d")
	f.Add("1e-99999999999")
	f.Fuzz(func(t *testing.T, s string) {
		for _, to := range []types.DataType{tBool, tInt, tLong, tDbl, tDec(38, 10), tDec(5, 2), tDec(1, 1), tDate} {
			v := castFromString(to)(s)
			if v == nil {
				continue
			}
			if err := validateLiteral(v, to); err != nil {
				t.Fatalf("cast(%q as %s) = %v: %v", s, to, v, err)
			}
		}
		if d, ok := ParseSparkDate(s); ok {
			if back, ok := ParseSparkDate(FormatSparkDate(d)); !ok || back != d {
				t.Fatalf("date %q = %d prints as %q which reads back as %d, %v", s, d, FormatSparkDate(d), back, ok)
			}
		}
		if n, ok := parseSparkIntegral(s, math.MinInt64, math.MaxInt64); ok {
			if back, ok := parseSparkIntegral(big.NewInt(n).String(), math.MinInt64, math.MaxInt64); !ok || back != n {
				t.Fatalf("bigint %q = %d does not round-trip", s, n)
			}
		}
	})
}

// FuzzFormatDouble checks that Java-style double strings read back as the
// same double through Spark's string → double cast.
func FuzzFormatDouble(f *testing.F) {
	for _, d := range []float64{0, 1, 0.1, 1e7, 1e-3, 1e-4, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(-1)} {
		f.Add(math.Float64bits(d))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		d := math.Float64frombits(bits)
		s := FormatDouble(d)
		back, ok := parseSparkDouble(s)
		if !ok || !(back == d && math.Signbit(back) == math.Signbit(d) || math.IsNaN(d) && math.IsNaN(back)) {
			t.Fatalf("FormatDouble(%v) = %q reads back as %v, %v", d, s, back, ok)
		}
		if !strings.Contains(s, ".") && !math.IsNaN(d) && !math.IsInf(d, 0) {
			t.Fatalf("FormatDouble(%v) = %q has no '.'", d, s)
		}
	})
}

// likeRegexp is an independent oracle for valid UTF-8: the regular
// expression Spark's StringUtils.escapeLikeRegex builds.
func likeRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '\\':
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case '_':
			b.WriteString(".")
		case '%':
			b.WriteString(".*")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

func FuzzLike(f *testing.F) {
	f.Add("abc", "a%")
	f.Add("日本語", "日_語")
	f.Add("a%b", `a\%b`)
	f.Add("mississippi", "m%iss%ppi")
	f.Add("", "%%_")
	f.Add("a\nb", "a_b")
	f.Fuzz(func(t *testing.T, s, p string) {
		pat, err := parseLike(p)
		if err != nil {
			return
		}
		got := pat.match(s)
		if utf8.ValidString(s) && utf8.ValidString(p) {
			if want := likeRegexp(p).MatchString(s); got != want {
				t.Fatalf("%q LIKE %q = %v, the regexp oracle says %v", s, p, got, want)
			}
		}
	})
}

// substringOracle is Spark's substringSQL over code points, for valid UTF-8.
func substringOracle(s string, pos, n int32) string {
	rs := []rune(s)
	l := int64(len(rs))
	start := int64(0)
	if pos > 0 {
		start = int64(pos) - 1
	} else if pos < 0 {
		start = l + int64(pos)
	}
	end := start + int64(n)
	if start < 0 {
		start = 0
	}
	if end > l {
		end = l
	}
	if start >= end {
		return ""
	}
	return string(rs[start:end])
}

func FuzzSubstring(f *testing.F) {
	f.Add("Spark SQL", int32(5), int32(1))
	f.Add("日本語x", int32(-2), int32(5))
	f.Add("abc", int32(math.MinInt32), int32(math.MaxInt32))
	f.Fuzz(func(t *testing.T, s string, pos, n int32) {
		got := substringSQL(s, pos, n)
		if !strings.Contains(s, got) {
			t.Fatalf("substring(%q, %d, %d) = %q is not part of the input", s, pos, n, got)
		}
		if utf8.ValidString(s) {
			if want := substringOracle(s, pos, n); got != want {
				t.Fatalf("substring(%q, %d, %d) = %q, want %q", s, pos, n, got, want)
			}
			if l := int32(len(charStarts(s))); l != int32(utf8.RuneCountInString(s)) {
				t.Fatalf("length(%q) = %d, want %d", s, l, utf8.RuneCountInString(s))
			}
		}
	})
}
