package exchange

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// SparkSeed is the seed of Spark's Murmur3Hash expression (hash(), hash
// partitioning and bucketing).
const SparkSeed int32 = 42

const (
	murmurC1 = 0xcc9e2d51
	murmurC2 = 0x1b873593
)

func mixK1(k1 uint32) uint32 {
	k1 *= murmurC1
	k1 = bits.RotateLeft32(k1, 15)
	return k1 * murmurC2
}

func mixH1(h1, k1 uint32) uint32 {
	h1 ^= k1
	h1 = bits.RotateLeft32(h1, 13)
	return h1*5 + 0xe6546b64
}

func fmix(h1, length uint32) uint32 {
	h1 ^= length
	h1 ^= h1 >> 16
	h1 *= 0x85ebca6b
	h1 ^= h1 >> 13
	h1 *= 0xc2b2ae35
	h1 ^= h1 >> 16
	return h1
}

// HashInt is Spark's Murmur3_x86_32.hashInt: one 4-byte block, then the
// finalisation with length 4.
func HashInt(v int32, seed int32) int32 {
	return int32(fmix(mixH1(uint32(seed), mixK1(uint32(v))), 4))
}

// HashLong is Spark's Murmur3_x86_32.hashLong: the low 32 bits are mixed
// first, then the high 32 bits, then the finalisation with length 8.
func HashLong(v int64, seed int32) int32 {
	h1 := mixH1(uint32(seed), mixK1(uint32(v)))
	h1 = mixH1(h1, mixK1(uint32(uint64(v)>>32)))
	return int32(fmix(h1, 8))
}

// HashBytes is Spark's Murmur3_x86_32.hashUnsafeBytes, used for strings,
// binary and wide decimals. The body is read as little-endian 4-byte
// blocks like standard Murmur3, but each of the 0-3 trailing bytes is mixed
// on its own as a sign-extended int (Spark keeps this pre-2.3 quirk for
// compatibility), so results differ from the reference Murmur3 for lengths
// that are not a multiple of 4.
func HashBytes(b []byte, seed int32) int32 {
	h1 := uint32(seed)
	n := len(b)
	for len(b) >= 4 { // re-slicing: no bounds check in the loop
		h1 = mixH1(h1, mixK1(binary.LittleEndian.Uint32(b)))
		b = b[4:]
	}
	for _, c := range b {
		h1 = mixH1(h1, mixK1(uint32(int32(int8(c)))))
	}
	return int32(fmix(h1, uint32(n)))
}

// HashBool hashes a boolean as Spark does: hashInt(1) or hashInt(0).
func HashBool(v bool, seed int32) int32 {
	if v {
		return HashInt(1, seed)
	}
	return HashInt(0, seed)
}

// HashFloat hashes a float as Spark does: hashInt(floatToIntBits(v)), where
// -0.0 hashes like 0.0 and every NaN like Java's canonical NaN 0x7fc00000.
func HashFloat(v float32, seed int32) int32 { return HashInt(floatToIntBits(v), seed) }

// HashDouble hashes a double as Spark does: hashLong(doubleToLongBits(v)),
// where -0.0 hashes like 0.0 and every NaN like 0x7ff8000000000000.
func HashDouble(v float64, seed int32) int32 { return HashLong(doubleToLongBits(v), seed) }

// floatToIntBits is Java's Float.floatToIntBits after Spark's -0.0 check.
func floatToIntBits(v float32) int32 {
	switch {
	case v == 0: // 0.0 and -0.0
		return 0
	case v != v:
		return 0x7fc00000
	}
	return int32(math.Float32bits(v))
}

// doubleToLongBits is Java's Double.doubleToLongBits after Spark's -0.0 check.
func doubleToLongBits(v float64) int64 {
	switch {
	case v == 0:
		return 0
	case v != v:
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(v))
}

// Pmod is Spark's Pmod for ints: the non-negative remainder of a mod n, n > 0.
func Pmod(a int32, n int32) int32 {
	r := a % n
	if r < 0 {
		r += n
	}
	return r
}
