package cdev

/*
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/hados-io/hados/device"
)

// cdevice is a device.Device over a driver handle. mu is held shared by every
// call into the driver and exclusively by Close, so the handle is never used
// after (or while) it is closed.
type cdevice struct {
	drv     *Driver
	h       *C.hados_device
	info    device.Info
	num     uint64 // the address as a number, for probes
	mu      sync.RWMutex
	closing bool // Close has begun: no new queues
	closed  bool
	queues  map[*cqueue]struct{}
}

func (d *cdevice) err(op string, st C.int, eb *errBuf) error {
	return &device.Error{Device: d.info.Address, Op: op, Status: device.Status(st), Msg: eb.String()}
}

func (d *cdevice) closedErr(op string) error {
	return fmt.Errorf("device %s: %s: %w", d.info.Address, op, device.ErrClosed)
}

func (d *cdevice) Info() device.Info { return d.info }

func (d *cdevice) Telemetry() (device.Telemetry, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return device.Telemetry{}, d.closedErr("telemetry")
	}
	var t C.hados_telemetry
	var eb errBuf
	if st := C.hdc_telemetry(d.drv.vt, d.h, &t, eb.ptr(), errLen); st != 0 {
		return device.Telemetry{}, d.err("telemetry", st, &eb)
	}
	h := device.Health(t.health)
	return device.Telemetry{
		MemUsedBytes:      uint64(t.mem_used_bytes),
		MemPeakBytes:      uint64(t.mem_peak_bytes),
		Allocs:            uint64(t.allocs),
		Frees:             uint64(t.frees),
		AllocFailures:     uint64(t.alloc_failures),
		BytesH2D:          uint64(t.bytes_h2d),
		BytesD2H:          uint64(t.bytes_d2h),
		BytesD2D:          uint64(t.bytes_d2d),
		ProgramsSubmitted: uint64(t.programs_submitted),
		ProgramsCompleted: uint64(t.programs_completed),
		ProgramsFailed:    uint64(t.programs_failed),
		OpsExecuted:       uint64(t.ops_executed),
		Busy:              time.Duration(t.busy_ns),
		Uptime:            time.Duration(t.uptime_ns),
		FaultsInjected:    uint64(t.faults_injected),
		Health:            h,
		HealthName:        h.String(),
		QueuesOpen:        int(t.queues_open),
		QueueDepth:        int(t.queue_depth),
	}, nil
}

func (d *cdevice) Alloc(size uint64) (device.Addr, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return 0, d.closedErr("alloc")
	}
	var a C.uint64_t
	var eb errBuf
	if st := C.hdc_alloc(d.drv.vt, d.h, C.uint64_t(size), &a, eb.ptr(), errLen); st != 0 {
		return 0, d.err(fmt.Sprintf("alloc %d bytes", size), st, &eb)
	}
	return device.Addr(a), nil
}

func (d *cdevice) Free(addr device.Addr) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return d.closedErr("free")
	}
	var eb errBuf
	if st := C.hdc_free(d.drv.vt, d.h, C.uint64_t(addr), eb.ptr(), errLen); st != 0 {
		return d.err("free", st, &eb)
	}
	return nil
}

func (d *cdevice) Map(addr device.Addr, size uint64) ([]byte, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, d.closedErr("map")
	}
	if size > 1<<48 {
		return nil, fmt.Errorf("%w: device %s: map of %d bytes", device.ErrInvalid, d.info.Address, size)
	}
	var p unsafe.Pointer
	var eb errBuf
	if st := C.hdc_map(d.drv.vt, d.h, C.uint64_t(addr), C.uint64_t(size), &p, eb.ptr(), errLen); st != 0 {
		return nil, d.err("map", st, &eb)
	}
	if size == 0 {
		return []byte{}, nil
	}
	return unsafe.Slice((*byte)(p), size), nil
}

func (d *cdevice) SelfTest() (string, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return "", d.closedErr("self-test")
	}
	var msg [256]C.char
	var eb errBuf
	if st := C.hdc_self_test(d.drv.vt, d.h, &msg[0], C.size_t(len(msg)), eb.ptr(), errLen); st != 0 {
		return C.GoString(&msg[0]), d.err("self-test", st, &eb)
	}
	return C.GoString(&msg[0]), nil
}

func (d *cdevice) NewQueue(depth int) (device.Queue, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.closing {
		return nil, d.closedErr("queue create")
	}
	if depth <= 0 || depth > 1<<20 {
		return nil, fmt.Errorf("%w: device %s: queue depth %d out of range [1, %d]", device.ErrInvalid, d.info.Address, depth, 1<<20)
	}
	var q *C.hados_queue
	var eb errBuf
	if st := C.hdc_qcreate(d.drv.vt, d.h, C.uint32_t(depth), &q, eb.ptr(), errLen); st != 0 {
		return nil, d.err("queue create", st, &eb)
	}
	cq := newQueue(d, q, depth)
	d.queues[cq] = struct{}{}
	return cq, nil
}

// Close closes open queues, then the device; later calls return ErrClosed.
func (d *cdevice) Close() error {
	d.mu.Lock()
	if d.closed || d.closing {
		d.mu.Unlock()
		return nil
	}
	d.closing = true
	queues := make([]*cqueue, 0, len(d.queues))
	for q := range d.queues {
		queues = append(queues, q)
	}
	d.mu.Unlock()
	var errs []error
	for _, q := range queues {
		if err := q.Close(); err != nil && !errors.Is(err, device.ErrClosed) {
			errs = append(errs, err)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errors.Join(errs...)
	}
	d.closed = true
	var eb errBuf
	if st := C.hdc_close(d.drv.vt, d.h, eb.ptr(), errLen); st != 0 {
		errs = append(errs, d.err("close", st, &eb))
	}
	d.h = nil
	if d.drv.lib != nil {
		d.drv.lib.release()
	}
	return errors.Join(errs...)
}

func (d *cdevice) forget(q *cqueue) {
	d.mu.Lock()
	delete(d.queues, q)
	d.mu.Unlock()
}
