// Package stats holds the small lock-free counters the runtime layers keep
// and export through Stats() snapshots (read by package metrics).
package stats

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram counts durations in log2 buckets: bucket i holds observations
// up to 2^i microseconds (bucket 0: up to 1 µs), the last one everything
// above. The zero value is ready to use; safe for concurrent use.
type Histogram struct {
	counts [Buckets]atomic.Uint64
	sumNs  atomic.Uint64
	n      atomic.Uint64
}

// Buckets is the number of buckets: 1 µs to 2^25 µs (about 33 s), plus +Inf.
const Buckets = 27

// Observe records one duration.
func (h *Histogram) Observe(d time.Duration) {
	if d < 0 {
		d = 0
	}
	us := (uint64(d) + 999) / 1000 // microseconds, rounded up
	i := 0
	if us > 1 {
		i = bits.Len64(us - 1) // ceil(log2(us))
	}
	if i >= Buckets {
		i = Buckets - 1
	}
	h.counts[i].Add(1)
	h.sumNs.Add(uint64(d))
	h.n.Add(1)
}

// HistogramSnapshot is a point-in-time copy of a Histogram.
type HistogramSnapshot struct {
	Bounds []float64 `json:"bounds_seconds"` // upper bound of each bucket; the last is +Inf
	Counts []uint64  `json:"counts"`         // per bucket, not cumulative
	Sum    float64   `json:"sum_seconds"`
	Count  uint64    `json:"count"`
}

// Snapshot copies the histogram.
func (h *Histogram) Snapshot() HistogramSnapshot {
	s := HistogramSnapshot{Bounds: make([]float64, Buckets), Counts: make([]uint64, Buckets)}
	for i := range s.Bounds {
		s.Bounds[i] = float64(uint64(1)<<i) * 1e-6
		s.Counts[i] = h.counts[i].Load()
	}
	s.Bounds[Buckets-1] = math.Inf(1)
	s.Sum = float64(h.sumNs.Load()) / 1e9
	s.Count = h.n.Load()
	return s
}

// Quantile estimates the q-quantile (0..1) as the upper bound of the bucket
// that holds it; 0 when empty.
func (s HistogramSnapshot) Quantile(q float64) float64 {
	var total uint64
	for _, c := range s.Counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	if rank == 0 {
		rank = 1
	}
	var cum uint64
	for i, c := range s.Counts {
		cum += c
		if cum >= rank {
			return s.Bounds[i]
		}
	}
	return s.Bounds[len(s.Bounds)-1]
}
