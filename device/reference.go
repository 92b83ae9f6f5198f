package device

import "encoding/binary"

// The plain Go definitions of what the ABI's data ops compute
// (hados_driver.h). Every driver must match them; tests and diagnostics
// compare devices against them.

const (
	fnvPrime = 0x100000001B3
	golden   = 0x9E3779B97F4A7C15
)

// Checksum computes what OpChecksum computes over b.
func Checksum(b []byte) uint64 {
	var h [8]uint64
	for j := range h {
		h[j] = golden * uint64(j+1)
	}
	words := len(b) / 8
	for i := 0; i < words; i++ {
		h[i&7] = (h[i&7] ^ binary.LittleEndian.Uint64(b[8*i:])) * fnvPrime
	}
	if tail := b[8*words:]; len(tail) > 0 {
		var buf [8]byte
		copy(buf[:], tail)
		h[0] = (h[0] ^ binary.LittleEndian.Uint64(buf[:])) * fnvPrime
	}
	r := uint64(len(b))
	for j := range h {
		r = (r ^ h[j]) * fnvPrime
	}
	return r
}

func splitmix64(x uint64) uint64 {
	x += golden
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// PatternWord is word i of a pattern of the given kind (Pattern*)
// written at device address base with seed.
func PatternWord(kind uint64, i, seed, base uint64) uint64 {
	switch kind {
	case 0: // walking ones
		w := uint64(1) << (i & 63)
		if (i>>6)&1 == 1 {
			return ^w
		}
		return w
	case 1: // random
		return splitmix64(seed + i)
	default: // address
		return base + 8*i
	}
}
