package main

/*
#include <stdlib.h>
#include "hados.h"
void hd_set_error(const char *msg);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/memory"
)

// errInvalid marks misuse that has no device error of its own (a call out
// of order, a bad plan).
var errInvalid = device.ErrInvalid

// invalidf is a HADOS_ERR_INVALID error.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errInvalid}, args...)...)
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
		return statusOf(err)
	}
	return C.HADOS_OK
}

// statusOf maps an error to its HADOS_ERR_* code; cancellation first, so a
// cancelled task is never reported as a device failure.
func statusOf(err error) C.int {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return C.HADOS_ERR_CANCELLED
	case errors.Is(err, errBadHandle), errors.Is(err, device.ErrInvalid):
		return C.HADOS_ERR_INVALID
	case errors.Is(err, device.ErrNotSupported):
		return C.HADOS_ERR_UNSUPPORTED
	case errors.Is(err, memory.ErrQuotaExceeded), errors.Is(err, device.ErrNoMemory):
		return C.HADOS_ERR_MEMORY
	}
	return C.HADOS_ERR_DEVICE
}

func setError(msg string) {
	cs := C.CString(msg)
	C.hd_set_error(cs)
	C.free(unsafe.Pointer(cs))
}

// cString returns s in C memory, for an out-parameter the caller frees
// with hados_free_string.
func cString(s string) *C.char { return C.CString(s) }
