package exchange

import "math/bits"

// JavaRandom reproduces java.util.Random (a 48-bit linear congruential
// generator) bit for bit, so that choices Spark makes with it — the first
// partition of a round-robin exchange — can be repeated here. Not safe for
// concurrent use; owns no memory.
type JavaRandom struct{ seed int64 }

const (
	javaMultiplier = 0x5DEECE66D
	javaAddend     = 0xB
	javaMask       = (int64(1) << 48) - 1
)

// NewJavaRandom is new java.util.Random(seed).
func NewJavaRandom(seed int64) *JavaRandom {
	return &JavaRandom{seed: (seed ^ javaMultiplier) & javaMask}
}

// next is Random.next(bits).
func (r *JavaRandom) next(nbits uint) int32 {
	r.seed = (r.seed*javaMultiplier + javaAddend) & javaMask
	return int32(uint64(r.seed) >> (48 - nbits))
}

// NextInt is Random.nextInt().
func (r *JavaRandom) NextInt() int32 { return r.next(32) }

// NextIntN is Random.nextInt(bound); bound must be positive.
func (r *JavaRandom) NextIntN(bound int32) int32 {
	if bound <= 0 {
		panic("exchange: JavaRandom.NextIntN bound must be positive")
	}
	rv := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(rv)) >> 31)
	}
	for u := rv; ; u = r.next(31) {
		rv = u % bound
		if u-rv+m >= 0 { // int32 overflow makes this negative: reject
			return rv
		}
	}
}

// NextLong is Random.nextLong().
func (r *JavaRandom) NextLong() int64 {
	return int64(r.next(32))<<32 + int64(r.next(32))
}

// NextDouble is Random.nextDouble().
func (r *JavaRandom) NextDouble() float64 {
	return float64(int64(r.next(26))<<27+int64(r.next(27))) * (1.0 / (1 << 53))
}

// Byteswap32 is scala.util.hashing.byteswap32, which Spark applies to a map
// task's partition id before seeding the round-robin start position.
func Byteswap32(v int32) int32 {
	hc := uint32(v) * 0x9e3775cd
	hc = bits.ReverseBytes32(hc)
	return int32(hc * 0x9e3775cd)
}
