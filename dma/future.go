package dma

import (
	"context"
	"sync"
	"time"

	"github.com/hados-io/hados/device"
)

// Future is a submitted transfer (or program). Done is closed when every
// program of it has completed or failed; Err is then final.
//
// The host memory of a transfer stays in use by the device until Done is
// closed, even when Wait returned early because its context was cancelled.
// After a device hang (ErrHang) Done closes without the device's word: the
// transfer's host and device memory may still be written until the
// engine's Close returns.
type Future struct {
	e     *Engine
	dir   Direction
	exec  bool
	start time.Time
	done  chan struct{}

	mu          sync.Mutex
	outstanding int
	sealed      bool
	err         error
	bytes       uint64
	link        uint64
	elided      uint64
	completion  device.Completion
}

func (e *Engine) newFuture(dir Direction) *Future {
	return &Future{e: e, dir: dir, start: time.Now(), done: make(chan struct{})}
}

func (f *Future) add() {
	f.mu.Lock()
	f.outstanding++
	f.mu.Unlock()
}

// done1 records the end of one program.
func (f *Future) done1(d *desc, err error, c ...*device.Completion) {
	d.freeScratch()
	f.mu.Lock()
	f.outstanding--
	if err != nil && f.err == nil {
		f.err = err
	}
	if err == nil {
		f.bytes += d.bytes
		f.link += d.link
	}
	if len(c) > 0 && c[0] != nil {
		f.completion = *c[0]
	}
	f.finishLocked()
	f.mu.Unlock()
}

// seal marks the end of submission; a submission error becomes the
// transfer's error.
func (f *Future) seal(err error) {
	f.mu.Lock()
	if err != nil && f.err == nil {
		f.err = err
	}
	f.sealed = true
	f.finishLocked()
	f.mu.Unlock()
}

func (f *Future) finishLocked() {
	if !f.sealed || f.outstanding > 0 {
		return
	}
	select {
	case <-f.done:
		return
	default:
	}
	f.e.stats.record(f)
	close(f.done)
}

// Done is closed when the transfer has finished.
func (f *Future) Done() <-chan struct{} { return f.done }

// Err is the transfer's error once Done is closed (nil before).
func (f *Future) Err() error {
	select {
	case <-f.done:
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.err
	default:
		return nil
	}
}

// Wait blocks until the transfer finishes or ctx is done, and returns the
// transfer's error or ctx's. After a ctx error the transfer may still be
// running: do not reuse its host memory before Done is closed.
func (f *Future) Wait(ctx context.Context) error {
	select {
	case <-f.done:
		return f.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Bytes reports the logical bytes moved, the bytes that crossed the link,
// and the bytes whose transfer was elided (zero-copy).
func (f *Future) Bytes() (moved, link, elided uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bytes, f.link, f.elided
}
