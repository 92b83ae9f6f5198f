package metrics

import (
	"fmt"
	"math"

	"github.com/hados-io/hados/internal/stats"
)

// promHistogram converts a stats.HistogramSnapshot to the form of a
// Prometheus const histogram.
//
// The snapshot counts each bucket on its own and ends with a +Inf bucket;
// Prometheus wants, for every finite upper bound, the number of observations
// at or below it (cumulative), and the total count, which stands for the
// implicit +Inf bucket. The total is the sum of the bucket counts rather than
// the snapshot's Count: the snapshot loads its counters one by one while
// observations continue, and only the sum is guaranteed to agree with the
// buckets. A zero snapshot (no bounds) converts to an empty histogram.
//
// A malformed snapshot — bounds and counts of different lengths, bounds not
// strictly increasing, a NaN bound, +Inf anywhere but last, or counts whose
// sum overflows — is an error naming what is wrong.
func promHistogram(h stats.HistogramSnapshot) (buckets map[float64]uint64, count uint64, err error) {
	if len(h.Bounds) != len(h.Counts) {
		return nil, 0, fmt.Errorf("histogram has %d bounds but %d counts", len(h.Bounds), len(h.Counts))
	}
	buckets = make(map[float64]uint64, len(h.Bounds))
	for i, b := range h.Bounds {
		switch {
		case math.IsNaN(b):
			return nil, 0, fmt.Errorf("histogram bound %d is NaN", i)
		case i > 0 && b <= h.Bounds[i-1]:
			return nil, 0, fmt.Errorf("histogram bounds are not increasing: bound %d is %g after %g", i, b, h.Bounds[i-1])
		case math.IsInf(b, 1) && i != len(h.Bounds)-1:
			return nil, 0, fmt.Errorf("histogram bound %d of %d is +Inf; only the last may be", i, len(h.Bounds))
		}
		next := count + h.Counts[i]
		if next < count {
			return nil, 0, fmt.Errorf("histogram counts overflow at bucket %d", i)
		}
		count = next
		if !math.IsInf(b, 1) {
			buckets[b] = count
		}
	}
	return buckets, count, nil
}
