package main

/*
#include "hados.h"
// A handle is an integer the C side sees as an opaque pointer.
static inline hados_runtime *hd_runtime_handle(uintptr_t h) { return (hados_runtime *)h; }
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hados-io/hados/hados"
)

// abiKeys are configuration keys the C ABI reads itself (hados.Config does
// not know them): the tables' directory and a plan's name (and
// keyMetricsEnabled, metrics.go).
const (
	keyWarehouse = "spark.hados.warehouse"
	keyPlanName  = "spark.hados.plan.name"
)

// runtimeState is what a hados_runtime handle holds: the runtime, the
// ABI's defaults, and the registry of its live plan and task handles, so
// shutdown can cancel, end and invalidate them. Shutdown closes the
// runtime; nothing else owns it.
type runtimeState struct {
	rt        *hados.Runtime
	warehouse string

	mu      sync.Mutex
	closing bool
	plans   map[cgo.Handle]bool
	tasks   map[cgo.Handle]*taskState
	// running counts hados_task_execute calls in flight; Add happens under
	// mu and only while !closing, so shutdown's Wait is race-free.
	running  sync.WaitGroup
	nextTask atomic.Int64
	// metrics is the /metrics endpoint when spark.hados.metrics.enabled.
	metrics *metricsEndpoint
}

// errShutDown refuses calls racing hados_shutdown: a use after shutdown.
var errShutDown = fmt.Errorf("%w: the runtime is shutting down", errBadHandle)

// register records a plan or task handle of the runtime; it fails once
// shutdown has begun.
func (rs *runtimeState) register(h cgo.Handle, t *taskState) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closing {
		return errShutDown
	}
	if t != nil {
		rs.tasks[h] = t
	} else {
		rs.plans[h] = true
	}
	return nil
}

// forget drops a handle from the registry (its owner released it).
func (rs *runtimeState) forget(h cgo.Handle) {
	rs.mu.Lock()
	delete(rs.plans, h)
	delete(rs.tasks, h)
	rs.mu.Unlock()
}

// startRunning admits one hados_task_execute; the caller calls
// rs.running.Done when it returns.
func (rs *runtimeState) startRunning() error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closing {
		return errShutDown
	}
	rs.running.Add(1)
	return nil
}

// shutdown cancels every task, waits for running executions, ends the
// tasks, invalidates the plan and task handles and closes the runtime.
func (rs *runtimeState) shutdown() error {
	rs.mu.Lock()
	rs.closing = true
	tasks := make(map[cgo.Handle]*taskState, len(rs.tasks))
	for h, t := range rs.tasks {
		tasks[h] = t
	}
	plans := make([]cgo.Handle, 0, len(rs.plans))
	for h := range rs.plans {
		plans = append(plans, h)
	}
	rs.tasks, rs.plans = map[cgo.Handle]*taskState{}, map[cgo.Handle]bool{}
	rs.mu.Unlock()

	for _, t := range tasks {
		t.cancel()
	}
	rs.running.Wait()
	var errs []error
	for h, t := range tasks {
		// whoever releases the handle ends the task: a hados_task_end
		// racing with shutdown ends it at most once
		if release(h) {
			errs = append(errs, t.end())
		}
	}
	for _, h := range plans {
		release(h)
	}
	errs = append(errs, rs.metrics.stop(), rs.rt.Close())
	return errors.Join(errs...)
}

// hdgo_init is hados_init (abi.c wraps it to give the header's const types).
//
//export hdgo_init
func hdgo_init(abi C.int, keys, values **C.char, n C.size_t, out **C.hados_runtime) C.int {
	return call(func() error {
		if out == nil {
			return invalidf("hados_init: out is NULL")
		}
		*out = nil
		if abi != C.HADOS_ABI_VERSION {
			return invalidf("hados_init: caller built against ABI version %d, this library implements %d",
				int(abi), C.HADOS_ABI_VERSION)
		}
		cfg := hados.DefaultConfig()
		rs := &runtimeState{plans: map[cgo.Handle]bool{}, tasks: map[cgo.Handle]*taskState{}}
		serveMetrics := false
		err := eachPair("hados_init", keys, values, n, func(k, v string) (err error) {
			switch k {
			case keyWarehouse:
				rs.warehouse = v
			case keyMetricsEnabled:
				serveMetrics, err = parseEnabled(v)
			default:
				err = cfg.Set(k, v)
			}
			return err
		})
		if err != nil {
			return err
		}
		if rs.rt, err = hados.Open(cfg, hados.Options{}); err != nil {
			return err
		}
		if serveMetrics {
			if err := rs.startMetrics(); err != nil {
				return errors.Join(err, rs.rt.Close())
			}
		}
		*out = C.hd_runtime_handle(C.uintptr_t(newHandle(rs, "hados_runtime")))
		return nil
	})
}

// eachPair calls fn for each of n C key/value pairs, refusing NULLs.
func eachPair(fn string, keys, values **C.char, n C.size_t, set func(k, v string) error) error {
	if n > 0 && (keys == nil || values == nil) {
		return invalidf("%s: %d keys but keys or values is NULL", fn, int(n))
	}
	if n > 1<<16 {
		return invalidf("%s: %d configuration entries", fn, int(n))
	}
	ks, vs := unsafe.Slice(keys, int(n)), unsafe.Slice(values, int(n))
	for i := range ks {
		if ks[i] == nil || vs[i] == nil {
			return invalidf("%s: configuration entry %d is NULL", fn, i)
		}
		if err := set(C.GoString(ks[i]), C.GoString(vs[i])); err != nil {
			return err
		}
	}
	return nil
}

// runtimeOf resolves a hados_runtime handle for export fn.
func runtimeOf(fn string, p *C.hados_runtime) (*runtimeState, error) {
	rs, err := lookup[*runtimeState](handleOf(unsafe.Pointer(p)), "hados_runtime")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return rs, nil
}

//export hados_device_count
func hados_device_count(rtp *C.hados_runtime, out *C.size_t) C.int {
	return call(func() error {
		rs, err := runtimeOf("hados_device_count", rtp)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_device_count: out is NULL")
		}
		*out = C.size_t(len(rs.rt.Units()))
		return nil
	})
}

//export hados_shutdown
func hados_shutdown(rtp **C.hados_runtime) C.int {
	return call(func() error {
		if rtp == nil {
			return invalidf("hados_shutdown: NULL handle pointer")
		}
		rs, err := runtimeOf("hados_shutdown", *rtp)
		if err != nil {
			return err
		}
		if !release(handleOf(unsafe.Pointer(*rtp))) {
			return fmt.Errorf("hados_shutdown: %w: already shut down", errBadHandle)
		}
		*rtp = nil
		return rs.shutdown()
	})
}
