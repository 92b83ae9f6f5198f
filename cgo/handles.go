package main

import (
	"errors"
	"fmt"
	"runtime/cgo"
	"sync"
	"unsafe"
)

var errBadHandle = errors.New("invalid or destroyed handle")

// live tracks handles so a stale or forged one is an error, not a crash:
// cgo.Handle.Value panics on an unknown handle. Each live handle records
// the kind the C side knows it by, for wrong-kind messages.
var (
	liveMu sync.Mutex
	live   = map[cgo.Handle]string{}
)

// newHandle wraps v (a *runtimeState, *planState or *taskState) in a
// handle the C side sees as an opaque pointer; release deletes it.
func newHandle(v any, kind string) cgo.Handle {
	h := cgo.NewHandle(v)
	liveMu.Lock()
	live[h] = kind
	liveMu.Unlock()
	return h
}

// handleOf is the handle behind an opaque C pointer (0 for NULL).
func handleOf(p unsafe.Pointer) cgo.Handle { return cgo.Handle(uintptr(p)) }

// lookup returns the value behind handle h of kind want ("hados_plan"…),
// or an error naming what is wrong with it.
func lookup[T any](h cgo.Handle, want string) (T, error) {
	var zero T
	if h == 0 {
		return zero, fmt.Errorf("%w: %s is NULL", errBadHandle, want)
	}
	liveMu.Lock()
	kind, ok := live[h]
	liveMu.Unlock()
	if !ok {
		return zero, fmt.Errorf("%w: not a live %s (destroyed, ended, shut down or forged)", errBadHandle, want)
	}
	v, ok := h.Value().(T)
	if !ok {
		return zero, fmt.Errorf("%w: a %s was passed where a %s is expected", errBadHandle, kind, want)
	}
	return v, nil
}

// release deletes a live handle; false when it was not live.
func release(h cgo.Handle) bool {
	liveMu.Lock()
	defer liveMu.Unlock()
	if _, ok := live[h]; !ok {
		return false
	}
	delete(live, h)
	h.Delete()
	return true
}

// liveHandles counts live handles (tests: nothing leaks after shutdown).
func liveHandles() int {
	liveMu.Lock()
	defer liveMu.Unlock()
	return len(live)
}
