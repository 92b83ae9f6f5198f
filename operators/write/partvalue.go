package write

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// PartitionValue is the value of one partition column for the rows of a
// file, as the string Spark's Cast(value AS STRING) gives (unescaped).
// Null is true for a null value and for an empty string, which Spark both
// writes as DefaultPartitionName; Value is then "".
type PartitionValue struct {
	Column string
	Value  string
	Null   bool
}

// valueFormatter renders the non-null value at row i of arr as Spark casts it
// to a string.
type valueFormatter func(arr arrow.Array, i int) string

// partitionFormatter returns the formatter for a partition column of field's
// type, or an ErrNotSupported error naming the column.
func partitionFormatter(f arrow.Field, loc *time.Location) (valueFormatter, error) {
	switch t := f.Type.(type) {
	case *arrow.BooleanType:
		return func(a arrow.Array, i int) string { return strconv.FormatBool(a.(*array.Boolean).Value(i)) }, nil
	case *arrow.Int8Type:
		return func(a arrow.Array, i int) string { return strconv.FormatInt(int64(a.(*array.Int8).Value(i)), 10) }, nil
	case *arrow.Int16Type:
		return func(a arrow.Array, i int) string { return strconv.FormatInt(int64(a.(*array.Int16).Value(i)), 10) }, nil
	case *arrow.Int32Type:
		return func(a arrow.Array, i int) string { return strconv.FormatInt(int64(a.(*array.Int32).Value(i)), 10) }, nil
	case *arrow.Int64Type:
		return func(a arrow.Array, i int) string { return strconv.FormatInt(a.(*array.Int64).Value(i), 10) }, nil
	case *arrow.Float32Type:
		return func(a arrow.Array, i int) string { return javaFloatString(float64(a.(*array.Float32).Value(i)), 32) }, nil
	case *arrow.Float64Type:
		return func(a arrow.Array, i int) string { return javaFloatString(a.(*array.Float64).Value(i), 64) }, nil
	case *arrow.StringType:
		return func(a arrow.Array, i int) string { return a.(*array.String).Value(i) }, nil
	case *arrow.LargeStringType:
		return func(a arrow.Array, i int) string { return a.(*array.LargeString).Value(i) }, nil
	case *arrow.Date32Type:
		return func(a arrow.Array, i int) string { return formatDate(int64(a.(*array.Date32).Value(i))) }, nil
	case *arrow.TimestampType:
		zone := time.UTC // timestamp_ntz renders its wall-clock fields as stored
		if t.TimeZone != "" {
			zone = loc
		}
		perMicro, toMicro := unitScale(t.Unit)
		return func(a arrow.Array, i int) string {
			v := int64(a.(*array.Timestamp).Value(i))
			return formatTimestamp(v*perMicro/toMicro, zone)
		}, nil
	case *arrow.Decimal32Type:
		return func(a arrow.Array, i int) string {
			return javaDecimalString(big.NewInt(int64(a.(*array.Decimal32).Value(i))), t.Scale)
		}, nil
	case *arrow.Decimal64Type:
		return func(a arrow.Array, i int) string {
			return javaDecimalString(big.NewInt(int64(a.(*array.Decimal64).Value(i))), t.Scale)
		}, nil
	case *arrow.Decimal128Type:
		return func(a arrow.Array, i int) string {
			return javaDecimalString(a.(*array.Decimal128).Value(i).BigInt(), t.Scale)
		}, nil
	}
	return nil, fmt.Errorf("write: partition column %q has type %s, which cannot be a partition column: %w", f.Name, f.Type, ErrNotSupported)
}

// unitScale returns (mul, div) converting a value of unit u to microseconds.
func unitScale(u arrow.TimeUnit) (mul, div int64) {
	switch u {
	case arrow.Second:
		return 1_000_000, 1
	case arrow.Millisecond:
		return 1_000, 1
	case arrow.Nanosecond:
		return 1, 1_000
	}
	return 1, 1
}

// formatYear prints a proleptic year as Spark's "yyyy" (java.time "uuuu")
// does: four digits, a '+' above 9999, a '-' below 0.
func formatYear(b *strings.Builder, y int) {
	switch {
	case y > 9999:
		fmt.Fprintf(b, "+%d", y)
	case y < 0:
		fmt.Fprintf(b, "-%04d", -y)
	default:
		fmt.Fprintf(b, "%04d", y)
	}
}

// formatDate renders days since 1970-01-01 as yyyy-MM-dd.
func formatDate(days int64) string {
	t := time.Unix(days*86400, 0).UTC()
	var b strings.Builder
	formatYear(&b, t.Year())
	fmt.Fprintf(&b, "-%02d-%02d", int(t.Month()), t.Day())
	return b.String()
}

// formatTimestamp renders microseconds since the epoch in zone as Spark's
// fraction formatter does: yyyy-MM-dd HH:mm:ss then, only when non-zero, a
// fraction of up to six digits without trailing zeros.
func formatTimestamp(micros int64, zone *time.Location) string {
	sec, frac := micros/1_000_000, micros%1_000_000
	if frac < 0 {
		sec, frac = sec-1, frac+1_000_000
	}
	t := time.Unix(sec, 0).In(zone)
	var b strings.Builder
	formatYear(&b, t.Year())
	fmt.Fprintf(&b, "-%02d-%02d %02d:%02d:%02d", int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second())
	if frac != 0 {
		b.WriteByte('.')
		b.WriteString(strings.TrimRight(fmt.Sprintf("%06d", frac), "0"))
	}
	return b.String()
}

// javaFloatString renders v as Java's Double.toString (bits 64) or
// Float.toString (bits 32) do since JDK 19: the shortest digits that read
// back to v, plain for 1e-3 <= |v| < 1e7 and "d.dddE±n" otherwise, always
// with a fractional digit.
func javaFloatString(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	// d.ddde±XX: digits and the decimal exponent of the first digit.
	e := strconv.FormatFloat(v, 'e', -1, bits)
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	if v >= 1e-3 && v < 1e7 {
		if exp < 0 {
			return sign + "0." + strings.Repeat("0", -exp-1) + digits
		}
		for len(digits) <= exp {
			digits += "0"
		}
		frac := digits[exp+1:]
		if frac == "" {
			frac = "0"
		}
		return sign + digits[:exp+1] + "." + frac
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// javaDecimalString renders unscaled×10^-scale as java.math.BigDecimal's
// toString (what Spark's non-ANSI cast to string uses): plain unless the
// adjusted exponent is below -6, then "d.dddE-n".
func javaDecimalString(unscaled *big.Int, scale int32) string {
	sign := ""
	if unscaled.Sign() < 0 {
		sign = "-"
	}
	digits := new(big.Int).Abs(unscaled).String()
	s := int(scale)
	adjusted := -s + len(digits) - 1
	switch {
	case s == 0:
		return sign + digits
	case s > 0 && adjusted >= -6:
		if len(digits) > s {
			return sign + digits[:len(digits)-s] + "." + digits[len(digits)-s:]
		}
		return sign + "0." + strings.Repeat("0", s-len(digits)) + digits
	}
	out := sign + digits[:1]
	if len(digits) > 1 {
		out += "." + digits[1:]
	}
	if adjusted >= 0 {
		return out + "E+" + strconv.Itoa(adjusted)
	}
	return out + "E" + strconv.Itoa(adjusted)
}
