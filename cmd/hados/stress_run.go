package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/goleak"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/internal/reliability"
	"github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/race/exec"
)

type stressOptions struct {
	duration        time.Duration
	tasks           int
	faults          string
	cancel          float64
	sf              float64
	warehouse       string
	queries         []int
	watchdog        time.Duration
	taskMemory      uint64
	seed            int64
	healthy, faulty hados.Config
}

// withFaults adds the soft device options in faults ("k=v,k=v") to every
// device entry of cfg, replacing options of the same name.
func withFaults(cfg hados.Config, faults string) (hados.Config, error) {
	if strings.TrimSpace(faults) == "" {
		return cfg, nil
	}
	specs, err := device.ParseSpecs(cfg.Devices)
	if err != nil {
		return cfg, err
	}
	add, err := device.ParseSpecs("soft:" + faults)
	if err != nil {
		return cfg, fmt.Errorf("--faults %q: %w", faults, err)
	}
	entries := make([]string, len(specs))
	for i, s := range specs {
		for _, o := range add[0].Options {
			s.Options = slices.DeleteFunc(slices.Clone(s.Options), func(x device.Option) bool { return x.Key == o.Key })
			s.Options = append(s.Options, o)
		}
		entries[i] = s.String()
	}
	if err := cfg.Set("spark.hados.devices", strings.Join(entries, ";")); err != nil {
		return cfg, fmt.Errorf("--faults %q: %w", faults, err)
	}
	return cfg, nil
}

// stressSummary is what a stress run counted.
type stressSummary struct {
	devices    string
	taskMemory uint64
	queries    []string
	elapsed    time.Duration
	completed  int // the reference rows came back
	retried    int // of those, queries in which the executor re-ran a task
	fellBack   map[reliability.Cause]int
	cancelled  int
	failed     []string // errors naming no cause
	wrong      []string // wrong answers
	latencies  []time.Duration
	faults     reliability.Counts
	leaks      []string
}

// runStress runs the reference on a healthy runtime, then the stress on a
// faulty one, and checks for leaks.
func runStress(ctx context.Context, o stressOptions, log *slog.Logger) (*stressSummary, error) {
	if o.tasks < 1 || o.duration <= 0 || o.cancel < 0 || o.cancel > 1 {
		return nil, fmt.Errorf("stress: want --tasks ≥ 1, --duration > 0 and --cancel in [0, 1]")
	}
	baseline := goleak.IgnoreCurrent()
	// open the faulty devices first: a bad --faults option fails at once
	rt, err := hados.Open(o.faulty, hados.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	closed := false
	defer func() {
		if !closed {
			rt.Close()
		}
	}()
	scratch, err := os.MkdirTemp("", "hados-stress-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	wopts := reliability.WorkloadOptions{Dir: o.warehouse, SF: o.sf, Queries: o.queries, Existing: o.warehouse != ""}
	if wopts.Dir == "" {
		wopts.Dir = filepath.Join(scratch, "warehouse")
	}
	w, err := reliability.NewWorkload(ctx, wopts)
	if err != nil {
		return nil, err
	}
	// each query runs one task at a time, so --tasks is the number of
	// concurrent tasks; by default they share the devices' memory evenly
	// (as Spark's task resource amount would), not each the whole device
	env := exec.Env{Parallelism: 1, ShuffleDir: filepath.Join(scratch, "shuffle"), SpillDir: filepath.Join(scratch, "spill"),
		TaskMemory: o.taskMemory}
	if env.TaskMemory == 0 {
		var total uint64
		for _, u := range rt.Units() {
			total += u.Device.Info().MemoryBytes
		}
		env.TaskMemory = total / uint64(o.tasks)
	}
	for _, d := range []string{env.ShuffleDir, env.SpillDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	if err := reference(ctx, w, env, o.healthy); err != nil {
		return nil, err
	}
	if len(w.Queries) == 0 {
		return nil, fmt.Errorf("stress: the executor runs none of the queries asked for")
	}
	env.Runtime = rt
	s := &stressSummary{devices: o.faulty.Devices, taskMemory: env.TaskMemory, fellBack: map[reliability.Cause]int{}}
	for _, q := range w.Queries {
		s.queries = append(s.queries, q.Name())
	}
	start := time.Now()
	drive(ctx, o, w, env, s)
	s.elapsed = time.Since(start)
	s.faults = reliability.FaultCounts(rt)
	if err := reliability.CheckIdle(rt); err != nil {
		s.leaks = append(s.leaks, err.Error())
	}
	closed = true
	if err := rt.Close(); err != nil {
		s.leaks = append(s.leaks, err.Error())
	}
	if err := reliability.CheckNoFiles(env.ShuffleDir, env.SpillDir); err != nil {
		s.leaks = append(s.leaks, err.Error())
	}
	if err := goleak.Find(baseline); err != nil {
		s.leaks = append(s.leaks, err.Error())
	}
	return s, nil
}

// reference runs each query once on a healthy runtime.
func reference(ctx context.Context, w *reliability.Workload, env exec.Env, cfg hados.Config) error {
	rt, err := hados.Open(cfg, hados.Options{})
	if err != nil {
		return err
	}
	env.Runtime = rt
	return errors.Join(w.Reference(ctx, env), rt.Close())
}

// drive keeps o.tasks queries running until o.duration passes (or ctx
// ends), cancelling a fraction of them at a random moment.
func drive(ctx context.Context, o stressOptions, w *reliability.Workload, env exec.Env, s *stressSummary) {
	ctx, stop := context.WithTimeout(ctx, o.duration)
	defer stop()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for task := range o.tasks {
		rng := rand.New(rand.NewPCG(uint64(o.seed), uint64(task)))
		wg.Go(func() {
			for ctx.Err() == nil {
				q := w.Queries[rng.IntN(len(w.Queries))]
				qctx, cancel := context.WithCancel(ctx)
				timer := (*time.Timer)(nil)
				if rng.Float64() < o.cancel {
					// anywhere from before the start to well into the query
					timer = time.AfterFunc(time.Duration(rng.Int64N(int64(100*time.Millisecond))), cancel)
				}
				out := w.Run(qctx, env, q)
				if timer != nil {
					timer.Stop()
				}
				cancel()
				if ctx.Err() != nil && out.Err != nil {
					return // the run ended under the query: not counted
				}
				mu.Lock()
				s.record(out)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func (s *stressSummary) record(o reliability.Outcome) {
	switch {
	case o.Wrong != "":
		s.wrong = append(s.wrong, fmt.Sprintf("Q%d: %s", o.Query, o.Wrong))
	case o.Err == nil:
		s.completed++
		s.latencies = append(s.latencies, o.Latency)
		if o.Retries > 0 {
			s.retried++
		}
	case o.Cause == reliability.Cancelled:
		s.cancelled++
	case o.Cause.Fallback():
		s.fellBack[o.Cause]++
	default:
		s.failed = append(s.failed, fmt.Sprintf("Q%d: %v", o.Query, o.Err))
	}
}

// percentile of sorted durations (0 for none).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

func (s *stressSummary) print(w io.Writer) {
	lat := slices.Clone(s.latencies)
	slices.Sort(lat)
	fallen := 0
	var causes []string
	for c, n := range s.fellBack {
		fallen += n
		causes = append(causes, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(causes)
	total := s.completed + fallen + s.cancelled + len(s.failed) + len(s.wrong)
	fmt.Fprintf(w, "devices     %s (task memory %s)\n", s.devices, memory.FormatBytes(s.taskMemory))
	fmt.Fprintf(w, "queries     %s\n", strings.Join(s.queries, " "))
	fmt.Fprintf(w, "ran         %d in %v (%.1f/s)\n", total, s.elapsed.Round(time.Millisecond), float64(total)/max(s.elapsed.Seconds(), 1e-9))
	fmt.Fprintf(w, "completed   %d\n", s.completed)
	fmt.Fprintf(w, "retried     %d (completed after a task retry); DMA descriptors retried %d\n", s.retried, s.faults.DMARetries)
	fmt.Fprintf(w, "fell back   %d", fallen)
	if len(causes) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(causes, ", "))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "cancelled   %d\n", s.cancelled)
	fmt.Fprintf(w, "failed      %d\n", len(s.failed))
	fmt.Fprintf(w, "wrong       %d\n", len(s.wrong))
	fmt.Fprintf(w, "faults      %d injected, %d watchdog hangs\n", s.faults.Injected, s.faults.Hangs)
	fmt.Fprintf(w, "latency     p50 %v  p99 %v  (completed queries)\n", percentile(lat, 0.50).Round(time.Microsecond), percentile(lat, 0.99).Round(time.Microsecond))
	fmt.Fprintf(w, "leaks       %d\n", len(s.leaks))
}

// problems lists what makes the run fail.
func (s *stressSummary) problems() []string {
	var out []string
	out = append(out, first("wrong answer", s.wrong)...)
	out = append(out, first("failure naming no cause", s.failed)...)
	out = append(out, first("leak", s.leaks)...)
	return out
}

func first(what string, list []string) []string {
	if len(list) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d × %s, first: %s", len(list), what, list[0])
	return []string{msg}
}
