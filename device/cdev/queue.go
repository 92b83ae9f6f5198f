package cdev

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/internal/probe"
)

const pollBatch = 64

// cqueue is a device.Queue over a driver queue. mu is held shared by Submit
// and Poll (which may block in the driver up to its timeout) and exclusively
// by Close, so the driver queue is destroyed only when no call is inside it.
type cqueue struct {
	dev   *cdevice
	q     *C.hados_queue
	depth int
	mu    sync.RWMutex

	fmu      sync.Mutex
	closed   bool
	closing  bool // Close is waiting for the queue
	next     uint64
	inflight map[uint64]*flight
	comps    *C.hados_completion // pollBatch slots, C memory, freed by Close
	pollMu   sync.Mutex          // serialises users of comps
}

// flight is a submitted program: its host memory stays pinned and its
// results array (C memory) alive until its completion is polled.
type flight struct {
	tag     uint64
	codes   []device.Opcode // the ops' opcodes (the caller may reuse its Ops slice)
	results *C.uint64_t
	pinner  runtime.Pinner
}

func newQueue(d *cdevice, q *C.hados_queue, depth int) *cqueue {
	return &cqueue{
		dev:      d,
		q:        q,
		depth:    depth,
		inflight: map[uint64]*flight{},
		comps:    (*C.hados_completion)(C.calloc(pollBatch, C.sizeof_hados_completion)),
	}
}

func (q *cqueue) closedErr(op string) error {
	return fmt.Errorf("device %s: queue %s: %w", q.dev.info.Address, op, device.ErrClosed)
}

// validate checks host buffers before anything is pinned or submitted.
func validate(p *device.Program) error {
	for i, op := range p.Ops {
		switch op.Code {
		case device.OpCopyH2D, device.OpCopyD2H:
			if uint64(len(op.Host)) < op.Len {
				return fmt.Errorf("%w: op %d (%s): host buffer of %d bytes is shorter than length %d", device.ErrInvalid,
					i, op.Code, len(op.Host), op.Len)
			}
		default:
			if op.Host != nil {
				return fmt.Errorf("%w: op %d (%s) takes no host buffer", device.ErrInvalid, i, op.Code)
			}
		}
	}
	return nil
}

func (q *cqueue) Submit(p device.Program) error {
	if err := validate(&p); err != nil {
		return fmt.Errorf("device %s: submit: %w", q.dev.info.Address, err)
	}
	q.mu.RLock()
	defer q.mu.RUnlock()
	q.fmu.Lock()
	if q.closed {
		q.fmu.Unlock()
		return q.closedErr("submit")
	}
	q.next++
	f := &flight{tag: p.Tag, codes: make([]device.Opcode, len(p.Ops))}
	for i, op := range p.Ops {
		f.codes[i] = op.Code
	}
	tag := q.next
	q.inflight[tag] = f
	q.fmu.Unlock()

	n := len(p.Ops)
	var ops *C.hados_op
	if n > 0 {
		ops = (*C.hados_op)(C.calloc(C.size_t(n), C.sizeof_hados_op))
		f.results = (*C.uint64_t)(C.calloc(C.size_t(n), 8))
		if ops == nil || f.results == nil {
			C.free(unsafe.Pointer(ops))
			C.free(unsafe.Pointer(f.results))
			q.fmu.Lock()
			delete(q.inflight, tag)
			q.fmu.Unlock()
			return fmt.Errorf("%w: device %s: submit: out of host memory for %d ops", device.ErrNoMemory, q.dev.info.Address, n)
		}
	}
	defer C.free(unsafe.Pointer(ops))
	cops := unsafe.Slice(ops, n)
	for i, op := range p.Ops {
		c := &cops[i]
		c.opcode = C.uint32_t(op.Code)
		c.flags = C.uint32_t(op.Flags)
		c.dst = C.uint64_t(op.Dst)
		c.src = C.uint64_t(op.Src)
		c.len = C.uint64_t(op.Len)
		for j := range op.Args {
			c.arg[j] = C.uint64_t(op.Args[j])
		}
		if len(op.Host) > 0 {
			ptr := unsafe.Pointer(unsafe.SliceData(op.Host))
			f.pinner.Pin(ptr)
			if op.Code == device.OpCopyH2D {
				c.src = C.uint64_t(uintptr(ptr))
			} else {
				c.dst = C.uint64_t(uintptr(ptr))
			}
		}
	}
	prog := C.hados_program{ops: ops, n_ops: C.uint32_t(n), user_tag: C.uint64_t(tag), results: f.results}
	if n > 0 {
		probe.ProgramSubmitted(q.dev.num, uint64(p.Ops[0].Code), uint64(n), 0, 0)
	}
	var eb errBuf
	if st := C.hdc_submit(q.dev.drv.vt, q.q, &prog, eb.ptr(), errLen); st != 0 {
		q.fmu.Lock()
		delete(q.inflight, tag)
		q.fmu.Unlock()
		f.release()
		return q.dev.err("submit", st, &eb)
	}
	return nil
}

func (f *flight) release() {
	f.pinner.Unpin()
	C.free(unsafe.Pointer(f.results))
	f.results = nil
}

func (q *cqueue) Poll(dst []device.Completion, timeout time.Duration) (int, error) {
	if len(dst) == 0 {
		return 0, fmt.Errorf("%w: device %s: poll into an empty slice", device.ErrInvalid, q.dev.info.Address)
	}
	if timeout < 0 {
		timeout = 0
	}
	q.mu.RLock()
	defer q.mu.RUnlock()
	q.fmu.Lock()
	closed := q.closed
	q.fmu.Unlock()
	if closed {
		return 0, q.closedErr("poll")
	}
	q.pollMu.Lock()
	defer q.pollMu.Unlock()
	max := min(len(dst), pollBatch)
	var got C.uint32_t
	var eb errBuf
	// Wait in slices so that Close (which needs q.mu exclusively) is never
	// held up by a long poll for more than one slice.
	const slice = 50 * time.Millisecond
	deadline := time.Now().Add(timeout)
	var st C.int
	for {
		wait := min(time.Until(deadline), slice)
		if wait < 0 {
			wait = 0
		}
		st = C.hdc_poll(q.dev.drv.vt, q.q, q.comps, C.uint32_t(max), &got, C.uint64_t(wait.Nanoseconds()), eb.ptr(), errLen)
		if st != C.HADOS_E_TIMEOUT || !time.Now().Before(deadline) {
			break
		}
		q.fmu.Lock()
		closing := q.closing
		q.fmu.Unlock()
		if closing {
			break
		}
	}
	if st == C.HADOS_E_TIMEOUT {
		return 0, nil
	}
	if st != 0 {
		return 0, q.dev.err("poll", st, &eb)
	}
	comps := unsafe.Slice(q.comps, int(got))
	for i := range comps {
		dst[i] = q.complete(&comps[i])
	}
	return int(got), nil
}

func (q *cqueue) complete(c *C.hados_completion) device.Completion {
	q.fmu.Lock()
	f := q.inflight[uint64(c.user_tag)]
	delete(q.inflight, uint64(c.user_tag))
	q.fmu.Unlock()
	out := device.Completion{
		Queued:   time.Duration(c.queued_ns),
		Exec:     time.Duration(c.exec_ns),
		FailedOp: int(c.failed_op),
	}
	if f == nil { // cannot happen with a correct driver
		out.Err = fmt.Errorf("%w: device %s: completion for unknown program %d", device.ErrInvalid, q.dev.info.Address, uint64(c.user_tag))
		return out
	}
	out.Tag = f.tag
	if n := len(f.codes); n > 0 {
		out.Results = make([]uint64, n)
		for i, r := range unsafe.Slice(f.results, n) {
			out.Results[i] = uint64(r)
		}
	}
	var op0 uint64
	if len(f.codes) > 0 {
		op0 = uint64(f.codes[0])
	}
	probe.ProgramDone(q.dev.num, op0, uint64(len(f.codes)), uint64(uint32(c.status)), uint64(c.exec_ns))
	if c.status != 0 {
		what := "program"
		if i := int(c.failed_op); i < len(f.codes) {
			what = fmt.Sprintf("program op %d (%s)", i, f.codes[i])
		}
		out.Err = &device.Error{Device: q.dev.info.Address, Op: what, Status: device.Status(c.status), Msg: C.GoString(&c.message[0])}
	}
	f.release()
	return out
}

// Close destroys the driver queue (queued programs are dropped, running ones
// finish), then releases the pins and buffers of programs whose completions
// were never polled.
func (q *cqueue) Close() error {
	q.fmu.Lock()
	q.closing = true
	q.fmu.Unlock()
	q.mu.Lock()
	defer q.mu.Unlock()
	q.fmu.Lock()
	if q.closed {
		q.fmu.Unlock()
		return q.closedErr("close")
	}
	q.closed = true
	q.fmu.Unlock()
	var eb errBuf
	var err error
	q.dev.mu.RLock()
	if !q.dev.closed {
		if st := C.hdc_qdestroy(q.dev.drv.vt, q.q, eb.ptr(), errLen); st != 0 {
			err = q.dev.err("queue destroy", st, &eb)
		}
	}
	q.dev.mu.RUnlock()
	q.fmu.Lock()
	for tag, f := range q.inflight {
		f.release()
		delete(q.inflight, tag)
	}
	q.fmu.Unlock()
	C.free(unsafe.Pointer(q.comps))
	q.comps = nil
	q.dev.forget(q)
	return err
}
