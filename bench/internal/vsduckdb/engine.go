package vsduckdb

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators"
)

// Engine is a hados runtime with one task begun on it. The caller owns it
// and must Close it, which ends the task and closes the runtime, freeing
// the device memory; records allocated from Target's allocators must be
// released first.
type Engine struct {
	Runtime *hados.Runtime
	Task    *hados.Task
	// Target is the task's first device, where the benchmark runs hados's
	// operators.
	Target *operators.Target
}

// Open opens a hados runtime with the default configuration on devices (a
// device string such as "soft:memory=4GiB,cores=2") and begins one task
// on it. $HADOS_BENCH_DEVICE_OPTS, if set, is appended to every device's
// options (e.g. "spin_us=0"), so one benchmark binary can compare them.
func Open(devices string) (*Engine, error) {
	if extra := os.Getenv("HADOS_BENCH_DEVICE_OPTS"); extra != "" {
		specs := strings.Split(devices, ";")
		for i := range specs {
			specs[i] += "," + extra
		}
		devices = strings.Join(specs, ";")
	}
	cfg := hados.DefaultConfig()
	cfg.Devices = devices
	rt, err := hados.Open(cfg, hados.Options{})
	if err != nil {
		return nil, fmt.Errorf("vsduckdb: open hados on %q: %w", devices, err)
	}
	task, err := rt.BeginTask(hados.TaskSpec{})
	if err != nil {
		rt.Close()
		return nil, fmt.Errorf("vsduckdb: begin a task on %q: %w", devices, err)
	}
	return &Engine{Runtime: rt, Task: task, Target: task.Targets()[0]}, nil
}

// Close ends the task, then closes the runtime; the error reports memory
// the task or the runtime's pools still held. It is idempotent.
func (e *Engine) Close() error {
	return errors.Join(e.Task.End(), e.Runtime.Close())
}
