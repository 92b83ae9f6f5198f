package main

/*
#include "hados.h"
static inline hados_task *hd_task_handle(uintptr_t h) { return (hados_task *)h; }
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"math"
	"unsafe"

	"github.com/hados-io/hados/hados"
)

// hdgo_task_begin is hados_task_begin (abi.c wraps it to give the header's
// const types).
//
//export hdgo_task_begin
func hdgo_task_begin(p *C.hados_plan, id C.int64_t, stage, partition C.int32_t, devices **C.char, ndev C.size_t,
	amount C.double, quota C.uint64_t, pool *C.char, out **C.hados_task) C.int {
	return call(func() error {
		ps, err := planOf("hados_task_begin", p)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_task_begin: out is NULL")
		}
		*out = nil
		if ndev > 0 && devices == nil {
			return invalidf("hados_task_begin: %d devices but devices is NULL", uint64(ndev))
		}
		if ndev > 1024 {
			return invalidf("hados_task_begin: %d devices", uint64(ndev))
		}
		if stage < 0 || partition < 0 {
			return invalidf("hados_task_begin: stage %d partition %d (want non-negative)", int(stage), int(partition))
		}
		if a := float64(amount); math.IsNaN(a) || a < 0 || a > 1 {
			return invalidf("hados_task_begin: device amount %v (want a fraction in (0, 1], or 0 for 1)", a)
		}
		spec := hados.TaskSpec{ID: int64(id), Stage: int(stage), Partition: int(partition),
			Amount: float64(amount), Quota: uint64(quota)}
		for i, d := range unsafe.Slice(devices, int(ndev)) {
			if d == nil {
				return invalidf("hados_task_begin: device address %d is NULL", i)
			}
			spec.Devices = append(spec.Devices, C.GoString(d))
		}
		if pool != nil {
			spec.Pool = C.GoString(pool)
		}
		t, err := beginTask(ps, spec)
		if err != nil {
			return fmt.Errorf("hados_task_begin: %w", err)
		}
		h := newHandle(t, "hados_task")
		if err := ps.rs.register(h, t); err != nil {
			release(h)
			t.end()
			return fmt.Errorf("hados_task_begin: %w", err)
		}
		*out = C.hd_task_handle(C.uintptr_t(h))
		return nil
	})
}

// taskOf resolves a hados_task handle for export fn.
func taskOf(fn string, p *C.hados_task) (*taskState, error) {
	t, err := lookup[*taskState](handleOf(unsafe.Pointer(p)), "hados_task")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	return t, nil
}

//export hados_task_set_input
func hados_task_set_input(p *C.hados_task, i C.size_t, in *C.struct_ArrowArrayStream) C.int {
	return call(func() error {
		t, err := taskOf("hados_task_set_input", p)
		if err != nil {
			return err
		}
		if uint64(i) > math.MaxInt32 {
			return invalidf("hados_task_set_input: input %d", uint64(i))
		}
		return t.setInput(int(i), in)
	})
}

//export hados_task_execute
func hados_task_execute(p *C.hados_task, out *C.struct_ArrowArrayStream) C.int {
	return call(func() error {
		t, err := taskOf("hados_task_execute", p)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_task_execute: out is NULL")
		}
		return t.execute(out)
	})
}

//export hados_task_cancel
func hados_task_cancel(p *C.hados_task) C.int {
	return call(func() error {
		t, err := taskOf("hados_task_cancel", p)
		if err != nil {
			return err
		}
		t.mu.Lock()
		if t.phase == phaseBegun {
			t.phase = phaseCancelled
		}
		t.mu.Unlock()
		t.cancel()
		return nil
	})
}

//export hados_task_metrics
func hados_task_metrics(p *C.hados_task, out **C.char) C.int {
	return call(func() error {
		t, err := taskOf("hados_task_metrics", p)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_task_metrics: out is NULL")
		}
		t.mu.Lock()
		m := t.metrics
		m.State = t.phase
		b, err := json.Marshal(m)
		t.mu.Unlock()
		if err != nil {
			return err
		}
		*out = cString(string(b))
		return nil
	})
}

//export hados_task_end
func hados_task_end(pp **C.hados_task) C.int {
	return call(func() error {
		if pp == nil {
			return invalidf("hados_task_end: NULL handle pointer")
		}
		t, err := taskOf("hados_task_end", *pp)
		if err != nil {
			return err
		}
		t.mu.Lock()
		executing := t.phase == phaseExecuting
		t.mu.Unlock()
		if executing {
			return invalidf("hados_task_end: task %d is executing on another thread (hados_task_cancel it and wait for hados_task_execute to return)", t.metrics.TaskID)
		}
		h := handleOf(unsafe.Pointer(*pp))
		if !release(handleOf(unsafe.Pointer(*pp))) {
			return fmt.Errorf("hados_task_end: %w: already ended", errBadHandle)
		}
		t.rs.forget(h)
		*pp = nil
		return t.end()
	})
}
