package expr

import (
	"math/big"
	"sync"
)

// Exact decimal arithmetic on unscaled *big.Int values. A decimal value is
// the pair (unscaled u, scale s) meaning u × 10^-s; the scale comes from the
// expression's type. All rounding is HALF_UP (ties away from zero), Java's
// RoundingMode.HALF_UP that Spark uses everywhere.

// mathContextDigits is the precision of Spark's Decimal.MATH_CONTEXT
// (new MathContext(38, HALF_UP)), applied to products and quotients.
const mathContextDigits = 38

var (
	pow10Mu    sync.Mutex
	pow10Cache []*big.Int
)

// pow10 returns 10^n for n >= 0. The result is shared: do not modify it.
func pow10(n int) *big.Int {
	pow10Mu.Lock()
	defer pow10Mu.Unlock()
	for len(pow10Cache) <= n {
		if len(pow10Cache) == 0 {
			pow10Cache = append(pow10Cache, big.NewInt(1))
			continue
		}
		last := pow10Cache[len(pow10Cache)-1]
		pow10Cache = append(pow10Cache, new(big.Int).Mul(last, big.NewInt(10)))
	}
	return pow10Cache[n]
}

// roundQuo returns num/den rounded HALF_UP to an integer; den != 0.
func roundQuo(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	// |2r| >= |den| rounds away from zero.
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.CmpAbs(den) >= 0 {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// roundRat returns the unscaled value at scale s (which may be negative) of
// the rational num/den rounded HALF_UP: round(num/den × 10^s).
func roundRat(num, den *big.Int, s int) *big.Int {
	if s >= 0 {
		return roundQuo(new(big.Int).Mul(num, pow10(s)), den)
	}
	return roundQuo(num, new(big.Int).Mul(den, pow10(-s)))
}

// rescale returns u (at scale from) at scale to, rounding HALF_UP when to
// is smaller.
func rescale(u *big.Int, from, to int) *big.Int {
	if to >= from {
		return new(big.Int).Mul(u, pow10(to-from))
	}
	return roundQuo(u, pow10(from-to))
}

// fitsPrecision reports |u| < 10^p.
func fitsPrecision(u *big.Int, p int) bool {
	return u.CmpAbs(pow10(p)) < 0
}

// toPrecision is Spark's Decimal.toPrecision(p, s, HALF_UP, nullOnOverflow
// = true): u at scale from rounded to scale s, or nil when the result has
// more than p digits.
func toPrecision(u *big.Int, from, p, s int) *big.Int {
	r := rescale(u, from, s)
	if !fitsPrecision(r, p) {
		return nil
	}
	return r
}

// numDigits returns the number of decimal digits of |u| (1 for zero).
func numDigits(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	// BitLen*log10(2) estimates the digit count to within one.
	n := int(float64(u.BitLen())*0.30102999566398120) + 1
	if n > 1 && u.CmpAbs(pow10(n-1)) < 0 {
		n--
	}
	if u.CmpAbs(pow10(n)) >= 0 {
		n++
	}
	return n
}

// roundSignificant rounds the rational num/den (den != 0, num != 0) to
// digits significant digits HALF_UP, as java.math.BigDecimal does under a
// MathContext of that precision. It returns the result as an unscaled
// value and its scale.
func roundSignificant(num, den *big.Int, digits int) (*big.Int, int) {
	// e is the decimal exponent of the leading digit plus one:
	// 10^(e-1) <= |num/den| < 10^e.
	e := numDigits(num) - numDigits(den)
	// |num/den| >= 10^e  <=>  |num| >= |den|·10^e (e may be negative).
	l, r := new(big.Int).Abs(num), new(big.Int).Abs(den)
	if e >= 0 {
		r.Mul(r, pow10(e))
	} else {
		l.Mul(l, pow10(-e))
	}
	if l.Cmp(r) >= 0 {
		e++
	}
	s := digits - e
	return roundRat(num, den, s), s
}
