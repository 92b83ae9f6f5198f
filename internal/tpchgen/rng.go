package tpchgen

import "math/bits"

// The generator is counter-based: every random value is a pure function of
// (seed, stream, row), where a stream names one column's draws (for example
// "lineitem quantity"). A row therefore never depends on which batch, file
// or goroutine produced it, nor on which other columns were generated, so
// tables can be split anywhere and generated in parallel with identical
// results. Each (stream, row) pair seeds a tiny SplitMix64 sequence; a
// column that needs several draws for one value (a name of five colours, a
// phone number) takes them from that sequence in order.

const golden = 0x9e3779b97f4a7c15

// mix64 is the SplitMix64 finaliser: a fast bijective 64-bit hash.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// streamID names one column's sequence of random draws. Values must never
// change once data has been published: changing one changes the data.
type streamID uint64

// rng is a SplitMix64 sequence positioned at one (seed, stream, row).
type rng struct{ s uint64 }

// rngAt returns the sequence for row of stream under seed.
func rngAt(seed uint64, id streamID, row int64) rng {
	k := mix64(seed ^ (uint64(id)+1)*golden)
	return rng{s: mix64(k ^ mix64(uint64(row)+golden))}
}

func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// between returns a uniform integer in [lo, hi] (inclusive); hi >= lo.
func (r *rng) between(lo, hi int64) int64 {
	h, _ := bits.Mul64(r.next(), uint64(hi-lo)+1)
	return lo + int64(h)
}

// index returns a uniform integer in [0, n); n > 0.
func (r *rng) index(n int) int {
	h, _ := bits.Mul64(r.next(), uint64(n))
	return int(h)
}
