package reliability

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/race/exec"
)

// matrixTasks and matrixDevices: the 8 concurrent tasks sharing 2
// devices.
const (
	matrixTasks   = 8
	matrixDevices = 2
)

// fault is one row of the matrix: soft-device options that inject it, or a
// task quota, and the causes a query may fail with under it (none: every
// query must return the reference rows).
type fault struct {
	name       string
	dev0, dev1 string        // options of device 0 and device 1, added to (or replacing) baseDevice's
	watchdog   time.Duration // the DMA watchdog (default 30s)
	taskMemory uint64        // exec.Env.TaskMemory (0: the executor's share)
	spill      bool          // give the queries a spill directory
	allowed    []Cause
	// injected: the fault must actually have happened (a row that injects
	// nothing tests nothing); mustFail: some query must fail.
	injected, mustFail bool
}

// baseDevice is the soft device every row starts from: discrete, so every
// byte crosses DMA and DMA faults reach every query.
const baseDevice = "memory=512MiB,cores=2,mode=discrete"

// taskShare is each task's quota unless the row sets one: the device's
// memory shared by the tasks that run on it at once (Spark's
// spark.task.resource.dpu.amount = 0.25), so that concurrent queries do not
// starve each other and a row fails only by its own fault.
const taskShare = 512 << 20 / (matrixTasks / matrixDevices)

// matrix is the fault matrix of issue 7. Add a row to test a new fault.
var matrix = []fault{
	{name: "healthy"},
	{name: "dma-errors-1%", dev0: "dma_error_rate=0.01,seed=7", dev1: "dma_error_rate=0.01,seed=8", allowed: []Cause{DMAError}},
	{name: "dma-errors-10%", dev0: "dma_error_rate=0.1,seed=7", dev1: "dma_error_rate=0.1,seed=8", allowed: []Cause{DMAError}, injected: true},
	{name: "alloc-failures", dev0: "alloc_fail_rate=0.02,seed=7", dev1: "alloc_fail_rate=0.02,seed=8", allowed: []Cause{DeviceMemory}, injected: true},
	{name: "hang", dev0: "hang_after=150", watchdog: 100 * time.Millisecond, allowed: []Cause{DeviceHang}, injected: true},
	{name: "device-lost", dev0: "lost_after=150", allowed: []Cause{DeviceLost}, injected: true},
	{name: "both-devices-lost", dev0: "lost_after=150", dev1: "lost_after=200", allowed: []Cause{DeviceLost}, injected: true},
	{name: "quota-too-small", taskMemory: 1 << 20, allowed: []Cause{QuotaExceeded}, mustFail: true},
	{name: "quota-small-no-spill", taskMemory: 16 << 20, allowed: []Cause{QuotaExceeded}},
	{name: "quota-small-spill", taskMemory: 16 << 20, spill: true, allowed: []Cause{QuotaExceeded}},
	{name: "device-memory-too-small", dev0: "memory=6MiB", dev1: "memory=6MiB", taskMemory: 3 << 20, allowed: []Cause{DeviceMemory, QuotaExceeded}},
}

// rowResult is one row's figures for the report.
type rowResult struct {
	fault       string
	runs, ok    int
	fallbacks   map[Cause]int
	taskRetries int // task attempts beyond the first, in queries that succeeded
	Counts
	elapsed time.Duration
}

// deviceSpec is baseDevice with opts added; an option of opts replaces
// the base's of the same name.
func deviceSpec(opts string) string {
	var keep []string
	for _, kv := range strings.Split(baseDevice, ",") {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.Contains(","+opts, ","+k+"=") {
			keep = append(keep, kv)
		}
	}
	if opts != "" {
		keep = append(keep, opts)
	}
	return "soft:" + strings.Join(keep, ",")
}

func openRuntime(t *testing.T, f fault) *hados.Runtime {
	t.Helper()
	cfg := hados.DefaultConfig()
	cfg.Devices = deviceSpec(f.dev0) + ";" + deviceSpec(f.dev1)
	if f.watchdog > 0 {
		cfg.Watchdog = f.watchdog
	}
	cfg.LockHost = false
	rt, err := hados.Open(cfg, hados.Options{})
	if err != nil {
		t.Fatalf("%s: open %s: %v", f.name, cfg.Devices, err)
	}
	return rt
}

// matrixQueries are the TPC-H queries of the matrix: one or two of each
// shape the executor runs — scan and aggregate (Q1, Q6), joins with top-N
// (Q3, Q10), a five-way join (Q5), semi and anti joins (Q4, Q22), an outer
// join (Q13), a subquery with a broadcast (Q18) — so that a row takes a
// second or two. The large variant runs all 22. Queries the executor cannot
// run yet are set aside by Reference.
var matrixQueries = []int{1, 3, 4, 5, 6, 10, 13, 18, 22}

// raceQueries are the matrix's queries under the race detector.
var raceQueries = []int{1, 3, 6, 22}

// matrixWorkload builds the workload and its reference on a healthy
// runtime.
func matrixWorkload(t *testing.T) *Workload {
	dir, sf := warehouse(t)
	queries := matrixQueries
	if raceEnabled {
		queries = raceQueries
	}
	if testSize().all {
		queries = DefaultQueries
	}
	w, err := NewWorkload(context.Background(), WorkloadOptions{Dir: dir, SF: sf, Existing: true, Queries: queries})
	if err != nil {
		t.Fatal(err)
	}
	rt := openRuntime(t, fault{name: "reference"})
	if err := w.Reference(context.Background(), exec.Env{Runtime: rt, ShuffleDir: t.TempDir()}); err != nil {
		rt.Close()
		t.Fatal(err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("queries: %s; not executable yet: %d", names(w.Queries), len(w.Skipped))
	if len(w.Queries) == 0 {
		t.Fatal("the executor runs none of the TPC-H queries")
	}
	return w
}

func names(qs []*Query) string {
	var s []string
	for _, q := range qs {
		s = append(s, q.Name())
	}
	return strings.Join(s, " ")
}

// TestFaultMatrix runs the workload as 8 concurrent tasks over 2 devices
// for every fault: each query returns the reference rows or fails with an
// error whose cause is the fault's (and which falls back to the host), and
// afterwards no device memory, goroutine or file is left.
func TestFaultMatrix(t *testing.T) {
	w := matrixWorkload(t)
	rounds := testSize().rounds
	var results []rowResult
	for _, f := range matrix {
		t.Run(f.name, func(t *testing.T) {
			results = append(results, runRow(t, w, f, rounds))
		})
	}
	table := matrixTable(results)
	t.Log("\n" + table)
	if path := os.Getenv("HADOS_RELIABILITY_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// scratchEnv makes a query environment whose shuffle and spill files go
// under a fresh directory (as does anything written to the default
// temporary directory), returned for CheckNoFiles.
func scratchEnv(t *testing.T, rt *hados.Runtime, spill bool) (exec.Env, string) {
	scratch := t.TempDir()
	t.Setenv("TMPDIR", scratch)
	env := exec.Env{Runtime: rt, Parallelism: 1, ShuffleDir: filepath.Join(scratch, "shuffle")}
	if err := os.Mkdir(env.ShuffleDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if spill {
		env.SpillDir = filepath.Join(scratch, "spill")
		if err := os.Mkdir(env.SpillDir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return env, scratch
}

// concurrently runs every query rounds times, the runs dealt out to tasks
// goroutines (run i goes to goroutine i mod tasks), and returns the
// outcomes.
func concurrently(tasks, rounds int, w *Workload, run func(task int, q *Query) Outcome) []Outcome {
	outcomes := make([][]Outcome, tasks)
	var wg sync.WaitGroup
	for task := range tasks {
		wg.Go(func() {
			for i := task; i < rounds*len(w.Queries); i += tasks {
				outcomes[task] = append(outcomes[task], run(task, w.Queries[i%len(w.Queries)]))
			}
		})
	}
	wg.Wait()
	return slices.Concat(outcomes...)
}

// settle checks that rt is idle, closes it, and checks that no goroutine
// beyond baseline and no file under scratch is left.
func settle(t *testing.T, rt *hados.Runtime, baseline goleak.Option, scratch string) {
	t.Helper()
	if err := CheckIdle(rt); err != nil {
		t.Error(err)
	}
	if err := rt.Close(); err != nil {
		t.Errorf("runtime close: %v", err)
	}
	goleak.VerifyNone(t, baseline)
	if err := CheckNoFiles(scratch); err != nil {
		t.Error(err)
	}
}

func runRow(t *testing.T, w *Workload, f fault, rounds int) rowResult {
	baseline := goleak.IgnoreCurrent()
	rt := openRuntime(t, f)
	env, scratch := scratchEnv(t, rt, f.spill)
	env.TaskMemory = taskShare
	if f.taskMemory != 0 {
		env.TaskMemory = f.taskMemory
	}
	start := time.Now()
	outcomes := concurrently(matrixTasks, rounds, w, func(_ int, q *Query) Outcome {
		return w.Run(context.Background(), env, q)
	})
	res := rowResult{fault: f.name, fallbacks: map[Cause]int{}, elapsed: time.Since(start)}
	for _, o := range outcomes {
		res.runs++
		switch {
		case o.Wrong != "":
			t.Errorf("Q%d returned wrong rows: %s", o.Query, o.Wrong)
		case o.Err == nil:
			res.ok++
			res.taskRetries += o.Retries
		case !slices.Contains(f.allowed, o.Cause):
			t.Errorf("Q%d failed with cause %q, want one of %q: %v", o.Query, o.Cause, f.allowed, o.Err)
		case !o.Cause.Fallback():
			t.Errorf("Q%d: cause %q does not fall back to the host: %v", o.Query, o.Cause, o.Err)
		default:
			if res.fallbacks[o.Cause] == 0 {
				t.Logf("Q%d fell back: %v", o.Query, o.Err) // one example per cause
			}
			res.fallbacks[o.Cause]++
		}
	}
	res.Counts = FaultCounts(rt)
	if f.injected && res.Injected == 0 && res.Hangs == 0 {
		t.Errorf("no fault was injected (device options %q, %q): the row tests nothing", f.dev0, f.dev1)
	}
	if f.mustFail && res.ok == res.runs {
		t.Errorf("every query succeeded: the row tests nothing")
	}
	settle(t, rt, baseline, scratch)
	t.Logf("%d runs: %d ok (%d task retries), fallbacks %v; %d programs, %d faults injected, %d DMA retries, %d hangs; %v",
		res.runs, res.ok, res.taskRetries, res.fallbacks, res.Programs, res.Injected, res.DMARetries, res.Hangs, res.elapsed.Round(time.Millisecond))
	return res
}

// TestCancellation cancels queries at random moments: each returns the
// reference rows or reports the cancellation, and nothing is left behind.
func TestCancellation(t *testing.T) {
	w := matrixWorkload(t)
	baseline := goleak.IgnoreCurrent()
	rt := openRuntime(t, fault{name: "cancellation"})
	env, scratch := scratchEnv(t, rt, true)
	var mu sync.Mutex
	counts := map[Cause]int{}
	outcomes := concurrently(matrixTasks, 1, w, func(task int, q *Query) Outcome {
		// deadlines from 0 to 1.4s: before, during and (mostly) after the query
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(task*200)*time.Millisecond)
		defer cancel()
		return w.Run(ctx, env, q)
	})
	for _, o := range outcomes {
		mu.Lock()
		counts[o.Cause]++
		mu.Unlock()
		switch {
		case o.Wrong != "":
			t.Errorf("Q%d returned wrong rows: %s", o.Query, o.Wrong)
		case o.Err != nil && o.Cause != Cancelled:
			t.Errorf("Q%d: a cancelled query failed with cause %q: %v", o.Query, o.Cause, o.Err)
		}
	}
	t.Logf("outcomes: %v", counts)
	settle(t, rt, baseline, scratch)
}

// matrixTable renders the results as the Markdown table of
// docs/RELIABILITY.md.
func matrixTable(results []rowResult) string {
	var b strings.Builder
	b.WriteString("| fault | queries | same result | task retries | fell back (cause) | faults injected | DMA retries | hangs | time |\n")
	b.WriteString("|---|---:|---:|---:|---|---:|---:|---:|---:|\n")
	for _, r := range results {
		var fb []string
		for c, n := range r.fallbacks {
			fb = append(fb, fmt.Sprintf("%d %s", n, c))
		}
		sort.Strings(fb)
		if len(fb) == 0 {
			fb = []string{"0"}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %d | %d | %d | %v |\n", r.fault, r.runs, r.ok, r.taskRetries,
			strings.Join(fb, ", "), r.Injected, r.DMARetries, r.Hangs, r.elapsed.Round(time.Millisecond))
	}
	return b.String()
}
