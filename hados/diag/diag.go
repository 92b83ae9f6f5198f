package diag

import (
	"context"
	"fmt"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
)

// Options tune a diagnostic run. Zero values take the defaults.
type Options struct {
	// Quick shortens every part (smaller regions, fewer samples): seconds
	// instead of tens of seconds.
	Quick bool
	// Sizes are the transfer sizes of the bandwidth test (default 4 KiB,
	// 1 MiB, 64 MiB; quick: 4 KiB, 1 MiB, 16 MiB).
	Sizes []uint64
	// PatternBytes is the region the memory test covers (default 64 MiB,
	// quick 8 MiB; at most a quarter of the device).
	PatternBytes uint64
	// LatencySamples is the number of programs timed for queue latency
	// (default 2000, quick 200).
	LatencySamples int
	// Progress, if set, is called as each step starts: step i of n.
	Progress func(step string, i, n int)
}

func (o *Options) validate() error {
	for _, s := range o.Sizes {
		if s == 0 {
			return fmt.Errorf("%w: diag: a transfer size of 0 bytes", device.ErrInvalid)
		}
	}
	if o.LatencySamples < 0 {
		return fmt.Errorf("%w: diag: %d latency samples", device.ErrInvalid, o.LatencySamples)
	}
	return nil
}

func (o *Options) defaults(info device.Info) {
	if len(o.Sizes) == 0 {
		o.Sizes = []uint64{4 << 10, 1 << 20, 64 << 20}
		if o.Quick {
			o.Sizes[2] = 16 << 20
		}
	}
	if o.PatternBytes == 0 {
		o.PatternBytes = 64 << 20
		if o.Quick {
			o.PatternBytes = 8 << 20
		}
	}
	o.PatternBytes = min(o.PatternBytes, info.MemoryBytes/4) &^ 4095
	if o.LatencySamples == 0 {
		o.LatencySamples = 2000
		if o.Quick {
			o.LatencySamples = 200
		}
	}
	if o.Progress == nil {
		o.Progress = func(string, int, int) {}
	}
}

// Check is the outcome of one functional test.
type Check struct {
	Name    string  `json:"name"`
	Pass    bool    `json:"pass"`
	Detail  string  `json:"detail"`
	Seconds float64 `json:"seconds"`
}

// Bandwidth is one measured transfer size and direction, beside the
// machine's memcpy bandwidth at the same size measured in the same run.
type Bandwidth struct {
	Direction     string  `json:"direction"`
	Bytes         uint64  `json:"bytes"`
	GBps          float64 `json:"gb_per_s"`
	MemcpyGBps    float64 `json:"memcpy_gb_per_s"`
	Ratio         float64 `json:"ratio_to_memcpy"`
	MicrosPerXfer float64 `json:"us_per_transfer"`
}

// Latency summarises timed samples.
type Latency struct {
	Samples int     `json:"samples"`
	P50us   float64 `json:"p50_us"`
	P99us   float64 `json:"p99_us"`
	MaxUs   float64 `json:"max_us"`
}

// Report is the result of a diagnostic run on one device.
type Report struct {
	Device       device.Info      `json:"device"`
	Pass         bool             `json:"pass"`
	Checks       []Check          `json:"checks"`
	Bandwidth    []Bandwidth      `json:"bandwidth"`
	QueueLatency Latency          `json:"queue_latency"`
	Telemetry    device.Telemetry `json:"telemetry"`
	Seconds      float64          `json:"seconds"`
}

// Run runs the full diagnostic on one unit of a runtime: the driver's
// self-test, memory pattern tests, kernel conformance against the Go
// reference, DMA bandwidth against memcpy, queue latency, telemetry. A
// failed check makes Report.Pass false; an error means the run could not
// finish (the partial report is returned with it).
func Run(ctx context.Context, u *hados.Unit, opts Options) (*Report, error) {
	info := u.Device.Info()
	if err := opts.validate(); err != nil {
		return &Report{Device: info}, err
	}
	opts.defaults(info)
	r := &Report{Device: info}
	start := time.Now()
	steps := []struct {
		name string
		fn   func(context.Context, *hados.Unit, *Options, *Report) error
	}{
		{"self-test", selfTest},
		{"memory patterns", memoryPatterns},
		{"kernel conformance", kernelConformance},
		{"DMA bandwidth", bandwidth},
		{"queue latency", queueLatency},
	}
	var err error
	for i, s := range steps {
		opts.Progress(s.name, i+1, len(steps))
		if err = ctx.Err(); err != nil {
			break
		}
		if err = s.fn(ctx, u, &opts, r); err != nil {
			err = fmt.Errorf("diag: device %s: %s: %w", info.Address, s.name, err)
			break
		}
	}
	r.Telemetry, _ = u.Device.Telemetry()
	r.Seconds = time.Since(start).Seconds()
	r.Pass = err == nil
	for _, c := range r.Checks {
		r.Pass = r.Pass && c.Pass
	}
	return r, err
}

// check runs one functional test and records it.
func (r *Report) check(name string, fn func() (string, error)) {
	start := time.Now()
	detail, err := fn()
	c := Check{Name: name, Pass: err == nil, Detail: detail, Seconds: time.Since(start).Seconds()}
	if err != nil {
		c.Detail = err.Error()
	}
	r.Checks = append(r.Checks, c)
}

func selfTest(_ context.Context, u *hados.Unit, _ *Options, r *Report) error {
	r.check("driver self-test", func() (string, error) { return u.Device.SelfTest() })
	return nil
}
