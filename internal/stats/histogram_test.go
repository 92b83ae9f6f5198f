package stats

import (
	"math"
	"testing"
	"time"
)

func TestHistogram(t *testing.T) {
	var h Histogram
	for _, tc := range []struct {
		d      time.Duration
		bucket int
	}{
		{0, 0}, {time.Microsecond, 0}, {1500 * time.Nanosecond, 1}, {2 * time.Microsecond, 1},
		{3 * time.Microsecond, 2}, {time.Millisecond, 10}, {time.Hour, Buckets - 1},
	} {
		before := h.Snapshot().Counts[tc.bucket]
		h.Observe(tc.d)
		if got := h.Snapshot().Counts[tc.bucket]; got != before+1 {
			t.Errorf("%v did not land in bucket %d", tc.d, tc.bucket)
		}
	}
	s := h.Snapshot()
	if s.Count != 7 || !math.IsInf(s.Bounds[Buckets-1], 1) || s.Bounds[10] != 1024e-6 {
		t.Fatalf("snapshot: %+v", s)
	}
	if q := s.Quantile(0.5); q != 2e-6 {
		t.Fatalf("median bound %v", q)
	}
	if (HistogramSnapshot{Counts: make([]uint64, 3)}).Quantile(0.5) != 0 {
		t.Fatal("empty quantile")
	}
}
