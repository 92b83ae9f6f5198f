package expr

import (
	"math"
	"math/big"
	"strings"

	"github.com/hados-io/hados/operators/types"
)

// Comparisons, three-valued logic, IN and the conditionals.
//
// Ordering is Spark's: false < true; integers, dates and timestamps by
// value; decimals by exact value (operands of different scales compare
// exactly); strings by their UTF-8 bytes; doubles with -0.0 = 0.0, NaN =
// NaN and NaN greater than every other value (SQLOrderingUtil.compareDoubles).
// =, <, … are NULL when an operand is NULL; <=> never is.

// compareValues returns -1, 0 or +1 ordering two non-null values of
// comparable types xt and yt.
func compareValues(x, y any, xt, yt types.DataType) int {
	switch a := x.(type) {
	case bool:
		b := y.(bool)
		switch {
		case a == b:
			return 0
		case !a:
			return -1
		}
		return 1
	case int32:
		return cmpOrdered(a, y.(int32))
	case int64:
		return cmpOrdered(a, y.(int64))
	case float64:
		return compareDoubles(a, y.(float64))
	case string:
		return strings.Compare(a, y.(string))
	case *big.Int:
		b := y.(*big.Int)
		if xt.Scale == yt.Scale {
			return a.Cmp(b)
		}
		s := max(xt.Scale, yt.Scale)
		return rescale(a, xt.Scale, s).Cmp(rescale(b, yt.Scale, s))
	}
	panic("expr: compareValues: unexpected value type") // Validate rules this out
}

func cmpOrdered[T int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareDoubles is Spark's total order on doubles: NaN = NaN and is the
// largest value; -0.0 = 0.0.
func compareDoubles(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compileCompare(e *Expr, args []evalFn) evalFn {
	lt, rt := e.Args[0].Type, e.Args[1].Type
	if e.Op == OpEqNullSafe {
		return func(r *row) any {
			x, y := args[0](r), args[1](r)
			if x == nil || y == nil {
				return x == nil && y == nil
			}
			return compareValues(x, y, lt, rt) == 0
		}
	}
	var test func(c int) bool
	switch e.Op {
	case OpEq:
		test = func(c int) bool { return c == 0 }
	case OpNe:
		test = func(c int) bool { return c != 0 }
	case OpLt:
		test = func(c int) bool { return c < 0 }
	case OpLe:
		test = func(c int) bool { return c <= 0 }
	case OpGt:
		test = func(c int) bool { return c > 0 }
	default: // OpGe
		test = func(c int) bool { return c >= 0 }
	}
	return binary(args[0], args[1], func(x, y any) any { return test(compareValues(x, y, lt, rt)) })
}

// compileLogic covers AND, OR, NOT, IS [NOT] NULL and IN.
//
//	AND: false if either side is false, else NULL if either is NULL, else true.
//	OR:  true if either side is true, else NULL if either is NULL, else false.
//	NOT: NULL stays NULL.
//	x IN (v1, …): NULL if x is NULL; true if x equals some vi; else NULL if
//	some vi is NULL; else false. Equality is the comparison order above
//	(NaN equals NaN).
func compileLogic(e *Expr, args []evalFn) evalFn {
	switch e.Op {
	case OpAnd, OpOr:
		// decisive is the value that settles the result on its own.
		decisive := e.Op == OpOr
		return func(r *row) any {
			x := args[0](r)
			if x != nil && x.(bool) == decisive {
				return decisive
			}
			y := args[1](r)
			if y != nil && y.(bool) == decisive {
				return decisive
			}
			if x == nil || y == nil {
				return nil
			}
			return !decisive
		}
	case OpNot:
		return unary(args[0], func(v any) any { return !v.(bool) })
	case OpIsNull:
		return func(r *row) any { return args[0](r) == nil }
	case OpIsNotNull:
		return func(r *row) any { return args[0](r) != nil }
	}
	// OpIn
	xt := e.Args[0].Type
	list := e.Args[1:]
	return func(r *row) any {
		x := args[0](r)
		if x == nil {
			return nil
		}
		sawNull := false
		for i, item := range list {
			v := args[i+1](r)
			if v == nil {
				sawNull = true
				continue
			}
			if compareValues(x, v, xt, item.Type) == 0 {
				return true
			}
		}
		if sawNull {
			return nil
		}
		return false
	}
}

// compileConditional covers CASE, IF and coalesce. A condition selects its
// branch only when it is true (NULL counts as not true); CASE without ELSE
// gives NULL; coalesce gives its first non-null argument or NULL.
func compileConditional(e *Expr, args []evalFn) evalFn {
	switch e.Op {
	case OpIf:
		return func(r *row) any {
			if c := args[0](r); c != nil && c.(bool) {
				return args[1](r)
			}
			return args[2](r)
		}
	case OpCoalesce:
		return func(r *row) any {
			for _, a := range args {
				if v := a(r); v != nil {
					return v
				}
			}
			return nil
		}
	}
	// OpCaseWhen
	return func(r *row) any {
		n := len(args)
		for i := 0; i+1 < n; i += 2 {
			if c := args[i](r); c != nil && c.(bool) {
				return args[i+1](r)
			}
		}
		if n%2 == 1 {
			return args[n-1](r)
		}
		return nil
	}
}
