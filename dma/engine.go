package dma

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/memory"
)

// Direction of a transfer.
type Direction uint8

const (
	H2D Direction = iota // host to device
	D2H                  // device to host
	D2D                  // device to device
)

func (d Direction) String() string {
	switch d {
	case H2D:
		return "h2d"
	case D2H:
		return "d2h"
	case D2D:
		return "d2d"
	}
	return fmt.Sprintf("direction(%d)", uint8(d))
}

// Segment is one contiguous piece of a scatter-gather transfer.
type Segment struct {
	Host []byte      // H2D source, D2H destination
	Dev  device.Addr // H2D and D2D destination, D2H source
	Src  device.Addr // D2D source
	Len  uint64      // bytes; 0 means len(Host)
}

// Engine moves data between host and one device asynchronously: transfers
// are split into chunks, gathered into programs (descriptors with
// scatter-gather lists), spread over the device's hardware queues, retried
// when a descriptor fails, and completed through a Future. One poller
// goroutine per queue drains completions and runs the watchdog.
//
// An Engine owns its device queues; Close drains what is in flight and
// closes them. It does not own the device. Safe for concurrent use.
type Engine struct {
	dev    device.Device
	info   device.Info
	num    uint64 // the device address as a number, for probes
	opts   Options
	queues []*hwQueue
	rr     atomic.Uint64

	closing atomic.Bool
	gate    sync.RWMutex // held shared while a program is registered, exclusively to start closing
	closeMu sync.Mutex
	closed  bool
	failure atomic.Pointer[error] // set when the device hung or a queue broke
	wg      sync.WaitGroup
	// quarantine holds the scratch memory of programs failed without a
	// completion (watchdog, broken queue): the device may still write it,
	// so it is freed only after Close has destroyed the queues.
	quarantineMu sync.Mutex
	quarantine   []*desc
	inflight     atomic.Int64
	stats        engineStats
}

type hwQueue struct {
	e       *Engine
	q       device.Queue
	slots   chan struct{}
	mu      sync.Mutex
	pending map[uint64]*desc
	seq     uint64
}

// desc is one submitted program and what to do when it completes.
type desc struct {
	f       *Future
	prog    device.Program
	tries   int
	noRetry bool
	since   time.Time
	bytes   uint64 // logical bytes moved
	link    uint64 // bytes that crossed the link (after compression)
	scratch *memory.Buffer
	post    func(c *device.Completion) error
}

// New starts an engine on a device.
func New(dev device.Device, opts Options) (*Engine, error) {
	if dev == nil {
		return nil, fmt.Errorf("%w: dma: nil device", device.ErrInvalid)
	}
	info := dev.Info()
	if err := opts.setDefaults(info); err != nil {
		return nil, err
	}
	e := &Engine{dev: dev, info: info, opts: opts}
	e.num, _ = strconv.ParseUint(info.Address, 10, 64)
	for i := 0; i < opts.Queues; i++ {
		q, err := dev.NewQueue(opts.QueueDepth)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("dma: device %s: queue %d: %w", info.Address, i, err)
		}
		hq := &hwQueue{e: e, q: q, slots: make(chan struct{}, opts.QueueDepth), pending: map[uint64]*desc{}}
		e.queues = append(e.queues, hq)
		e.wg.Add(1)
		go hq.poll()
	}
	return e, nil
}

// Device is the engine's device.
func (e *Engine) Device() device.Device { return e.dev }

// Options returns the engine's effective options.
func (e *Engine) Options() Options { return e.opts }

func (e *Engine) usable() error {
	if p := e.failure.Load(); p != nil {
		return *p
	}
	if e.closing.Load() {
		return fmt.Errorf("dma: device %s: engine %w", e.info.Address, device.ErrClosed)
	}
	return nil
}

// freeScratch releases the program's scratch memory, if any.
func (d *desc) freeScratch() {
	if d.scratch != nil {
		d.scratch.Free()
		d.scratch = nil
	}
}

// submit hands one program to the next queue, waiting for a slot. It takes
// ownership of d: whatever happens, d's scratch memory is freed once.
func (e *Engine) submit(ctx context.Context, d *desc) error {
	if err := e.usable(); err != nil {
		d.freeScratch()
		return err
	}
	q := e.queues[e.rr.Add(1)%uint64(len(e.queues))]
	select {
	case q.slots <- struct{}{}:
	case <-ctx.Done():
		d.freeScratch()
		return ctx.Err()
	}
	e.gate.RLock()
	defer e.gate.RUnlock()
	if err := e.usable(); err != nil {
		<-q.slots
		d.freeScratch()
		return err
	}
	d.f.add()
	e.inflight.Add(1)
	q.mu.Lock()
	q.seq++
	d.prog.Tag = q.seq
	d.since = time.Now()
	q.pending[q.seq] = d
	q.mu.Unlock()
	if err := q.q.Submit(d.prog); err != nil {
		q.mu.Lock()
		delete(q.pending, d.prog.Tag)
		q.mu.Unlock()
		<-q.slots
		e.inflight.Add(-1)
		d.f.done1(d, err)
		return err
	}
	e.stats.of(d.f).programs.Add(1)
	return nil
}

func (q *hwQueue) poll() {
	defer q.e.wg.Done()
	buf := make([]device.Completion, 32)
	for {
		n, err := q.q.Poll(buf, q.e.opts.PollInterval)
		if err != nil {
			// under the gate: no submit may slip a program in after failAll
			q.e.gate.Lock()
			q.e.fail(fmt.Errorf("dma: device %s: poll: %w", q.e.info.Address, err))
			q.e.gate.Unlock()
			q.failAll()
			return
		}
		for i := 0; i < n; i++ {
			q.handle(&buf[i])
			buf[i] = device.Completion{}
		}
		if n > 0 {
			// Let the goroutines just readied (a caller waiting in Exec
			// or Wait) run on this thread now, before the poll blocks in
			// the driver again: otherwise the runtime wakes another
			// thread for them, tens of microseconds on a virtual machine,
			// and an operator waits for that once per record
			// (BenchmarkRoundTrip: 90 -> 45 us on the software DPU).
			runtime.Gosched()
		}
		q.watchdog()
		if q.e.closing.Load() && q.idle() {
			return
		}
	}
}

func (q *hwQueue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending) == 0
}

func (q *hwQueue) handle(c *device.Completion) {
	q.mu.Lock()
	d := q.pending[c.Tag]
	delete(q.pending, c.Tag)
	q.mu.Unlock()
	if d == nil {
		return // already failed by the watchdog
	}
	e := q.e
	if c.Err != nil && errors.Is(c.Err, device.ErrIO) && !d.noRetry && d.tries < e.opts.Retries && e.usable() == nil {
		d.tries++
		e.stats.of(d.f).retries.Add(1)
		q.mu.Lock()
		q.seq++
		d.prog.Tag = q.seq
		d.since = time.Now()
		q.pending[q.seq] = d
		q.mu.Unlock()
		err := q.q.Submit(d.prog)
		if err == nil {
			return
		}
		q.mu.Lock()
		delete(q.pending, d.prog.Tag)
		q.mu.Unlock()
		c.Err = fmt.Errorf("%w (resubmission after: %v)", err, c.Err)
	}
	<-q.slots
	e.inflight.Add(-1)
	err := c.Err
	if err != nil && d.tries > 0 {
		err = fmt.Errorf("%w (after %d retries)", err, d.tries)
	}
	if err == nil && d.post != nil {
		err = d.post(c)
	}
	d.f.done1(d, err, c)
}

// watchdog declares the device hung when a program is overdue.
func (q *hwQueue) watchdog() {
	now := time.Now()
	q.mu.Lock()
	var late *desc
	for _, d := range q.pending {
		if now.Sub(d.since) > q.e.opts.Watchdog {
			late = d
			break
		}
	}
	q.mu.Unlock()
	if late == nil {
		return
	}
	q.e.stats.hangs.Add(1)
	what := late.f.dir.String()
	if late.f.exec {
		what = "device"
	}
	q.e.fail(fmt.Errorf("dma: device %s: a %s program did not complete within %v: %w", q.e.info.Address,
		what, q.e.opts.Watchdog, device.ErrHang))
	for _, other := range q.e.queues {
		other.failAll()
	}
}

// fail records the first fatal error; later submissions return it.
func (e *Engine) fail(err error) {
	e.failure.CompareAndSwap(nil, &err)
}

// failAll completes every pending program of the queue with the engine's
// failure and gives their slots back, so that submitters waiting for a slot
// wake up and see the failure.
func (q *hwQueue) failAll() {
	err := q.e.usable()
	q.mu.Lock()
	pending := q.pending
	q.pending = map[uint64]*desc{}
	q.mu.Unlock()
	for _, d := range pending {
		q.e.inflight.Add(-1)
		select {
		case <-q.slots:
		default:
		}
		if d.scratch != nil {
			q.e.quarantineMu.Lock()
			q.e.quarantine = append(q.e.quarantine, &desc{scratch: d.scratch})
			q.e.quarantineMu.Unlock()
			d.scratch = nil
		}
		d.f.done1(d, err)
	}
}

// Close waits for the transfers in flight (at most the watchdog time), stops
// the pollers and closes the device queues. It is idempotent.
func (e *Engine) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	e.gate.Lock()
	e.closing.Store(true)
	e.gate.Unlock()
	e.wg.Wait()
	var errs []error
	for _, q := range e.queues {
		if err := q.q.Close(); err != nil {
			errs = append(errs, err)
		}
		q.failAll() // programs the device dropped on close
	}
	e.quarantineMu.Lock()
	for _, d := range e.quarantine { // the queues are gone: nothing writes these any more
		d.freeScratch()
	}
	e.quarantine = nil
	e.quarantineMu.Unlock()
	return errors.Join(errs...)
}
