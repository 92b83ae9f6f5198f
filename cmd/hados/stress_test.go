package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// stressCLI runs the CLI and returns the exit code, stdout and stderr.
func stressCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb}
	root := newRoot(a)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	var ee exitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.code, out.String(), errb.String()
	}
	errb.WriteString(err.Error())
	return 1, out.String(), errb.String()
}

func TestStress(t *testing.T) {
	code, out, errs := stressCLI(t, "stress", "--duration", "1500ms", "--tasks", "4", "--sf", "0.005", "--queries", "1,3,6,13", "--cancel", "0.2",
		"--devices", "soft:count=2,memory=128MiB,mode=discrete", "--faults", "dma_error_rate=0.05,seed=3")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"completed", "retried", "fell back", "failed      0", "wrong       0", "leaks       0", "p50", "p99", "dma_error_rate=0.05"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`(?m)^completed\s+(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no completed count:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Errorf("no query completed:\n%s", out)
	}
	t.Log("\n" + out)
}

func TestStressLostDevice(t *testing.T) {
	// one device is lost early: its queries fall back (or move to the
	// other device), none fails without a cause, nothing leaks
	code, out, errs := stressCLI(t, "stress", "--duration", "1s", "--tasks", "4", "--sf", "0.005", "--queries", "3,6", "--cancel", "0",
		"--devices", "soft:memory=128MiB,mode=discrete,lost_after=100;soft:memory=128MiB,mode=discrete")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "leaks       0") {
		t.Errorf("output:\n%s", out)
	}
	t.Log("\n" + out)
}

func TestStressBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stress", "--queries", "23"}, "not a TPC-H query number"},
		{[]string{"stress", "--faults", "warp=9", "--devices", "soft:memory=64MiB"}, "warp"},
		{[]string{"stress", "--tasks", "0", "--devices", "soft:memory=64MiB"}, "--tasks"},
	} {
		code, _, errs := stressCLI(t, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestStressLong is `make stress` as a test, for a tree whose CLI does not
// register the command: HADOS_STRESS_DURATION=60s runs it (16 tasks, DMA
// and allocation faults, or HADOS_STRESS_FAULTS) and prints the summary.
func TestStressLong(t *testing.T) {
	d := os.Getenv("HADOS_STRESS_DURATION")
	if d == "" {
		t.Skip("set HADOS_STRESS_DURATION (e.g. 60s) to run the long stress")
	}
	faults := os.Getenv("HADOS_STRESS_FAULTS")
	if faults == "" {
		faults = "dma_error_rate=0.01,alloc_fail_rate=0.001"
	}
	code, out, errs := stressCLI(t, "stress", "--duration", d, "--tasks", "16", "--faults", faults, "--watchdog", "500ms")
	t.Log("\n" + out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
