package types

import (
	"fmt"
	"strings"
)

// integralRank orders the integral kinds by width.
func integralRank(k Kind) int {
	switch k {
	case Byte:
		return 1
	case Short:
		return 2
	case Int:
		return 3
	case Long:
		return 4
	}
	return 0
}

// Arithmetic returns the result type of the binary operator op ("+", "-",
// "*", "/", "%", "div", "pmod") over operands of types l and r, following
// Spark's implicit casts: integral operands widen to the wider integral
// ("/" on non-decimals is always double, "div" always bigint); float or double
// with anything numeric but decimal gives the wider fractional; decimal with
// float/double gives double; decimal with integral takes the integral as
// its decimal form (AsDecimal) and applies the decimal rule of the operator
// (see AdjustPrecisionScale). A null operand takes the other's type.
func Arithmetic(op string, l, r DataType) (DataType, error) {
	if op == "div" {
		return LongType, nil
	}
	if l.Kind == Null && r.Kind == Null {
		if op == "/" {
			return DoubleType, nil
		}
		return NullType, nil
	}
	if l.Kind == Null {
		l = r
	}
	if r.Kind == Null {
		r = l
	}
	if !l.IsNumeric() || !r.IsNumeric() {
		return Unknown, fmt.Errorf("types: %s %s %s: operands must be numeric", l, op, r)
	}
	switch op {
	case "+", "-", "*", "/", "%", "pmod":
	default:
		return Unknown, fmt.Errorf("types: unknown arithmetic operator %q", op)
	}
	switch {
	case l.Kind == Decimal || r.Kind == Decimal:
		if l.IsFractional() || r.IsFractional() {
			return DoubleType, nil
		}
		a, _ := AsDecimal(l)
		b, _ := AsDecimal(r)
		d, _ := decimalResult(op, a, b)
		return d, nil
	case op == "/":
		return DoubleType, nil
	case l.IsFractional() || r.IsFractional():
		if l.Kind == Double || r.Kind == Double {
			return DoubleType, nil
		}
		return FloatType, nil
	}
	if integralRank(l.Kind) >= integralRank(r.Kind) {
		return DataType{Kind: l.Kind}, nil
	}
	return DataType{Kind: r.Kind}, nil
}

// Widen returns the type both operands of a comparison (=, <, IN, …) or of
// a CASE/coalesce branch are cast to, Spark's findWiderTypeForTwo plus its
// string promotion for comparisons: equal types stay; null takes the other
// type; integrals widen; decimal with integral gives the wider decimal;
// float/double with any numeric gives double (float with float stays float);
// date with timestamp gives timestamp; string with date/timestamp gives the
// date/timestamp; string with a numeric gives double. ok is false when Spark
// has no common type.
func Widen(l, r DataType) (DataType, bool) {
	switch {
	case l == r:
		return l, true
	case l.Kind == Null:
		return r, true
	case r.Kind == Null:
		return l, true
	case l.IsIntegral() && r.IsIntegral():
		if integralRank(l.Kind) >= integralRank(r.Kind) {
			return DataType{Kind: l.Kind}, true
		}
		return DataType{Kind: r.Kind}, true
	case l.IsFractional() && r.IsFractional():
		return DoubleType, true
	case l.IsNumeric() && r.IsNumeric():
		if l.IsFractional() || r.IsFractional() {
			return DoubleType, true
		}
		a, _ := AsDecimal(l)
		b, _ := AsDecimal(r)
		return widerDecimal(a, b), true
	case isDatetime(l) && isDatetime(r):
		if l.Kind == Date {
			return r, true
		}
		return l, true
	case l.Kind == String && isDatetime(r):
		return r, true
	case r.Kind == String && isDatetime(l):
		return l, true
	case l.Kind == String && r.IsNumeric(), r.Kind == String && l.IsNumeric():
		return DoubleType, true
	}
	return Unknown, false
}

func isDatetime(t DataType) bool {
	return t.Kind == Date || t.Kind == Timestamp || t.Kind == TimestampNTZ
}

// Aggregate returns the result type of aggregate function fn (lower case,
// without a partial_/merge_ prefix) over an argument of type arg:
//
//	sum:   integral → bigint, float/double → double, decimal(p,s) → decimal(min(38,p+10),s)
//	avg:   decimal(p,s) → decimal(min(38,p+4),min(38,s+4)), numeric → double
//	count, count_if, approx_count_distinct: bigint
//	min, max, first, last, any_value: arg
//	stddev*, variance*, var_*, corr, covar_*, skewness, kurtosis: double
//	bool_and/bool_or/every/any/some: boolean
func Aggregate(fn string, arg DataType) (DataType, error) {
	switch strings.ToLower(fn) {
	case "sum":
		switch {
		case arg.IsIntegral():
			return LongType, nil
		case arg.IsFractional():
			return DoubleType, nil
		case arg.Kind == Decimal:
			return Bounded(arg.Precision+10, arg.Scale), nil
		case arg.Kind == Null:
			return DoubleType, nil
		}
	case "avg", "mean":
		switch {
		case arg.Kind == Decimal:
			return Bounded(arg.Precision+4, arg.Scale+4), nil
		case arg.IsNumeric(), arg.Kind == Null:
			return DoubleType, nil
		}
	case "count", "count_if", "approx_count_distinct":
		return LongType, nil
	case "min", "max", "first", "last", "any_value", "first_value", "last_value":
		if arg.IsKnown() {
			return arg, nil
		}
	case "stddev", "stddev_samp", "stddev_pop", "std", "variance", "var_samp", "var_pop",
		"corr", "covar_samp", "covar_pop", "skewness", "kurtosis":
		return DoubleType, nil
	case "bool_and", "bool_or", "every", "any", "some":
		return BooleanType, nil
	default:
		return Unknown, fmt.Errorf("types: unknown aggregate function %q", fn)
	}
	return Unknown, fmt.Errorf("types: %s(%s) is not supported", fn, arg)
}

// AggregateBuffer returns the types of the buffer attributes a partial
// aggregate of fn over arg emits, in Spark's order: sum → [sum, isEmpty] for
// decimals and [sum] otherwise; avg → [sum, count]; count → [count];
// min/max → [value]; first/last → [value, valueSet]; stddev/variance family
// → [n, avg, m2].
func AggregateBuffer(fn string, arg DataType) ([]DataType, error) {
	res, err := Aggregate(fn, arg)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(fn) {
	case "sum":
		if arg.Kind == Decimal {
			return []DataType{res, BooleanType}, nil
		}
		return []DataType{res}, nil
	case "avg", "mean":
		sum := DoubleType
		if arg.Kind == Decimal {
			sum = Bounded(arg.Precision+10, arg.Scale)
		}
		return []DataType{sum, LongType}, nil
	case "first", "last", "any_value", "first_value", "last_value":
		return []DataType{res, BooleanType}, nil
	case "stddev", "stddev_samp", "stddev_pop", "std", "variance", "var_samp", "var_pop":
		return []DataType{DoubleType, DoubleType, DoubleType}, nil
	}
	return []DataType{res}, nil
}

// MakeDecimal returns the type of MakeDecimal(unscaled, p, s): decimal(p,s).
func MakeDecimal(p, s int) (DataType, error) { return NewDecimal(p, s) }

// UnscaledValue returns the type of UnscaledValue(x) for a decimal x of
// precision at most 18: bigint.
func UnscaledValue(arg DataType) (DataType, error) {
	if arg.Kind != Decimal || arg.Precision > 18 {
		return Unknown, fmt.Errorf("types: UnscaledValue needs decimal with precision <= 18, got %s", arg)
	}
	return LongType, nil
}

// CheckOverflow returns the type of CheckOverflow(x, DecimalType(p,s), …):
// the target decimal.
func CheckOverflow(target DataType) (DataType, error) {
	if target.Kind != Decimal {
		return Unknown, fmt.Errorf("types: CheckOverflow target must be decimal, got %s", target)
	}
	return NewDecimal(target.Precision, target.Scale)
}

// PromotePrecision returns the type of promote_precision(x): x's own type.
func PromotePrecision(arg DataType) DataType { return arg }

// Cast returns the type of cast(x as to) and whether Spark (non-ANSI) allows
// the cast: numerics, booleans, strings, dates and timestamps cast among
// each other (date↔numeric excepted); binary casts only to string and from
// string; null casts to anything.
func Cast(from, to DataType) (DataType, error) {
	if !to.IsKnown() || to.Kind == Unsupported {
		return Unknown, fmt.Errorf("types: cast to %s is not supported", to)
	}
	if from == to || from.Kind == Null || !from.IsKnown() || to.Kind == String {
		return to, nil
	}
	ok := true
	switch {
	case from.Kind == Unsupported:
		ok = false
	case to.Kind == Binary:
		ok = from.Kind == String || from.IsIntegral()
	case from.Kind == Binary:
		ok = false
	case to.Kind == Date:
		ok = from.Kind == String || isDatetime(from)
	case from.Kind == Date:
		ok = to.Kind == String || isDatetime(to)
	}
	if !ok {
		return Unknown, fmt.Errorf("types: cannot cast %s to %s", from, to)
	}
	return to, nil
}
