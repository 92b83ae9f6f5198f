package soft_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hados-io/hados/device"
)

// pinnedThreads lists the process's threads allowed on exactly one CPU, by
// that CPU.
func pinnedThreads(t *testing.T) map[int]int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skipf("no /proc/self/task: %v", err)
	}
	out := map[int]int{}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var set unix.CPUSet
		if unix.SchedGetaffinity(tid, &set) != nil || set.Count() != 1 {
			continue
		}
		for cpu := 0; cpu < 1024; cpu++ {
			if set.IsSet(cpu) {
				out[cpu]++
			}
		}
	}
	return out
}

// TestPinCores: with pin=auto and as many cores (two or more) as the
// process may use CPUs, each engine core runs on a CPU of its own; pin=off,
// a device of one core, and one of fewer or more cores than CPUs leave them
// to the OS; closing the device ends them.
func TestPinCores(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil || allowed.Count() < 2 {
		t.Skipf("the process may use %d CPU(s) (%v): nothing to pin", allowed.Count(), err)
	}
	n := allowed.Count()
	if n > 64 {
		t.Skipf("the process may use %d CPUs, more than a device's 64 cores", n)
	}
	before := pinnedThreads(t)
	count := func(m map[int]int) (n int) {
		for _, k := range m {
			n += k
		}
		return n
	}
	for _, c := range []struct {
		cfg  string
		want int
	}{
		{"soft:memory=8MiB,cores=" + strconv.Itoa(n) + ",pin=auto", n},
		{"soft:memory=8MiB,cores=" + strconv.Itoa(n) + ",pin=off", 0},
		{"soft:memory=8MiB,cores=1,pin=auto", 0},
		{"soft:memory=8MiB,cores=" + strconv.Itoa(n+1) + ",pin=auto", 0}, // more cores than CPUs
		{"soft:memory=8MiB,cores=" + strconv.Itoa(n-1) + ",pin=auto", 0}, // fewer (1 when n is 2)
	} {
		set, err := device.OpenString(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		// the engine cores pin themselves as they start
		after := pinnedThreads(t)
		for end := time.Now().Add(2 * time.Second); count(after)-count(before) < c.want && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
			after = pinnedThreads(t)
		}
		if got := count(after) - count(before); got != c.want {
			t.Errorf("%s: %d more threads on one CPU, want %d (%v → %v)", c.cfg, got, c.want, before, after)
		}
		if c.want > 0 {
			for cpu, n := range after {
				if n-before[cpu] > 1 {
					t.Errorf("%s: %d engine cores on CPU %d", c.cfg, n-before[cpu], cpu)
				}
			}
		}
		if err := set.Close(); err != nil {
			t.Fatal(err)
		}
		if got := count(pinnedThreads(t)) - count(before); got != 0 {
			t.Errorf("%s: %d threads still pinned after Close", c.cfg, got)
		}
	}
}
