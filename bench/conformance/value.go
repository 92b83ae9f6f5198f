package conformance

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
)

// Decimal is an exact decimal value: Unscaled × 10^-Scale. Both engines'
// DECIMAL columns become Decimals so that values of different declared
// scales (Spark's sum of decimal(15,2) is decimal(25,2), DuckDB's is
// decimal(38,2); Spark's avg is a decimal, DuckDB's a double) compare by
// value. A Decimal owns its big.Int; nothing needs releasing.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// String renders the value with exactly Scale fraction digits.
func (d Decimal) String() string { return duckdbh.FormatDecimal(d.Unscaled, d.Scale) }

// Float returns the nearest float64.
func (d Decimal) Float() float64 {
	f, _ := d.rat().Float64()
	return f
}

func (d Decimal) rat() *big.Rat {
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil)
	return new(big.Rat).SetFrac(d.Unscaled, den)
}

// Round returns d at scale s ≤ d.Scale, rounding half away from zero (as
// Spark's HALF_UP does); a larger s returns d unchanged.
func (d Decimal) Round(s int) Decimal {
	if s >= d.Scale {
		return d
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-s)), nil)
	q, r := new(big.Int).QuoRem(new(big.Int).Abs(d.Unscaled), div, new(big.Int))
	if r.Lsh(r, 1).Cmp(div) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if d.Unscaled.Sign() < 0 {
		q.Neg(q)
	}
	return Decimal{Unscaled: q, Scale: s}
}

// ErrDecimal is wrapped by ParseDecimal's errors.
var ErrDecimal = errors.New("not a decimal")

// maxDigits bounds a parsed decimal's digits: DuckDB's and
// Spark's decimals have at most 38 digits; the margin keeps a hostile
// input from building huge numbers.
const maxDigits = 76

// ParseDecimal reads a plain decimal literal, "-12.30", "7", ".5", into a
// Decimal whose scale is the number of fraction digits written. Exponents,
// spaces, a lone sign or dot, and more than 76 digits are errors that quote
// the input.
func ParseDecimal(s string) (Decimal, error) {
	bad := func(why string) (Decimal, error) {
		return Decimal{}, fmt.Errorf("%w: %q: %s", ErrDecimal, clip(s), why)
	}
	body := s
	neg := false
	if strings.HasPrefix(body, "-") || strings.HasPrefix(body, "+") {
		neg = body[0] == '-'
		body = body[1:]
	}
	intPart, frac, hasDot := strings.Cut(body, ".")
	if intPart == "" && frac == "" {
		return bad("no digits")
	}
	if hasDot && frac == "" && intPart == "" {
		return bad("no digits")
	}
	digits := intPart + frac
	if len(digits) > maxDigits {
		return bad(fmt.Sprintf("more than %d digits", maxDigits))
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return bad(fmt.Sprintf("unexpected %q", digits[i]))
		}
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return bad("no digits")
	}
	if neg {
		u.Neg(u)
	}
	return Decimal{Unscaled: u, Scale: len(frac)}, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// decimalEqual compares two decimals at the coarser of their scales: the
// finer one is rounded half-up to it.
func decimalEqual(a, b Decimal) bool {
	s := min(a.Scale, b.Scale)
	return a.Round(s).Unscaled.Cmp(b.Round(s).Unscaled) == 0
}

// relTol is the relative tolerance for doubles.
const relTol = 1e-9

// floatEqual compares doubles within relTol relative error.
func floatEqual(a, b float64) bool {
	if a == b || math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	return math.Abs(a-b) <= relTol*math.Max(math.Abs(a), math.Abs(b))
}

// decimalFloatEqual compares a decimal with a double: the double, rounded
// to the decimal's scale, must equal it, allowing the double its own
// relative error (the other engine computed an approximate value that
// Spark's decimal arithmetic rounded at that scale).
func decimalFloatEqual(d Decimal, f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	x := d.Float()
	half := 0.5 * math.Pow10(-d.Scale)
	return math.Abs(x-f) <= half*(1+relTol)+relTol*math.Max(math.Abs(x), math.Abs(f))
}

// ValueEqual reports whether two normalised values are equal under the
// comparison rules: integers, strings, dates and booleans exactly;
// decimals at the coarser scale of the two; doubles within 1e-9 relative;
// a decimal against a double at the decimal's scale; an integer against a
// decimal or double as a number. nil equals only nil.
func ValueEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch x := a.(type) {
	case Decimal:
		switch y := b.(type) {
		case Decimal:
			return decimalEqual(x, y)
		case float64:
			return decimalFloatEqual(x, y)
		case int64:
			return decimalEqual(x, Decimal{Unscaled: big.NewInt(y)})
		}
		return false
	case float64:
		switch y := b.(type) {
		case float64:
			return floatEqual(x, y)
		case Decimal:
			return decimalFloatEqual(y, x)
		case int64:
			return floatEqual(x, float64(y))
		}
		return false
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case Decimal, float64:
			return ValueEqual(b, a)
		}
		return false
	}
	if t, ok := a.(interface{ Equal(any) bool }); ok {
		return t.Equal(b)
	}
	return a == b
}

// compareValues orders two normalised values for sorting rows into a
// canonical order: nil first, then numbers by value, then strings, then
// booleans (false first); values of different kinds order by kind.
func compareValues(a, b any) int {
	ka, kb := kindRank(a), kindRank(b)
	if ka != kb {
		return ka - kb
	}
	switch ka {
	case 1:
		fa, fb := number(a), number(b)
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	case 2:
		return strings.Compare(a.(string), b.(string))
	case 3:
		switch {
		case a == b:
			return 0
		case a == false:
			return -1
		}
		return 1
	case 4:
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	}
	return 0
}

func kindRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case int64, float64, Decimal:
		return 1
	case string:
		return 2
	case bool:
		return 3
	}
	return 4
}

func number(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case Decimal:
		return x.Float()
	}
	return 0
}

// formatValue renders a value for a mismatch report.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return fmt.Sprintf("%q", x)
	case float64:
		return fmt.Sprintf("%.17g", x)
	}
	return fmt.Sprint(v)
}
