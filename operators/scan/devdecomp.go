package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
)

// Page decompression on the device.
//
// When the scan decodes into a host-visible device's memory (Options.Alloc
// a memory.NewDeviceAllocator) and the device has a codec for a column
// chunk's compression (snappy; lz4_raw, whose pages are raw LZ4 blocks),
// the chunk's pages are decompressed by the device — one OpDecompress
// program per page — instead of by Go's decoders, at every parallelism:
// inflate.go lays the row group out as an uncompressed file for pqarrow
// and asks devDecomp for each page when the decoder (or a helper ahead of
// it) needs it. The compressed page is read from the file straight into
// device memory, the device decompresses it into device memory, and the
// decoder reads it from there. Whatever the device cannot decompress (other
// codecs, a discrete device, a device buffer that cannot be had) takes
// the Go path as before; a page the device finds corrupt is an ErrCorrupt
// error naming the file and row group, as Go's decoders give.
type devDecomp struct {
	alloc *hmem.Allocator
	dev   device.Device
	tag   atomic.Uint64
	pages atomic.Int64 // pages decompressed on the device

	mu     sync.Mutex
	idle   []device.Queue // queues no goroutine is using
	all    []device.Queue
	closed bool
}

// deviceDecompression switches device decompression. It is off: with it
// on, four concurrent TPC-H Q6 tasks on two 64 MiB software DPUs (the C
// ABI's tests) ran the devices out of memory, the page buffers it holds in
// device memory not being bounded by what the operators above still need;
// and it saved only ~3% of the scan's CPU (docs/PERFORMANCE.md). Its tests
// and same-run comparisons turn it on.
var deviceDecompression = false

// newDevDecomp returns the device decompressor of a scan decoding into a,
// or nil when a is not a host-visible device's allocator.
func newDevDecomp(a memory.Allocator) *devDecomp {
	ha, ok := a.(*hmem.Allocator)
	if !ok || !deviceDecompression {
		return nil
	}
	dev, ok := ha.Device()
	if !ok {
		return nil
	}
	return &devDecomp{alloc: ha, dev: dev}
}

// codec is the device codec of a Parquet compression, 0 if none.
func (d *devDecomp) codec(c compress.Compression) device.Codec {
	if d == nil {
		return 0
	}
	switch c {
	case compress.Codecs.Snappy:
		return device.CodecSnappy
	case compress.Codecs.Lz4Raw:
		return device.CodecLZ4
	}
	return 0
}

// errNoDeviceBuffer says device memory for a page could not be had; the
// page is decompressed on the host instead.
var errNoDeviceBuffer = errors.New("scan: no device memory for a page")

// page reads the stored bytes of a page (stored at offset at of file) and
// decompresses them on the device into size bytes of device memory, which
// it returns with their Buffer; the caller must Free it. An error wrapping
// errNoDeviceBuffer means the device had no memory for it.
func (d *devDecomp) page(ctx context.Context, file io.ReaderAt, read *atomic.Int64, at int64, stored, size int, codec device.Codec) ([]byte, *hmem.Buffer, error) {
	if stored <= 0 || size <= 0 {
		return nil, nil, errNoDeviceBuffer
	}
	// the buffers go back unless a program the device did not finish may
	// still use them (busy)
	ok, busy := false, false
	src, err := d.alloc.AllocateBuffer(stored)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errNoDeviceBuffer, err)
	}
	defer func() {
		if !busy {
			src.Free()
		}
	}()
	dst, err := d.alloc.AllocateBuffer(size)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errNoDeviceBuffer, err)
	}
	defer func() {
		if !ok && !busy {
			dst.Free()
		}
	}()
	n, err := file.ReadAt(src.Bytes()[:stored], at)
	read.Add(int64(n))
	if n < stored {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, nil, fmt.Errorf("reading %d bytes: %w", stored, err)
	}
	var res uint64
	res, busy, err = d.run(ctx, device.Program{Ops: []device.Op{{
		Code: device.OpDecompress, Dst: dst.Addr, Src: src.Addr, Len: uint64(stored),
		Args: [4]uint64{uint64(codec), uint64(size)},
	}}})
	if err != nil {
		return nil, nil, fmt.Errorf("decompressing on the device: %w", err)
	}
	if res != uint64(size) {
		return nil, nil, fmt.Errorf("decompressed to %d bytes on the device, its header says %d", res, size)
	}
	ok = true
	d.pages.Add(1)
	return dst.Bytes()[:size], dst, nil
}

// deviceFailure is a failure of the device itself (not of the page it was
// given): the scan reports it as it is, not as a corrupt file.
type deviceFailure struct{ err error }

func (e *deviceFailure) Error() string { return e.err.Error() }
func (e *deviceFailure) Unwrap() error { return e.err }

// run runs a one-op program on a queue of its own and returns the op's
// result. A program the device rejects as corrupt input (ErrIO) is an
// error for the caller to blame on the page; a queue it cannot open falls
// back to the host (errNoDeviceBuffer); any other failure is a
// *deviceFailure.
//
// The program's memory must outlive it, so run waits for its completion
// even when ctx is cancelled (a page takes milliseconds); only if the
// device does not complete it within cancelWait after that, or polling
// fails, does run return with busy set: the program may still use its
// buffers, which the caller must then leave allocated.
func (d *devDecomp) run(ctx context.Context, p device.Program) (res uint64, busy bool, err error) {
	q, err := d.queue()
	if err != nil {
		return 0, false, fmt.Errorf("%w: %v", errNoDeviceBuffer, err)
	}
	p.Tag = d.tag.Add(1)
	if err := q.Submit(p); err != nil {
		d.put(q)
		return 0, false, fmt.Errorf("%w: %v", errNoDeviceBuffer, err)
	}
	var comp [1]device.Completion
	var deadline time.Time
	for {
		n, err := q.Poll(comp[:], 100*time.Millisecond)
		if err != nil {
			// the queue may still hold the program: do not reuse it
			return 0, true, &deviceFailure{err}
		}
		if n == 1 {
			break
		}
		if ctx.Err() != nil {
			if deadline.IsZero() {
				deadline = time.Now().Add(cancelWait)
			} else if time.Now().After(deadline) {
				return 0, true, ctx.Err() // the queue is closed with the scan
			}
		}
	}
	d.put(q)
	if err := comp[0].Err; err != nil {
		if errors.Is(err, device.ErrIO) {
			return 0, false, err
		}
		return 0, false, &deviceFailure{err}
	}
	if ctx.Err() != nil {
		return 0, false, ctx.Err()
	}
	return comp[0].Results[0], false, nil
}

// cancelWait bounds how long a cancelled scan waits for a page the device
// is decompressing.
const cancelWait = 10 * time.Second

// queue takes an idle queue or opens one: each goroutine decompressing
// polls its own, so a completion is never taken by another.
func (d *devDecomp) queue() (device.Queue, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, context.Canceled
	}
	if n := len(d.idle); n > 0 {
		q := d.idle[n-1]
		d.idle = d.idle[:n-1]
		return q, nil
	}
	q, err := d.dev.NewQueue(2)
	if err != nil {
		return nil, err
	}
	d.all = append(d.all, q)
	return q, nil
}

func (d *devDecomp) put(q device.Queue) {
	d.mu.Lock()
	d.idle = append(d.idle, q)
	d.mu.Unlock()
}

// close closes every queue; no page may be decompressed after.
func (d *devDecomp) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	all := d.all
	d.all, d.idle, d.closed = nil, nil, true
	d.mu.Unlock()
	for _, q := range all {
		q.Close()
	}
}
