package measure

import (
	"slices"
	"time"
)

// BestAndMedian returns the minimum and the median of a non-empty list of
// durations; it sorts the list in place. With an even number of durations
// the median is the mean of the two middle ones.
func BestAndMedian(times []time.Duration) (best, median time.Duration) {
	slices.Sort(times)
	n := len(times)
	if n%2 == 1 {
		return times[0], times[n/2]
	}
	return times[0], (times[n/2-1] + times[n/2]) / 2
}

// Median is the median of a non-empty list of durations (see
// BestAndMedian); it leaves the list as it is.
func Median(times []time.Duration) time.Duration {
	_, m := BestAndMedian(slices.Clone(times))
	return m
}
