package types

// Decimal precision rules, after Spark's DecimalType and DecimalPrecision
// (non-ANSI, allowPrecisionLoss=true).

// minAdjustedScale is the scale Spark keeps at least when a decimal result
// must lose digits (DecimalType.MINIMUM_ADJUSTED_SCALE).
const minAdjustedScale = 6

// AdjustPrecisionScale returns decimal(p,s) when p <= 38; otherwise it keeps
// the p-s integral digits and reduces the scale to max(38-(p-s), min(s,6)),
// as Spark's DecimalType.adjustPrecisionScale does.
func AdjustPrecisionScale(p, s int) DataType {
	if p <= MaxPrecision {
		return DecimalOf(p, s)
	}
	if s < 0 {
		return DecimalOf(MaxPrecision, s)
	}
	intDigits := p - s
	minScale := min(s, minAdjustedScale)
	return DecimalOf(MaxPrecision, max(MaxPrecision-intDigits, minScale))
}

// Bounded returns decimal(min(p,38), min(s,38)), Spark's DecimalType.bounded.
func Bounded(p, s int) DataType {
	return DecimalOf(min(p, MaxPrecision), min(s, MaxPrecision))
}

// AsDecimal returns the decimal type an integral, fractional or decimal type
// takes part as in decimal arithmetic: tinyint → decimal(3,0), smallint →
// decimal(5,0), int → decimal(10,0), bigint → decimal(20,0), float →
// decimal(14,7), double → decimal(30,15). ok is false for other types.
func AsDecimal(t DataType) (d DataType, ok bool) {
	switch t.Kind {
	case Decimal:
		return t, true
	case Byte:
		return DecimalOf(3, 0), true
	case Short:
		return DecimalOf(5, 0), true
	case Int:
		return DecimalOf(10, 0), true
	case Long:
		return DecimalOf(20, 0), true
	case Float:
		return DecimalOf(14, 7), true
	case Double:
		return DecimalOf(30, 15), true
	}
	return Unknown, false
}

// LiteralDecimal returns the narrowest decimal holding the integer literal
// v, as Spark's DecimalType.fromLiteral does for integral literals taking part
// in decimal arithmetic: 1 → decimal(1,0), -123 → decimal(3,0).
func LiteralDecimal(v int64) DataType {
	digits := 1
	u := v
	if u < 0 {
		u = -u
	}
	for u >= 10 {
		u /= 10
		digits++
	}
	if v == -1<<63 {
		digits = 19
	}
	return DecimalOf(digits, 0)
}

// decimalResult returns the type of e1 op e2 for decimal operands.
func decimalResult(op string, a, b DataType) (DataType, bool) {
	p1, s1, p2, s2 := a.Precision, a.Scale, b.Precision, b.Scale
	switch op {
	case "+", "-":
		s := max(s1, s2)
		return AdjustPrecisionScale(max(p1-s1, p2-s2)+s+1, s), true
	case "*":
		return AdjustPrecisionScale(p1+p2+1, s1+s2), true
	case "/":
		s := max(minAdjustedScale, s1+p2+1)
		return AdjustPrecisionScale(p1-s1+s2+s, s), true
	case "%", "pmod":
		s := max(s1, s2)
		return AdjustPrecisionScale(min(p1-s1, p2-s2)+s, s), true
	}
	return Unknown, false
}

// widerDecimal is DecimalPrecision.widerDecimalType: enough integral and
// fractional digits for both, bounded to 38.
func widerDecimal(a, b DataType) DataType {
	s := max(a.Scale, b.Scale)
	return Bounded(max(a.Precision-a.Scale, b.Precision-b.Scale)+s, s)
}
