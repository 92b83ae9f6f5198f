// Command cgo builds libhados.so (go build -buildmode=c-shared ./cgo, or
// make cshared): the C ABI a Spark executor plugin or a native engine links.
// The header is include/hados.h; docs/c-abi.md explains ownership and
// threading.
//
// Go values cross the boundary as runtime/cgo Handles, never Go pointers;
// every export recovers panics into HADOS_ERR_INTERNAL; the last error is
// thread-local in C, set on the caller's thread during the call.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include "hados.h"
void hd_set_error(const char *msg);
// A handle is an integer the C side sees as an opaque pointer.
static inline hados_runtime *hd_runtime_handle(uintptr_t h) { return (hados_runtime *)h; }
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/cgo"
	"sync"
	"unsafe"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
)

func main() {}

var errBadHandle = errors.New("invalid or destroyed handle")

// live tracks handles so a stale or forged one is an error, not a crash:
// cgo.Handle.Value panics on an unknown handle.
var (
	liveMu sync.Mutex
	live   = map[cgo.Handle]bool{}
)

func newHandle(v any) cgo.Handle {
	h := cgo.NewHandle(v)
	liveMu.Lock()
	live[h] = true
	liveMu.Unlock()
	return h
}

func lookup[T any](p unsafe.Pointer) (T, error) {
	var zero T
	h := cgo.Handle(uintptr(p))
	liveMu.Lock()
	ok := live[h]
	liveMu.Unlock()
	if p == nil || !ok {
		return zero, errBadHandle
	}
	v, ok := h.Value().(T)
	if !ok {
		return zero, errBadHandle
	}
	return v, nil
}

func release(p unsafe.Pointer) bool {
	h := cgo.Handle(uintptr(p))
	liveMu.Lock()
	defer liveMu.Unlock()
	if p == nil || !live[h] {
		return false
	}
	delete(live, h)
	h.Delete()
	return true
}

// call runs an export's body: it clears the thread's last error, turns a
// panic into HADOS_ERR_INTERNAL, and an error into its status and message.
func call(fn func() error) (status C.int) {
	C.hd_set_error(nil)
	defer func() {
		if r := recover(); r != nil {
			setError(fmt.Sprintf("hados: internal error: %v", r))
			status = C.HADOS_ERR_INTERNAL
		}
	}()
	if err := fn(); err != nil {
		setError(err.Error())
		if errors.Is(err, device.ErrInvalid) || errors.Is(err, errBadHandle) {
			return C.HADOS_ERR_INVALID
		}
		return C.HADOS_ERR_DEVICE
	}
	return C.HADOS_OK
}

func setError(msg string) {
	cs := C.CString(msg)
	C.hd_set_error(cs)
	C.free(unsafe.Pointer(cs))
}

//export hados_abi_version
func hados_abi_version() C.int { return C.HADOS_ABI_VERSION }

// hdgo_init is hados_init (abi.c wraps it to give the header's const types).
//
//export hdgo_init
func hdgo_init(abi C.int, keys, values **C.char, n C.size_t, out **C.hados_runtime) C.int {
	return call(func() error {
		if out == nil {
			return fmt.Errorf("%w: hados_init: out is NULL", device.ErrInvalid)
		}
		*out = nil
		if abi != C.HADOS_ABI_VERSION {
			return fmt.Errorf("%w: hados_init: caller built against ABI version %d, this library implements %d",
				device.ErrInvalid, int(abi), C.HADOS_ABI_VERSION)
		}
		if n > 0 && (keys == nil || values == nil) {
			return fmt.Errorf("%w: hados_init: %d keys but keys or values is NULL", device.ErrInvalid, int(n))
		}
		if n > 1<<16 {
			return fmt.Errorf("%w: hados_init: %d configuration entries", device.ErrInvalid, int(n))
		}
		cfg := hados.DefaultConfig()
		ks, vs := unsafe.Slice(keys, int(n)), unsafe.Slice(values, int(n))
		for i := range ks {
			if ks[i] == nil || vs[i] == nil {
				return fmt.Errorf("%w: hados_init: configuration entry %d is NULL", device.ErrInvalid, i)
			}
			if err := cfg.Set(C.GoString(ks[i]), C.GoString(vs[i])); err != nil {
				return err
			}
		}
		rt, err := hados.Open(cfg, hados.Options{})
		if err != nil {
			return err
		}
		*out = C.hd_runtime_handle(C.uintptr_t(newHandle(rt)))
		return nil
	})
}

//export hados_device_count
func hados_device_count(rtp *C.hados_runtime, out *C.size_t) C.int {
	return call(func() error {
		rt, err := lookup[*hados.Runtime](unsafe.Pointer(rtp))
		if err != nil {
			return fmt.Errorf("hados_device_count: %w", err)
		}
		if out == nil {
			return fmt.Errorf("%w: hados_device_count: out is NULL", device.ErrInvalid)
		}
		*out = C.size_t(len(rt.Units()))
		return nil
	})
}

//export hados_free_string
func hados_free_string(s *C.char) { C.free(unsafe.Pointer(s)) }

//export hados_shutdown
func hados_shutdown(rtp **C.hados_runtime) C.int {
	return call(func() error {
		if rtp == nil {
			return fmt.Errorf("%w: hados_shutdown: NULL handle pointer", device.ErrInvalid)
		}
		rt, err := lookup[*hados.Runtime](unsafe.Pointer(*rtp))
		if err != nil {
			return fmt.Errorf("hados_shutdown: %w", err)
		}
		release(unsafe.Pointer(*rtp))
		*rtp = nil
		return rt.Close()
	})
}
