package metrics

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hados-io/hados/internal/stats"
)

func TestPromHistogram(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name        string
		in          stats.HistogramSnapshot
		wantBuckets map[float64]uint64
		wantCount   uint64
		wantErr     string
	}{
		{name: "zero snapshot", in: stats.HistogramSnapshot{}, wantBuckets: map[float64]uint64{}},
		{name: "cumulative, +Inf dropped",
			in:          stats.HistogramSnapshot{Bounds: []float64{1, 2, 4, inf}, Counts: []uint64{1, 0, 2, 3}, Count: 6},
			wantBuckets: map[float64]uint64{1: 1, 2: 1, 4: 3}, wantCount: 6},
		{name: "count is the sum of the buckets, not Count",
			in:          stats.HistogramSnapshot{Bounds: []float64{1, inf}, Counts: []uint64{2, 1}, Count: 2},
			wantBuckets: map[float64]uint64{1: 2}, wantCount: 3},
		{name: "no +Inf bucket",
			in:          stats.HistogramSnapshot{Bounds: []float64{0.5, 1}, Counts: []uint64{1, 1}},
			wantBuckets: map[float64]uint64{0.5: 1, 1: 2}, wantCount: 2},
		{name: "length mismatch", in: stats.HistogramSnapshot{Bounds: []float64{1}, Counts: []uint64{1, 2}},
			wantErr: "1 bounds but 2 counts"},
		{name: "not increasing", in: stats.HistogramSnapshot{Bounds: []float64{1, 1}, Counts: []uint64{1, 2}},
			wantErr: "not increasing: bound 1 is 1 after 1"},
		{name: "NaN", in: stats.HistogramSnapshot{Bounds: []float64{math.NaN()}, Counts: []uint64{1}},
			wantErr: "bound 0 is NaN"},
		{name: "+Inf not last", in: stats.HistogramSnapshot{Bounds: []float64{inf, 1}, Counts: []uint64{1, 2}},
			wantErr: "bound 0 of 2 is +Inf"},
		{name: "overflow", in: stats.HistogramSnapshot{Bounds: []float64{1, 2}, Counts: []uint64{math.MaxUint64, 1}},
			wantErr: "overflow at bucket 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			buckets, count, err := promHistogram(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if count != tc.wantCount {
				t.Errorf("count = %d, want %d", count, tc.wantCount)
			}
			if len(buckets) != len(tc.wantBuckets) {
				t.Errorf("buckets = %v, want %v", buckets, tc.wantBuckets)
			}
			for b, c := range tc.wantBuckets {
				if buckets[b] != c {
					t.Errorf("bucket le=%g = %d, want %d", b, buckets[b], c)
				}
			}
		})
	}
}

// TestPromHistogramRuntimeLayout converts a real stats.Histogram: 26 finite
// buckets, the +Inf one implicit, cumulative counts ending at the total.
func TestPromHistogramRuntimeLayout(t *testing.T) {
	var h stats.Histogram
	for _, d := range []time.Duration{0, time.Microsecond, 3 * time.Millisecond, time.Minute} {
		h.Observe(d)
	}
	buckets, count, err := promHistogram(h.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if len(buckets) != stats.Buckets-1 || count != 4 {
		t.Fatalf("%d buckets, count %d; want %d buckets, count 4", len(buckets), count, stats.Buckets-1)
	}
	if buckets[1e-6] != 2 || buckets[0.004096] != 3 || buckets[33.554432] != 3 {
		t.Errorf("unexpected cumulative counts %v", buckets)
	}
}

// FuzzPromHistogram feeds arbitrary bounds and counts: the conversion
// either fails with an error or yields cumulative counts that never
// decrease and never exceed the total.
func FuzzPromHistogram(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add(float64s(1e-6, 2e-6, math.Inf(1)), uint64s(1, 2, 3))
	f.Add(float64s(2, 1), uint64s(1, 1))
	f.Add(float64s(math.NaN()), uint64s(1))
	f.Add(float64s(1), uint64s(math.MaxUint64, 1))
	f.Fuzz(func(t *testing.T, rawBounds, rawCounts []byte) {
		h := stats.HistogramSnapshot{}
		for ; len(rawBounds) >= 8; rawBounds = rawBounds[8:] {
			h.Bounds = append(h.Bounds, math.Float64frombits(binary.LittleEndian.Uint64(rawBounds)))
		}
		for ; len(rawCounts) >= 8; rawCounts = rawCounts[8:] {
			h.Counts = append(h.Counts, binary.LittleEndian.Uint64(rawCounts))
		}
		buckets, count, err := promHistogram(h)
		if err != nil {
			return
		}
		prev := uint64(0)
		for _, b := range h.Bounds {
			if math.IsInf(b, 1) {
				continue
			}
			c, ok := buckets[b]
			if !ok {
				t.Fatalf("finite bound %g missing from %v", b, buckets)
			}
			if c < prev || c > count {
				t.Fatalf("bucket le=%g = %d after %d, total %d", b, c, prev, count)
			}
			prev = c
		}
	})
}

func float64s(v ...float64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func uint64s(v ...uint64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}
