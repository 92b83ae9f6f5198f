package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Printing values as Spark's cast to string does.

// FormatSparkDate prints a date as Spark's cast to string does:
// yyyy-mm-dd. Outside years 0001–9999 it follows java.time's "uuuu"
// pattern (a '+' before years above 9999, a '-' before negative proleptic
// years, year 0 for 1 BC); that Spark prints those years this way is
// unverified.
func FormatSparkDate(days int32) string {
	y, m, d := CivilFromDays(days)
	return formatYear(y) + fmt.Sprintf("-%02d-%02d", m, d)
}

func formatYear(y int) string {
	switch {
	case y > 9999:
		return fmt.Sprintf("+%d", y)
	case y < 0:
		return fmt.Sprintf("-%04d", -y)
	}
	return fmt.Sprintf("%04d", y)
}

// FormatSparkTimestamp prints microseconds since the epoch (UTC) as
// Spark's cast to string does: "yyyy-mm-dd hh:mm:ss" and, when not zero,
// '.' and the fraction of a second without trailing zeros.
func FormatSparkTimestamp(micros int64) string {
	days := floorDiv(micros, microsPerDay)
	rem := micros - days*microsPerDay
	secs, frac := rem/microsPerSecond, rem%microsPerSecond
	out := FormatSparkDate(int32(days)) +
		fmt.Sprintf(" %02d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	if frac != 0 {
		out += "." + strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	}
	return out
}

// FormatDouble prints a double as Java's Double.toString (JDK 19 and
// later, the shortest decimal that reads back as the same double; when
// that has one digit, the closest of one or two digits): "NaN",
// "Infinity", "-0.0", "1.0", "0.001", "1234567.0", "1.0E7", "1.0E-4",
// "4.9E-324". Plain notation is used for 10^-3 <= |d| < 10^7.
func FormatDouble(d float64) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	case d == 0:
		if math.Signbit(d) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	digits, exp := shortestDigits(d)
	if d >= 1e-3 && d < 1e7 {
		if exp >= 0 {
			if len(digits) <= exp+1 {
				return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
			}
			return sign + digits[:exp+1] + "." + digits[exp+1:]
		}
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// shortestDigits returns the significant digits (no trailing zeros) and
// decimal exponent of Java's choice of decimal for d > 0.
func shortestDigits(d float64) (string, int) {
	s := strconv.FormatFloat(d, 'e', -1, 64)
	if len(s) > 1 && s[1] != '.' { // one significant digit: "5e-324"
		if two := strconv.FormatFloat(d, 'e', 1, 64); parsesTo(two, d) {
			s = two
		}
	}
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	return digits, e
}

func parsesTo(s string, d float64) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && v == d
}

// FormatJavaDecimal prints u·10^-scale (scale >= 0) as Java's
// BigDecimal.toString does, which is what Spark's non-ANSI cast of a
// decimal to string prints: plain notation ("12.30", "0.000001") when the
// adjusted exponent (the exponent of the leading digit) is at least -6,
// else scientific notation with one digit before the point ("1E-7",
// "1.0E-7", "-1.23E-8", "0E-10").
func FormatJavaDecimal(u *big.Int, scale int) string {
	digits := new(big.Int).Abs(u).String()
	adjusted := len(digits) - 1 - scale
	if scale == 0 || adjusted >= -6 {
		return FormatDecimal(u, scale)
	}
	sign := ""
	if u.Sign() < 0 {
		sign = "-"
	}
	mant := digits[:1]
	if len(digits) > 1 {
		mant += "." + digits[1:]
	}
	return sign + mant + "E" + strconv.Itoa(adjusted)
}
