package expr

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// roundSignificantOracle rounds |num/den| to n significant digits HALF_UP
// by schoolbook long division, digit by digit: an implementation
// independent of roundSignificant's exponent estimate. It returns the
// value as a big.Rat (with num/den's sign).
func roundSignificantOracle(num, den *big.Int, n int) *big.Rat {
	a, d := new(big.Int).Abs(num), new(big.Int).Abs(den)
	intPart, rem := new(big.Int).QuoRem(a, d, new(big.Int))
	var digits strings.Builder
	exp := 0 // value = 0.digits × 10^exp
	if intPart.Sign() > 0 {
		s := intPart.String()
		digits.WriteString(s)
		exp = len(s)
	}
	ten := big.NewInt(10)
	for digits.Len() < n+1 { // n digits and a guard digit
		rem.Mul(rem, ten)
		q, r := new(big.Int).QuoRem(rem, d, new(big.Int))
		rem = r
		if digits.Len() == 0 && q.Sign() == 0 {
			exp-- // leading zero after the point
			continue
		}
		digits.WriteString(q.String())
	}
	ds := digits.String() // may be longer than n+1 when the integer part is
	kept, guard := ds[:n], ds[n]
	m, _ := new(big.Int).SetString(kept, 10)
	if guard >= '5' {
		m.Add(m, big.NewInt(1))
	}
	// value = m × 10^(exp-n)
	r := new(big.Rat).SetInt(m)
	if e := exp - n; e >= 0 {
		r.Mul(r, new(big.Rat).SetInt(pow10(e)))
	} else {
		r.Quo(r, new(big.Rat).SetInt(pow10(-e)))
	}
	if (num.Sign() < 0) != (den.Sign() < 0) {
		r.Neg(r)
	}
	return r
}

func randomBig(rng *rand.Rand, maxDigits int) *big.Int {
	n := 1 + rng.IntN(maxDigits)
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = byte('0' + rng.IntN(10))
	}
	u, _ := new(big.Int).SetString(string(buf), 10)
	if u.Sign() == 0 {
		u.SetInt64(1)
	}
	if rng.IntN(2) == 0 {
		u.Neg(u)
	}
	return u
}

func TestRoundSignificantAgainstLongDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		num, den := randomBig(rng, 80), randomBig(rng, 40)
		if i%7 == 0 { // quotients with a 9999… or 4999… tail exercise the carries
			num = new(big.Int).Sub(new(big.Int).Mul(den, pow10(1+rng.IntN(50))), big.NewInt(int64(rng.IntN(3))))
		}
		n := 1 + rng.IntN(mathContextDigits)
		u, s := roundSignificant(num, den, n)
		got := new(big.Rat).SetFrac(u, big.NewInt(1))
		if s >= 0 {
			got.Quo(got, new(big.Rat).SetInt(pow10(s)))
		} else {
			got.Mul(got, new(big.Rat).SetInt(pow10(-s)))
		}
		if want := roundSignificantOracle(num, den, n); got.Cmp(want) != 0 {
			t.Fatalf("roundSignificant(%s/%s, %d) = %s, want %s", num, den, n, got.FloatString(40), want.FloatString(40))
		}
	}
}
