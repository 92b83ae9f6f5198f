package expr

import (
	"fmt"
	"math"
	"math/big"

	"github.com/hados-io/hados/operators/types"
)

// Arithmetic, per result type (Validate guarantees the operand types):
//
//   - int, bigint: both operands have the result type. +, -, * and unary -
//     wrap around in two's complement (Spark's non-ANSI mode, Java
//     semantics). / is integral division truncating toward zero (Spark's
//     `div`; MinValue / -1 wraps to MinValue) and % the remainder with the
//     dividend's sign (Java's %); either is NULL when the divisor is 0.
//   - double: IEEE 754 for +, -, * and unary -; / and % are NULL when the
//     divisor is ±0.0 (Spark's Divide and Remainder), else IEEE division
//     and Java's floating-point % (math.Mod: truncated, dividend's sign).
//   - decimal: operands are decimals of any precision and scale, the result
//     Type is types.Arithmetic's. Spark's Decimal arithmetic computes
//   - and - exactly; * and / round the exact result to 38 significant
//     digits HALF_UP first (java.math.MathContext(38, HALF_UP), i.e.
//     Decimal.MATH_CONTEXT), and % is exact (BigDecimal.remainder). The
//     result is then rounded HALF_UP to the result scale and is NULL when it
//     does not fit the result precision (CheckOverflow, non-ANSI). A zero
//     divisor gives NULL for / and %. Unary - is exact.
//
// Divergence: where Java's BigDecimal.remainder under MathContext(38) would
// throw (an integral quotient of more than 38 digits, e.g.
// 10^37 % 10^-38) Spark fails the query; this evaluator returns the exact
// remainder instead.
func compileArith(e *Expr, args []evalFn) (evalFn, error) {
	switch e.Type.Kind {
	case types.Int:
		return arithIntegral[int32](e.Op, args), nil
	case types.Long:
		return arithIntegral[int64](e.Op, args), nil
	case types.Double:
		return arithDouble(e.Op, args), nil
	case types.Decimal:
		return arithDecimal(e, args), nil
	}
	return nil, fmt.Errorf("expr: Eval %s: arithmetic on %s is not supported", e, e.Type)
}

func arithIntegral[T int32 | int64](op Op, args []evalFn) evalFn {
	if op == OpNeg {
		return unary(args[0], func(v any) any { return -v.(T) })
	}
	var f func(a, b T) any
	switch op {
	case OpAdd:
		f = func(a, b T) any { return a + b }
	case OpSub:
		f = func(a, b T) any { return a - b }
	case OpMul:
		f = func(a, b T) any { return a * b }
	case OpDiv:
		f = func(a, b T) any {
			if b == 0 {
				return nil
			}
			return a / b // Go, like Java, wraps MinValue / -1 to MinValue
		}
	default: // OpMod
		f = func(a, b T) any {
			if b == 0 {
				return nil
			}
			return a % b
		}
	}
	return binary(args[0], args[1], func(x, y any) any { return f(x.(T), y.(T)) })
}

func arithDouble(op Op, args []evalFn) evalFn {
	if op == OpNeg {
		return unary(args[0], func(v any) any { return -v.(float64) })
	}
	var f func(a, b float64) any
	switch op {
	case OpAdd:
		f = func(a, b float64) any { return a + b }
	case OpSub:
		f = func(a, b float64) any { return a - b }
	case OpMul:
		f = func(a, b float64) any { return a * b }
	case OpDiv:
		f = func(a, b float64) any {
			if b == 0 {
				return nil
			}
			return a / b
		}
	default: // OpMod
		f = func(a, b float64) any {
			if b == 0 {
				return nil
			}
			return math.Mod(a, b)
		}
	}
	return binary(args[0], args[1], func(x, y any) any { return f(x.(float64), y.(float64)) })
}

func arithDecimal(e *Expr, args []evalFn) evalFn {
	p, s := e.Type.Precision, e.Type.Scale
	if e.Op == OpNeg {
		return unary(args[0], func(v any) any {
			return nilIfNone(toPrecision(new(big.Int).Neg(v.(*big.Int)), e.Args[0].Type.Scale, p, s))
		})
	}
	s1, s2 := e.Args[0].Type.Scale, e.Args[1].Type.Scale
	op := e.Op
	return binary(args[0], args[1], func(x, y any) any {
		u, scale := decimalOp(op, x.(*big.Int), s1, y.(*big.Int), s2)
		if u == nil {
			return nil
		}
		return nilIfNone(toPrecision(u, scale, p, s))
	})
}

// decimalOp computes a op b for decimals a = (u1, s1), b = (u2, s2) the way
// Spark's Decimal class does, before the final rounding to the result type.
// It returns the result as (unscaled, scale), or nil for a zero divisor.
func decimalOp(op Op, u1 *big.Int, s1 int, u2 *big.Int, s2 int) (*big.Int, int) {
	s := max(s1, s2)
	switch op {
	case OpAdd:
		return new(big.Int).Add(rescale(u1, s1, s), rescale(u2, s2, s)), s
	case OpSub:
		return new(big.Int).Sub(rescale(u1, s1, s), rescale(u2, s2, s)), s
	case OpMul:
		prod := new(big.Int).Mul(u1, u2)
		if prod.Sign() == 0 {
			return prod, s1 + s2
		}
		// Round the exact product (at scale s1+s2) to 38 digits.
		m, ms := roundSignificant(prod, pow10(0), mathContextDigits)
		return m, ms + s1 + s2
	case OpDiv:
		if u2.Sign() == 0 {
			return nil, 0
		}
		if u1.Sign() == 0 {
			return new(big.Int), 0
		}
		// a/b = (u1·10^s2) / (u2·10^s1).
		num := new(big.Int).Mul(u1, pow10(s2))
		den := new(big.Int).Mul(u2, pow10(s1))
		return roundSignificant(num, den, mathContextDigits)
	default: // OpMod
		if u2.Sign() == 0 {
			return nil, 0
		}
		return new(big.Int).Rem(rescale(u1, s1, s), rescale(u2, s2, s)), s
	}
}

// compileDecimalFn covers CheckOverflow, promote_precision, UnscaledValue
// and MakeDecimal:
//
//	CheckOverflow(x, decimal(p,s)): x rounded HALF_UP to scale s, NULL if it
//	  then has more than p digits (non-ANSI nullOnOverflow).
//	promote_precision(x): x unchanged.
//	UnscaledValue(x): x's unscaled value as bigint (x has precision <= 18).
//	MakeDecimal(v, p, s): the decimal with unscaled value v, NULL if |v| >= 10^p.
func compileDecimalFn(e *Expr, arg evalFn) evalFn {
	switch e.Op {
	case OpPromotePrecision:
		return arg
	case OpUnscaledValue:
		return unary(arg, func(v any) any { return v.(*big.Int).Int64() })
	case OpMakeDecimal:
		p := e.Type.Precision
		return unary(arg, func(v any) any {
			u := big.NewInt(v.(int64))
			if !fitsPrecision(u, p) {
				return nil
			}
			return u
		})
	}
	// OpCheckOverflow
	from, p, s := e.Args[0].Type.Scale, e.Type.Precision, e.Type.Scale
	return unary(arg, func(v any) any { return nilIfNone(toPrecision(v.(*big.Int), from, p, s)) })
}

// nilIfNone turns a nil *big.Int into an untyped nil (NULL).
func nilIfNone(u *big.Int) any {
	if u == nil {
		return nil
	}
	return u
}
