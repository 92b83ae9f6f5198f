package measure

import (
	"slices"
	"testing"
	"time"
)

func TestBestAndMedian(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name         string
		in           []time.Duration
		best, median time.Duration
	}{
		{"one", []time.Duration{5 * ms}, 5 * ms, 5 * ms},
		{"odd", []time.Duration{9 * ms, 1 * ms, 5 * ms}, 1 * ms, 5 * ms},
		{"two", []time.Duration{4 * ms, 2 * ms}, 2 * ms, 3 * ms},
		{"even", []time.Duration{7 * ms, 1 * ms, 3 * ms, 5 * ms}, 1 * ms, 4 * ms},
		{"ties", []time.Duration{2 * ms, 2 * ms, 2 * ms}, 2 * ms, 2 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.in)
			if m := Median(in); m != tt.median {
				t.Errorf("Median(%v) = %v, want %v", tt.in, m, tt.median)
			}
			if !slices.Equal(in, tt.in) {
				t.Errorf("Median reordered its argument: %v, was %v", in, tt.in)
			}
			best, median := BestAndMedian(in)
			if best != tt.best || median != tt.median {
				t.Errorf("BestAndMedian(%v) = %v, %v, want %v, %v", tt.in, best, median, tt.best, tt.median)
			}
			if !slices.IsSorted(in) {
				t.Errorf("BestAndMedian left %v unsorted", in)
			}
		})
	}
}

func TestProcessCPUAdvances(t *testing.T) {
	c0 := ProcessCPU()
	if c0 == 0 {
		t.Skip("no process CPU time on this platform")
	}
	// Spin until the kernel accounts some CPU time (its tick is at most
	// tens of milliseconds), giving up after a second of wall time.
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		if ProcessCPU() > c0 {
			return
		}
	}
	t.Errorf("ProcessCPU stayed at %v through a second of spinning", c0)
}
