package expr

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/hados-io/hados/operators/types"
)

// Casts from string (non-ANSI: a malformed string gives NULL):
//
//	→ boolean: trimmed of whitespace and control characters (bytes <= 0x20
//	  and 0x7F), case-insensitive "t", "true", "y", "yes", "1" are true and
//	  "f", "false", "n", "no", "0" false (StringUtils.isTrueString).
//	→ int/bigint: UTF8String.toInt/toLong: trimmed as above, an optional
//	  sign, ASCII digits, optionally '.' and more digits that are
//	  discarded ("1.9" → 1, "." → 0); out of range → NULL.
//	→ double: java.lang.Double.parseDouble after trimming bytes <= 0x20:
//	  decimal or hexadecimal ("0x1.8p1") floating-point literals with an
//	  optional f/F/d/D suffix, "NaN", "Infinity" with an optional sign;
//	  then, case-insensitively, "inf", "+inf", "infinity", "+infinity",
//	  "-inf", "-infinity", "nan" (Cast.processFloatingPointSpecialLiterals).
//	→ decimal: java.math.BigDecimal's syntax after trimming bytes <= 0x20
//	  (sign, digits with an optional point, optional exponent "e-3"),
//	  rounded HALF_UP to the scale, NULL if too many digits.
//	→ date: DateTimeUtils.stringToDate: trimmed as for int; an optional
//	  sign, then yyyy[y…] (4 to 7 digits), yyyy-[m]m or yyyy-[m]m-[d]d, the
//	  last optionally followed by ' ' or 'T' and anything; an invalid
//	  calendar date → NULL.
//
// Only ASCII digits are recognised (Java would also accept other Unicode
// digits in doubles and decimals).
func castFromString(to types.DataType) func(any) any {
	switch to.Kind {
	case types.Boolean:
		return func(v any) any { return parseSparkBool(v.(string)) }
	case types.Int:
		return func(v any) any {
			if n, ok := parseSparkIntegral(v.(string), math.MinInt32, math.MaxInt32); ok {
				return int32(n)
			}
			return nil
		}
	case types.Long:
		return func(v any) any {
			if n, ok := parseSparkIntegral(v.(string), math.MinInt64, math.MaxInt64); ok {
				return n
			}
			return nil
		}
	case types.Double:
		return func(v any) any {
			if d, ok := parseSparkDouble(v.(string)); ok {
				return d
			}
			return nil
		}
	case types.Decimal:
		return func(v any) any {
			u, s, ok := parseDecimalDigits(strings.Trim(v.(string), javaTrimSet))
			if !ok {
				return nil
			}
			return decimalToType(u, s, to)
		}
	case types.Date:
		return func(v any) any {
			if d, ok := ParseSparkDate(v.(string)); ok {
				return d
			}
			return nil
		}
	}
	return nil
}

// javaTrimSet is what java.lang.String.trim removes: bytes 0x00–0x20.
var javaTrimSet = func() string {
	var b strings.Builder
	for c := byte(0); c <= ' '; c++ {
		b.WriteByte(c)
	}
	return b.String()
}()

// sparkTrimSet is what UTF8String.trimAll removes: whitespace and ISO
// control characters, bytes 0x00–0x20 and 0x7F.
var sparkTrimSet = javaTrimSet + "\x7f"

func parseSparkBool(s string) any {
	switch strings.ToLower(strings.Trim(s, sparkTrimSet)) {
	case "t", "true", "y", "yes", "1":
		return true
	case "f", "false", "n", "no", "0":
		return false
	}
	return nil
}

// parseSparkIntegral is UTF8String.toLong/toInt with allowDecimal.
func parseSparkIntegral(s string, lo, hi int64) (int64, bool) {
	s = strings.Trim(s, sparkTrimSet)
	if s == "" {
		return 0, false
	}
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		s = s[1:]
		if s == "" {
			return 0, false
		}
	}
	intPart, frac, _ := strings.Cut(s, ".")
	if !allDigits(frac) || !allDigits(intPart) {
		return 0, false
	}
	n := new(big.Int)
	if intPart != "" {
		n.SetString(intPart, 10)
	}
	if neg {
		n.Neg(n)
	}
	if !n.IsInt64() || n.Int64() < lo || n.Int64() > hi {
		return 0, false
	}
	return n.Int64(), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseSparkDouble is Spark's string → double cast.
func parseSparkDouble(s string) (float64, bool) {
	t := strings.Trim(s, javaTrimSet)
	if d, ok := parseJavaDouble(t); ok {
		return d, true
	}
	switch strings.ToLower(t) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	case "nan":
		return math.NaN(), true
	}
	return 0, false
}

// parseJavaDouble is java.lang.Double.parseDouble on a trimmed string.
func parseJavaDouble(s string) (float64, bool) {
	body := s
	sign := ""
	if body != "" && (body[0] == '+' || body[0] == '-') {
		sign, body = body[:1], body[1:]
	}
	switch body {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if sign == "-" {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(body); n > 0 && strings.IndexByte("fFdD", body[n-1]) >= 0 {
		body = body[:n-1]
	}
	var ok bool
	if len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		ok = isJavaHexFloat(body[2:])
	} else {
		ok = isJavaDecimalFloat(body)
	}
	if !ok {
		return 0, false
	}
	d, err := strconv.ParseFloat(sign+body, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return d, true // out of range: ±Inf or 0, as Java
}

// isJavaDecimalFloat checks digits [. digits] [(e|E) [sign] digits] with at
// least one mantissa digit.
func isJavaDecimalFloat(s string) bool {
	mant, exp, hasExp := cutAny(s, "eE")
	if hasExp && !isSignedDigits(exp) {
		return false
	}
	ip, fp, _ := strings.Cut(mant, ".")
	return allDigits(ip) && allDigits(fp) && len(ip)+len(fp) > 0
}

// isJavaHexFloat checks hexdigits [. hexdigits] (p|P) [sign] digits after
// the 0x prefix, with at least one hex digit.
func isJavaHexFloat(s string) bool {
	mant, exp, hasExp := cutAny(s, "pP")
	if !hasExp || !isSignedDigits(exp) {
		return false
	}
	ip, fp, _ := strings.Cut(mant, ".")
	isHex := func(x string) bool {
		for i := 0; i < len(x); i++ {
			if !strings.ContainsRune("0123456789abcdefABCDEF", rune(x[i])) {
				return false
			}
		}
		return true
	}
	return isHex(ip) && isHex(fp) && len(ip)+len(fp) > 0
}

func cutAny(s, seps string) (before, after string, found bool) {
	if i := strings.IndexAny(s, seps); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

func isSignedDigits(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && allDigits(s)
}

// maxDecimalExponent bounds the exponents parseDecimalDigits accepts, as
// BigDecimal requires the scale to fit an int.
const maxDecimalExponent = math.MaxInt32

// parseDecimalDigits parses java.math.BigDecimal's string syntax into an
// unscaled value and a scale (which may be negative or large: callers round
// with decimalToType).
func parseDecimalDigits(s string) (*big.Int, int, bool) {
	mant, exp, hasExp := cutAny(s, "eE")
	e := int64(0)
	if hasExp {
		if !isSignedDigits(exp) {
			return nil, 0, false
		}
		v, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || v > maxDecimalExponent || v < -maxDecimalExponent {
			return nil, 0, false
		}
		e = v
	}
	neg := false
	if mant != "" && (mant[0] == '+' || mant[0] == '-') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if !allDigits(ip) || !allDigits(fp) || len(ip)+len(fp) == 0 {
		return nil, 0, false
	}
	u, ok := new(big.Int).SetString(ip+fp, 10)
	if !ok {
		return nil, 0, false
	}
	if neg {
		u.Neg(u)
	}
	return u, len(fp) - int(e), true
}
