package expr

// Date functions on dates (int32 days since 1970-01-01, proleptic
// Gregorian calendar):
//
//	year, month, dayofmonth: the civil field as int.
//	date_add(d, n), date_sub(d, n): d ± n days; the int32 sum wraps
//	  around as Spark's `start + days` does on Int.
func compileDate(e *Expr, args []evalFn) evalFn {
	switch e.Op {
	case OpYear:
		return unary(args[0], func(v any) any { y, _, _ := CivilFromDays(v.(int32)); return int32(y) })
	case OpMonth:
		return unary(args[0], func(v any) any { _, m, _ := CivilFromDays(v.(int32)); return int32(m) })
	case OpDayOfMonth:
		return unary(args[0], func(v any) any { _, _, d := CivilFromDays(v.(int32)); return int32(d) })
	case OpDateAdd:
		return binary(args[0], args[1], func(d, n any) any { return d.(int32) + n.(int32) })
	}
	// OpDateSub
	return binary(args[0], args[1], func(d, n any) any { return d.(int32) - n.(int32) })
}
