package main

import (
	"fmt"
	"os"
	"runtime/cgo"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/cdata"

	"github.com/hados-io/hados/hados"
)

// The C hosts cannot run against a -race library here (see abi_test.go):
// these tests drive the exports' Go paths — handles, the runtime's
// registry, tasks, the output stream — from many goroutines in-process,
// so `go test -race` checks them.

func openTestRuntime(t *testing.T) *runtimeState {
	t.Helper()
	cfg := hados.DefaultConfig()
	cfg.Devices = "soft:memory=64MiB,cores=2;soft:memory=64MiB,cores=2"
	if err := cfg.Set("spark.hados.scheduler.mode", "FAIR"); err != nil {
		t.Fatal(err)
	}
	rt, err := hados.Open(cfg, hados.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &runtimeState{rt: rt, warehouse: warehouse(t), plans: map[cgo.Handle]bool{}, tasks: map[cgo.Handle]*taskState{}}
}

func planQ6(t *testing.T, rs *runtimeState) *planState {
	t.Helper()
	text, err := os.ReadFile(q6Plan)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := newPlan(rs, text, func(func(k, v string) error) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// runGoTask is one task as the exports drive it: begin and register,
// execute into a C stream, read it as a C consumer would, end. It returns
// the first cell.
func runGoTask(rs *runtimeState, ps *planState, part int) (string, error) {
	tk, err := beginTask(ps, hados.TaskSpec{Partition: part, Devices: []string{fmt.Sprint(part % 2)},
		Amount: 0.5, Quota: 16 << 20, Pool: []string{"etl", "adhoc"}[part%2]})
	if err != nil {
		return "", err
	}
	h := newHandle(tk, "hados_task")
	if err := rs.register(h, tk); err != nil {
		release(h)
		tk.end()
		return "", err
	}
	s := newCStream()
	defer freeCStream(s)
	var cell string
	err = tk.execute(s)
	if err == nil {
		rdr, ierr := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(s)), nil)
		if ierr != nil {
			return "", ierr
		}
		if rec, rerr := rdr.Read(); rerr == nil && rec.NumRows() == 1 {
			cell = rec.Column(0).ValueStr(0)
		}
		rdr.(interface{ Release() }).Release()
	}
	if release(h) { // shutdown may have ended it already
		rs.forget(h)
		if eerr := tk.end(); err == nil {
			err = eerr
		}
	}
	return cell, err
}

// TestConcurrentTasks runs TPC-H Q6 tasks from 4 goroutines sharing two
// devices at amount 0.5, then shuts down cleanly.
func TestConcurrentTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs TPC-H Q6 16 times")
	}
	rs := openTestRuntime(t)
	ps := planQ6(t, rs)
	const goroutines, each = 4, 4 // two tasks per device at amount 0.5, as Spark schedules them
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				cell, err := runGoTask(rs, ps, g*each+i)
				if err == nil && !strings.Contains(cell, q6Revenue) {
					err = fmt.Errorf("task %d: revenue %q, want %s", g*each+i, cell, q6Revenue)
				}
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if err := rs.shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if n := cAlloc.AllocatedBytes(); n != 0 { // results are written in C memory, freed by the consumer's release
		t.Errorf("C memory holds %d bytes after every output stream was released", n)
	}
}

// TestShutdownWithRunningTasks shuts down while goroutines run tasks: each
// execution finishes or is cancelled, later calls are refused as a use
// after shutdown, and shutdown returns every byte.
func TestShutdownWithRunningTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs TPC-H Q6 tasks")
	}
	rs := openTestRuntime(t)
	ps := planQ6(t, rs)
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{} // status → count
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				_, err := runGoTask(rs, ps, g*1000+i)
				st := 0
				if err != nil {
					st = int(statusOf(err))
				}
				mu.Lock()
				counts[st]++
				mu.Unlock()
				if st == -1 || (st != 0 && st != -5) { // refused (shut down), or unexpected
					if st != -1 {
						t.Errorf("status %d: %v", st, err)
					}
					return
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if err := rs.shutdown(); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	wg.Wait()
	if counts[-1] != 4 {
		t.Errorf("statuses %v: want every goroutine refused once after shutdown", counts)
	}
	t.Logf("statuses under shutdown: %v (0 ok, -5 cancelled, -1 refused)", counts)
}

// TestHandles: forged, stale and wrong-kind handles are errors from many
// goroutines at once.
func TestHandles(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				h := newHandle(&planState{}, "hados_plan")
				if _, err := lookup[*taskState](h, "hados_task"); err == nil || !strings.Contains(err.Error(), "a hados_plan was passed where a hados_task is expected") {
					t.Errorf("wrong kind: %v", err)
				}
				if _, err := lookup[*planState](h, "hados_plan"); err != nil {
					t.Error(err)
				}
				if !release(h) || release(h) {
					t.Error("release of a live handle failed or a second release succeeded")
				}
				if _, err := lookup[*planState](h, "hados_plan"); err == nil {
					t.Error("a released handle resolved")
				}
			}
		}()
	}
	wg.Wait()
	if _, err := lookup[*planState](0, "hados_plan"); err == nil || !strings.Contains(err.Error(), "hados_plan is NULL") {
		t.Errorf("NULL handle: %v", err)
	}
}
