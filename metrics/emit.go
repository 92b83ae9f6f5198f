package metrics

import (
	"fmt"

	"github.com/hados-io/hados/internal/stats"
	"github.com/prometheus/client_golang/prometheus"
)

// emitter sends const metrics to a Collect channel. A value that cannot
// become a metric (a label value that is not UTF-8, a malformed histogram)
// is sent as an invalid metric carrying an error that names the family, so
// the registry reports it on Gather and the rest of the scrape goes on.
type emitter struct {
	ch chan<- prometheus.Metric
}

// value emits one sample of a counter or gauge family.
func (e emitter) value(f *family, v float64, labelValues ...string) {
	m, err := prometheus.NewConstMetric(f.desc, f.kind.valueType(), v, labelValues...)
	if err != nil {
		e.invalid(f, err)
		return
	}
	e.ch <- m
}

// count emits a uint64 counter or gauge sample (exact up to 2^53).
func (e emitter) count(f *family, v uint64, labelValues ...string) {
	e.value(f, float64(v), labelValues...)
}

// histogram emits one histogram of a histogram family.
func (e emitter) histogram(f *family, h stats.HistogramSnapshot, labelValues ...string) {
	buckets, count, err := promHistogram(h)
	if err != nil {
		e.invalid(f, err)
		return
	}
	m, err := prometheus.NewConstHistogram(f.desc, count, h.Sum, buckets, labelValues...)
	if err != nil {
		e.invalid(f, err)
		return
	}
	e.ch <- m
}

// invalid emits an error in place of a sample of f.
func (e emitter) invalid(f *family, err error) {
	e.ch <- prometheus.NewInvalidMetric(f.desc, fmt.Errorf("metrics: %s: %w", f.name, err))
}
