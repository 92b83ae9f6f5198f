package memory

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
)

// AllocError is the value an Allocator panics with when it cannot allocate:
// arrow's memory.Allocator has no error result, so, like arrow's own
// allocators, ours panic. Recover it into an error with Catch.
type AllocError struct{ Err error }

func (e *AllocError) Error() string { return "memory: arrow allocation failed: " + e.Err.Error() }
func (e *AllocError) Unwrap() error { return e.Err }

// Catch runs fn and turns an AllocError panic inside it into an error (for
// example a *QuotaError when a task's quota is hit while decoding Parquet
// into device memory). Other panics propagate.
func Catch(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if ae, ok := r.(*AllocError); ok {
				err = ae
				return
			}
			panic(r)
		}
	}()
	return fn()
}

// Allocator is an arrow memory.Allocator over a Pool: Arrow arrays and
// Parquet decoding place their buffers straight into device memory
// (NewDeviceAllocator, host-visible devices) or pinned host memory
// (NewHostAllocator), charged to an account.
//
// Ownership follows arrow's rules: memory returned by Allocate belongs to the
// caller (an arrow Buffer) until it is passed to Free. Allocated reports the
// bytes still held, so tests can assert it returns to zero. Safe for
// concurrent use.
type Allocator struct {
	pool *Pool
	acct *Account
	mu   sync.Mutex
	live map[*byte]*Buffer
	size int64
}

var _ memory.Allocator = (*Allocator)(nil)

// zero is what a 0-byte allocation returns: a valid, aligned, empty slice.
var zero = new([Alignment]byte)

// NewDeviceAllocator returns an Allocator placing buffers in a device pool.
// The device must be host-visible: on a discrete device Arrow data lives in
// pinned host memory and crosses DMA, and this returns an error wrapping
// device.ErrNotSupported that says so.
func NewDeviceAllocator(p *Pool, acct *Account) (*Allocator, error) {
	if _, ok := p.visibleDevice(); !ok {
		return nil, fmt.Errorf("%w: memory: %s is not host-visible; allocate Arrow buffers with a host allocator and move them by DMA",
			device.ErrNotSupported, p.b.describe())
	}
	return newAllocator(p, acct), nil
}

// NewHostAllocator returns an Allocator placing buffers in a host pool.
func NewHostAllocator(p *Pool, acct *Account) *Allocator { return newAllocator(p, acct) }

func newAllocator(p *Pool, acct *Account) *Allocator {
	if acct == nil {
		acct = p.root
	}
	return &Allocator{pool: p, acct: acct, live: map[*byte]*Buffer{}}
}

// Allocate implements memory.Allocator; it panics with *AllocError on
// failure. The bytes are zeroed, as arrow expects (validity bitmaps);
// AllocateUninit skips that for buffers overwritten whole.
func (a *Allocator) Allocate(size int) []byte {
	b := a.allocate(size)
	clear(b)
	return b
}

// allocate returns size bytes of the pool, not cleared.
func (a *Allocator) allocate(size int) []byte {
	if size < 0 {
		panic(&AllocError{fmt.Errorf("%w: negative size %d", device.ErrInvalid, size)})
	}
	if size == 0 {
		return zero[:0:0]
	}
	buf, err := a.pool.Alloc(a.acct, uint64(size))
	if err != nil {
		panic(&AllocError{err})
	}
	b := buf.Bytes()
	a.mu.Lock()
	a.live[unsafe.SliceData(b)] = buf
	a.size += int64(size)
	a.mu.Unlock()
	return b
}

// Reallocate implements memory.Allocator.
func (a *Allocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) && cap(b) > 0 {
		if size > len(b) {
			clear(b[len(b):size])
		}
		a.resize(b, size)
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *Allocator) resize(b []byte, size int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if buf, ok := a.live[unsafe.SliceData(b)]; ok {
		a.size += int64(size) - int64(buf.Size)
		buf.Size = uint64(size)
	}
}

// Free implements memory.Allocator. Freeing memory this allocator did not
// hand out (or freeing twice) panics with an AllocError naming it: it is a
// bug in the caller, and arrow's Free has no error result.
func (a *Allocator) Free(b []byte) {
	p := unsafe.SliceData(b)
	if cap(b) == 0 || p == &zero[0] {
		return
	}
	a.mu.Lock()
	buf, ok := a.live[p]
	if ok {
		delete(a.live, p)
		a.size -= int64(buf.Size)
	}
	a.mu.Unlock()
	if !ok {
		panic(&AllocError{fmt.Errorf("%w: free of %d bytes this allocator does not own (double free?)", ErrDoubleFree, cap(b))})
	}
	if err := buf.Free(); err != nil {
		panic(&AllocError{err})
	}
}

// Allocated is the number of bytes allocated and not yet freed.
func (a *Allocator) Allocated() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.size
}

// Account is the account the allocator charges.
func (a *Allocator) Account() *Account { return a.acct }

// Device returns the device whose memory a hands out and true when a is a
// device allocator (NewDeviceAllocator: a host-visible device, so device
// programs can work on the memory Allocate returns); nil and false for a
// host allocator.
func (a *Allocator) Device() (device.Device, bool) { return a.pool.visibleDevice() }

// visibleDevice is the device backing p when the host can address its
// memory (a host-visible device).
func (p *Pool) visibleDevice() (device.Device, bool) {
	if db, ok := p.b.(*deviceBacking); ok && db.visible {
		return db.dev, true
	}
	return nil, false
}

// AllocateBuffer returns size bytes (size > 0) of a's pool as a Buffer,
// charged to a's account and not cleared, outside arrow's bookkeeping
// (Allocated does not count it): scratch that device programs name by
// Buffer.Addr, such as a page to decompress and its output. The caller owns
// it and must Free it.
func (a *Allocator) AllocateBuffer(size int) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("%w: buffer of %d bytes", device.ErrInvalid, size)
	}
	return a.pool.Alloc(a.acct, uint64(size))
}
