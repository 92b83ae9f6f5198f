package device

import (
	"errors"
	"fmt"
)

// Sentinel errors. Driver errors wrap one of them; test with errors.Is.
var (
	ErrInvalid      = errors.New("invalid argument")
	ErrNoMemory     = errors.New("device memory exhausted")
	ErrNotSupported = errors.New("not supported")
	ErrTimeout      = errors.New("timed out")
	ErrIO           = errors.New("DMA transfer error")
	ErrDeviceLost   = errors.New("device lost")
	ErrClosed       = errors.New("closed")
	ErrQueueFull    = errors.New("queue full")
	ErrFault        = errors.New("device address out of range")
	ErrMismatch     = errors.New("data mismatch")
	ErrHang         = errors.New("device hang (watchdog)")
)

// Status is a driver status code (hados_driver.h HADOS_E_*).
type Status int32

// Sentinel returns the sentinel error of a driver status.
func (s Status) Sentinel() error {
	switch s {
	case -1:
		return ErrInvalid
	case -2:
		return ErrNoMemory
	case -3:
		return ErrNotSupported
	case -4:
		return ErrTimeout
	case -5:
		return ErrIO
	case -6:
		return ErrDeviceLost
	case -7:
		return ErrClosed
	case -8:
		return ErrQueueFull
	case -9:
		return ErrFault
	case -10:
		return ErrMismatch
	}
	return fmt.Errorf("driver status %d", int32(s))
}

// Error is an error reported by a device or its driver.
type Error struct {
	Device string // device address, "" before one is assigned
	Op     string // the call or op that failed, e.g. "alloc", "program op 2 (copy_h2d)"
	Status Status
	Msg    string // the driver's message
}

func (e *Error) Error() string {
	where := "device"
	if e.Device != "" {
		where = "device " + e.Device
	}
	msg := e.Msg
	if msg == "" {
		msg = e.Status.Sentinel().Error()
	}
	return fmt.Sprintf("%s: %s: %s", where, e.Op, msg)
}

// Unwrap returns the status's sentinel, so errors.Is(err, ErrNoMemory) works.
func (e *Error) Unwrap() error { return e.Status.Sentinel() }
