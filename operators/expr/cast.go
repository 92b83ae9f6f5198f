package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/hados-io/hados/operators/types"
)

// Cast, Spark's non-ANSI rules (Cast.scala with spark.sql.ansi.enabled =
// false), between boolean, int, bigint, double, decimal, date, timestamp and
// string; the session time zone is UTC. A NULL input gives NULL. Per source:
//
//	boolean → int/bigint/double: 1 or 0; → decimal: 1 or 0, NULL if it does
//	  not fit; → timestamp: 1 or 0 µs; → string: "true"/"false".
//	int/bigint → boolean: x != 0; → int: low 32 bits (wraps); → double:
//	  nearest; → decimal: exact, NULL if too many digits; → timestamp: x
//	  seconds, saturating at the bigint range (TimeUnit.SECONDS.toMicros);
//	  → string: decimal digits.
//	double → boolean: x != 0 (NaN is true); → int/bigint: truncated toward
//	  zero, saturating, NaN → 0 (Java's (int)/(long)); → decimal: NaN/±Inf
//	  → NULL, else the decimal Double.toString prints, rounded HALF_UP to
//	  the scale, NULL if too many digits; → timestamp: NaN/±Inf → NULL,
//	  else (long)(x·10^6) saturating; → string: Java's Double.toString
//	  (JDK 19+, shortest repr: "1.0", "1.0E10", "1.0E-4", "NaN", "Infinity").
//	  Older JDKs (8–18) occasionally print a longer digit string
//	  (JDK-4511638), so Spark on them can differ in the last digits of
//	  double → string and, rarely, double → decimal.
//	decimal → boolean: x != 0; → int/bigint: truncated toward zero, then the
//	  low 32/64 bits (wraps, Decimal.toInt/toLong; not NULL); → double:
//	  nearest; → decimal: rounded HALF_UP to the target scale, NULL if too
//	  many digits; → timestamp: (x·10^6) truncated, low 64 bits; → string:
//	  java.math.BigDecimal.toString, which non-ANSI Spark uses (plain
//	  notation, "-0.050", unless the adjusted exponent is below -6:
//	  "1E-7", "0E-10"; ANSI mode would print plain notation always).
//	date → string: yyyy-mm-dd; → timestamp: midnight UTC (NULL where Spark
//	  would overflow); → date: itself.
//	timestamp → boolean: µs != 0; → bigint: floor(µs / 10^6); → int: that,
//	  low 32 bits; → double: µs / 10^6; → decimal: via that double (as Spark
//	  does); → date: floor(µs / 86400·10^6); → string: "yyyy-mm-dd hh:mm:ss"
//	  plus the fraction of a second without trailing zeros.
//	string → see cast_string.go; string → timestamp is not supported
//	  (Validate reports it).
func compileCast(e *Expr, arg evalFn) (evalFn, error) {
	f, err := castFunc(e.Args[0].Type, e.Type)
	if err != nil {
		return nil, fmt.Errorf("expr: Eval %s: %w", e, err)
	}
	return unary(arg, f), nil
}

// castFunc returns the conversion of a non-null value of type from to type
// to (its result may be nil: NULL), or an error for casts the evaluator
// does not implement.
func castFunc(from, to types.DataType) (func(any) any, error) {
	if from.Kind == types.Null {
		return func(any) any { return nil }, nil
	}
	if from == to {
		return func(v any) any { return v }, nil
	}
	var f func(any) any
	switch from.Kind {
	case types.Boolean:
		f = castFromBool(to)
	case types.Int:
		f = castFromIntegral(to, func(v any) int64 { return int64(v.(int32)) })
	case types.Long:
		f = castFromIntegral(to, func(v any) int64 { return v.(int64) })
	case types.Double:
		f = castFromDouble(to)
	case types.Decimal:
		f = castFromDecimal(from.Scale, to)
	case types.Date:
		f = castFromDate(to)
	case types.Timestamp:
		f = castFromTimestamp(to)
	case types.String:
		f = castFromString(to)
	}
	if f == nil {
		return nil, fmt.Errorf("%w: cast from %s to %s", ErrUnsupported, from, to)
	}
	return f, nil
}

func castFromBool(to types.DataType) func(any) any {
	num := func(v any) int64 {
		if v.(bool) {
			return 1
		}
		return 0
	}
	switch to.Kind {
	case types.Int:
		return func(v any) any { return int32(num(v)) }
	case types.Long, types.Timestamp:
		return func(v any) any { return num(v) }
	case types.Double:
		return func(v any) any { return float64(num(v)) }
	case types.Decimal:
		return func(v any) any { return nilIfNone(toPrecision(big.NewInt(num(v)), 0, to.Precision, to.Scale)) }
	case types.String:
		return func(v any) any { return strconv.FormatBool(v.(bool)) }
	}
	return nil
}

func castFromIntegral(to types.DataType, get func(any) int64) func(any) any {
	switch to.Kind {
	case types.Boolean:
		return func(v any) any { return get(v) != 0 }
	case types.Int:
		return func(v any) any { return int32(get(v)) }
	case types.Long:
		return func(v any) any { return get(v) }
	case types.Double:
		return func(v any) any { return float64(get(v)) }
	case types.Decimal:
		return func(v any) any { return nilIfNone(toPrecision(big.NewInt(get(v)), 0, to.Precision, to.Scale)) }
	case types.Timestamp:
		return func(v any) any { return saturatingMul(get(v), microsPerSecond) }
	case types.String:
		return func(v any) any { return strconv.FormatInt(get(v), 10) }
	}
	return nil
}

const (
	microsPerSecond = int64(1_000_000)
	microsPerDay    = 86_400 * microsPerSecond
)

// saturatingMul returns a·b clamped to the int64 range.
func saturatingMul(a, b int64) int64 {
	r := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	return clampInt64(r)
}

func clampInt64(r *big.Int) int64 {
	switch {
	case r.IsInt64():
		return r.Int64()
	case r.Sign() > 0:
		return math.MaxInt64
	}
	return math.MinInt64
}

// doubleToInt64 is Java's (long) d: truncation, saturation, NaN → 0.
func doubleToInt64(d float64) int64 {
	switch {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt64: // 2^63 and above
		return math.MaxInt64
	case d <= math.MinInt64:
		return math.MinInt64
	}
	return int64(d)
}

// doubleToInt32 is Java's (int) d.
func doubleToInt32(d float64) int32 {
	switch {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt32:
		return math.MaxInt32
	case d <= math.MinInt32:
		return math.MinInt32
	}
	return int32(d)
}

func castFromDouble(to types.DataType) func(any) any {
	switch to.Kind {
	case types.Boolean:
		return func(v any) any { return v.(float64) != 0 || math.IsNaN(v.(float64)) }
	case types.Int:
		return func(v any) any { return doubleToInt32(v.(float64)) }
	case types.Long:
		return func(v any) any { return doubleToInt64(v.(float64)) }
	case types.Decimal:
		return func(v any) any { return doubleToDecimal(v.(float64), to) }
	case types.Timestamp:
		return func(v any) any {
			d := v.(float64)
			if math.IsNaN(d) || math.IsInf(d, 0) {
				return nil
			}
			return doubleToInt64(d * 1e6)
		}
	case types.String:
		return func(v any) any { return FormatDouble(v.(float64)) }
	}
	return nil
}

// doubleToDecimal is Spark's changePrecision(Decimal(d), p, s): the decimal
// Double.toString(d) prints, rounded HALF_UP; NULL for NaN, ±Inf or overflow.
func doubleToDecimal(d float64, to types.DataType) any {
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return nil
	}
	neg := d < 0
	digits, exp := shortestDigits(math.Abs(d))
	u, _ := new(big.Int).SetString(digits, 10)
	if neg {
		u.Neg(u)
	}
	return decimalToType(u, len(digits)-1-exp, to)
}

// decimalToType rounds u·10^-s to the target type, NULL (nil) on overflow.
// It is careful with extreme exponents (s far from the target scale).
func decimalToType(u *big.Int, s int, to types.DataType) any {
	if u.Sign() == 0 {
		return new(big.Int)
	}
	// Integral digits of the value: numDigits(u) - s. More than the target
	// allows is an overflow even after rounding down.
	if numDigits(u)-s > to.Precision-to.Scale+1 {
		return nil
	}
	// A value below half a unit of the target scale rounds to zero.
	if numDigits(u)-s < -to.Scale-1 {
		return new(big.Int)
	}
	return nilIfNone(toPrecision(u, s, to.Precision, to.Scale))
}

func castFromDecimal(scale int, to types.DataType) func(any) any {
	// trunc returns the integral part, truncated toward zero.
	trunc := func(v any) *big.Int { return new(big.Int).Quo(v.(*big.Int), pow10(scale)) }
	switch to.Kind {
	case types.Boolean:
		return func(v any) any { return v.(*big.Int).Sign() != 0 }
	case types.Int:
		return func(v any) any { return int32(lowBits64(trunc(v))) }
	case types.Long:
		return func(v any) any { return lowBits64(trunc(v)) }
	case types.Double:
		return func(v any) any { return decimalToDouble(v.(*big.Int), scale) }
	case types.Decimal:
		return func(v any) any { return decimalToType(v.(*big.Int), scale, to) }
	case types.Timestamp:
		return func(v any) any {
			micros := new(big.Int).Mul(v.(*big.Int), big.NewInt(microsPerSecond))
			return lowBits64(micros.Quo(micros, pow10(scale)))
		}
	case types.String:
		return func(v any) any { return FormatJavaDecimal(v.(*big.Int), scale) }
	}
	return nil
}

// lowBits64 returns the low 64 bits of x's two's complement, as Java's
// BigInteger.longValue.
func lowBits64(x *big.Int) int64 {
	m := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)) // And on negatives uses two's complement
	return int64(m.Uint64())
}

// decimalToDouble returns the double nearest u·10^-scale.
func decimalToDouble(u *big.Int, scale int) float64 {
	f, _ := new(big.Rat).SetFrac(u, pow10(scale)).Float64()
	return f
}

func castFromDate(to types.DataType) func(any) any {
	switch to.Kind {
	case types.String:
		return func(v any) any { return FormatSparkDate(v.(int32)) }
	case types.Timestamp:
		return func(v any) any {
			// |days| < 2^31, so the product fits in 2^31·2^37 < 2^69: check it.
			r := new(big.Int).Mul(big.NewInt(int64(v.(int32))), big.NewInt(microsPerDay))
			if !r.IsInt64() {
				return nil
			}
			return r.Int64()
		}
	}
	return nil
}

func castFromTimestamp(to types.DataType) func(any) any {
	seconds := func(v any) int64 { return floorDiv(v.(int64), microsPerSecond) }
	switch to.Kind {
	case types.Boolean:
		return func(v any) any { return v.(int64) != 0 }
	case types.Int:
		return func(v any) any { return int32(seconds(v)) }
	case types.Long:
		return func(v any) any { return seconds(v) }
	case types.Double:
		return func(v any) any { return float64(v.(int64)) / 1e6 }
	case types.Decimal:
		return func(v any) any { return doubleToDecimal(float64(v.(int64))/1e6, to) }
	case types.Date:
		return func(v any) any { return int32(floorDiv(v.(int64), microsPerDay)) }
	case types.String:
		return func(v any) any { return FormatSparkTimestamp(v.(int64)) }
	}
	return nil
}

// floorDiv is Math.floorDiv for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
