package memory

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/internal/probe"
)

// Alignment of every block a pool hands out.
const Alignment = 64

// ErrDoubleFree is wrapped by the error of freeing a buffer twice.
var ErrDoubleFree = errors.New("buffer freed twice")

// PoolOptions tunes a pool. Zero values take the defaults.
type PoolOptions struct {
	// SlabSize is how much a pool takes from its backing at a time to carve
	// small blocks from (default 4 MiB).
	SlabSize uint64
	// MaxClass is the largest size class (a power of two, default 1 MiB);
	// larger blocks come from the backing directly.
	MaxClass uint64
	// Limit caps the pool's root account (default: the device's memory for
	// device pools, unlimited for host pools).
	Limit uint64
	// Name names the root account ("device 0", "host").
	Name string
}

func (o *PoolOptions) defaults() {
	if o.SlabSize == 0 {
		o.SlabSize = 4 << 20
	}
	if o.MaxClass == 0 {
		o.MaxClass = 1 << 20
	}
	o.MaxClass = uint64(1) << (63 - bits.LeadingZeros64(o.MaxClass)) // round down to a power of two
	if o.MaxClass < Alignment {
		o.MaxClass = Alignment
	}
	if o.SlabSize < o.MaxClass {
		o.SlabSize = o.MaxClass
	}
}

// backing is where a pool's slabs and large blocks come from.
type backing interface {
	// alloc returns the block's address and, if the host can address it, a
	// host view of it (nil otherwise).
	alloc(size uint64) (addr uint64, host []byte, err error)
	free(addr uint64) error
	describe() string
}

type block struct {
	addr uint64
	size uint64 // class size, or the rounded size of a large block
	host []byte
}

// Pool hands out aligned blocks of device memory (NewDevicePool) or pinned
// host memory (NewHostPool): power-of-two size classes from 64 B to MaxClass
// carved out of slabs, and larger blocks straight from the backing. Every
// block is charged to an Account whose root is the pool's own.
//
// Ownership: a Buffer belongs to whoever Alloc returned it to, who must Free
// it exactly once. Slabs stay with the pool until Close, which returns them
// to the backing and fails if buffers are still live. Safe for concurrent use.
type Pool struct {
	b    backing
	opts PoolOptions
	root *Account
	num  uint64 // device number for probes (1<<32: host memory)

	mu      sync.Mutex
	free    [][]block         // per class, LIFO
	live    map[uint64]*block // addr -> live block
	slabs   []block
	large   uint64      // bytes of live large blocks
	ranges  []hostRange // host views of slabs and large blocks, sorted by host address
	slabSum uint64
	closed  bool

	allocs, frees, failures atomic.Uint64
}

func newPool(b backing, opts PoolOptions) *Pool {
	opts.defaults()
	classes := bits.TrailingZeros64(opts.MaxClass) - bits.TrailingZeros64(Alignment) + 1
	return &Pool{
		b:    b,
		opts: opts,
		root: NewAccount(opts.Name, opts.Limit, nil),
		free: make([][]block, classes),
		live: map[uint64]*block{},
	}
}

// NewDevicePool creates a pool over a device's memory. Its root account is
// limited to the device's memory unless opts.Limit says less.
func NewDevicePool(dev device.Device, opts PoolOptions) *Pool {
	info := dev.Info()
	if opts.Limit == 0 || opts.Limit > info.MemoryBytes {
		opts.Limit = info.MemoryBytes
	}
	if opts.Name == "" {
		opts.Name = "device " + info.Address
	}
	p := newPool(&deviceBacking{dev: dev, visible: info.Mode == device.HostVisible}, opts)
	p.num, _ = strconv.ParseUint(info.Address, 10, 64)
	return p
}

// Account is the pool's root account; task accounts are created under it.
func (p *Pool) Account() *Account { return p.root }

func (p *Pool) class(size uint64) (int, uint64) {
	if size <= Alignment {
		return 0, Alignment
	}
	c := 64 - bits.LeadingZeros64(size-1) // ceil(log2(size))
	return c - bits.TrailingZeros64(Alignment), uint64(1) << c
}

// Alloc returns a buffer of at least size bytes charged to acct (the pool's
// root account if nil). Errors: ErrQuotaExceeded (a *QuotaError) when an
// account's limit would be passed, the backing's error (device.ErrNoMemory…)
// when it has no memory, device.ErrInvalid for size 0.
func (p *Pool) Alloc(acct *Account, size uint64) (*Buffer, error) {
	if size == 0 {
		return nil, fmt.Errorf("%w: memory: allocation of 0 bytes from %s", device.ErrInvalid, p.root.name)
	}
	if size > 1<<52 {
		return nil, fmt.Errorf("%w: memory: allocation of %d bytes from %s", device.ErrInvalid, size, p.root.name)
	}
	if acct == nil {
		acct = p.root
	}
	// Charge first, so a quota refusal never touches the backing.
	charge := p.blockSize(size)
	if err := acct.Reserve(charge); err != nil {
		p.failures.Add(1)
		probe.AllocFailed(p.num, size, 1, 0, 0)
		return nil, err
	}
	blk, err := p.take(size)
	if err != nil {
		acct.Release(charge)
		p.failures.Add(1)
		probe.AllocFailed(p.num, size, 2, 0, 0)
		return nil, err
	}
	p.allocs.Add(1)
	buf := &Buffer{pool: p, acct: acct, Addr: device.Addr(blk.addr), Size: size, blk: blk}
	if blk.host != nil {
		buf.host = blk.host[:size:size]
	}
	return buf, nil
}

// blockSize is the size of the block a request of size bytes gets.
func (p *Pool) blockSize(size uint64) uint64 {
	if size > p.opts.MaxClass {
		return (size + Alignment - 1) &^ (Alignment - 1)
	}
	_, c := p.class(size)
	return c
}

func (p *Pool) take(size uint64) (*block, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("memory: pool %s: %w", p.root.name, device.ErrClosed)
	}
	if size > p.opts.MaxClass {
		n := p.blockSize(size)
		addr, host, err := p.b.alloc(n)
		if err != nil {
			return nil, err
		}
		blk := &block{addr: addr, size: n, host: host}
		p.live[addr] = blk
		p.large += n
		p.addRange(addr, host)
		return blk, nil
	}
	c, csize := p.class(size)
	if len(p.free[c]) == 0 {
		if err := p.carve(c, csize); err != nil {
			return nil, err
		}
	}
	fl := p.free[c]
	blk := fl[len(fl)-1]
	p.free[c] = fl[:len(fl)-1]
	b := &blk
	p.live[blk.addr] = b
	return b, nil
}

// carve takes a slab from the backing and splits it into blocks of class c.
func (p *Pool) carve(c int, csize uint64) error {
	addr, host, err := p.b.alloc(p.opts.SlabSize)
	if err != nil {
		return err
	}
	p.slabs = append(p.slabs, block{addr: addr, size: p.opts.SlabSize, host: host})
	p.addRange(addr, host)
	p.slabSum += p.opts.SlabSize
	n := p.opts.SlabSize / csize
	for i := n; i > 0; i-- { // LIFO: lowest address first out
		off := (i - 1) * csize
		blk := block{addr: addr + off, size: csize}
		if host != nil {
			blk.host = host[off : off+csize : off+csize]
		}
		p.free[c] = append(p.free[c], blk)
	}
	return nil
}

// give returns a block taken by take.
func (p *Pool) give(blk *block) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("memory: pool %s was closed before this buffer was freed: %w", p.root.name, device.ErrClosed)
	}
	if p.live[blk.addr] != blk {
		return fmt.Errorf("memory: pool %s: free of block 0x%x: %w", p.root.name, blk.addr, ErrDoubleFree)
	}
	delete(p.live, blk.addr)
	if blk.size > p.opts.MaxClass {
		p.large -= blk.size
		p.removeRange(blk.host)
		return p.b.free(blk.addr)
	}
	c, _ := p.class(blk.size)
	p.free[c] = append(p.free[c], *blk)
	return nil
}

// PoolStats is a snapshot of a pool.
type PoolStats struct {
	Name        string `json:"name"`
	Backing     string `json:"backing"`
	SlabBytes   uint64 `json:"slab_bytes"`   // taken from the backing for small blocks
	LargeBytes  uint64 `json:"large_bytes"`  // live blocks above MaxClass
	InUseBytes  uint64 `json:"in_use_bytes"` // charged to accounts
	LiveBuffers int    `json:"live_buffers"`
	Allocs      uint64 `json:"allocs"`
	Frees       uint64 `json:"frees"`
	Failures    uint64 `json:"failures"`
	Limit       uint64 `json:"limit_bytes"`
	Peak        uint64 `json:"peak_bytes"`
}

// Stats returns a snapshot of the pool.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	s := PoolStats{Name: p.root.name, Backing: p.b.describe(), SlabBytes: p.slabSum, LargeBytes: p.large, LiveBuffers: len(p.live)}
	p.mu.Unlock()
	rs := p.root.Stats()
	s.InUseBytes, s.Limit, s.Peak = rs.InUse, rs.Limit, rs.Peak
	s.Allocs, s.Frees, s.Failures = p.allocs.Load(), p.frees.Load(), p.failures.Load()
	return s
}

// Close returns every slab to the backing. It fails, naming how many
// buffers and bytes are still live, if anything was not freed (those blocks
// are released anyway so that nothing stays allocated on the device).
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	if n := len(p.live); n > 0 {
		var bytes uint64
		for _, b := range p.live {
			bytes += b.size
		}
		errs = append(errs, fmt.Errorf("memory: pool %s closed with %d live buffers (%s): leak", p.root.name, n, FormatBytes(bytes)))
	}
	for addr, b := range p.live {
		if b.size > p.opts.MaxClass {
			errs = append(errs, p.b.free(addr))
		}
	}
	for _, s := range p.slabs {
		errs = append(errs, p.b.free(s.addr))
	}
	p.live, p.slabs, p.free, p.ranges = nil, nil, nil, nil
	return errors.Join(errs...)
}

// Buffer is a block of pool memory charged to an account. Whoever received
// it from Alloc owns it and must call Free exactly once; a second Free
// returns an error wrapping ErrDoubleFree.
type Buffer struct {
	pool  *Pool
	acct  *Account
	blk   *block
	host  []byte
	freed atomic.Bool

	Addr device.Addr // device address (for host pools, the host address)
	Size uint64      // the size asked for
}

// Bytes is the host view of the buffer: device memory on a host-visible
// device, the pinned memory of a host pool, nil on a discrete device. It is
// valid until Free (or until its device is closed).
func (b *Buffer) Bytes() []byte { return b.host }

// Account is the account the buffer is charged to.
func (b *Buffer) Account() *Account { return b.acct }

// Free returns the buffer to its pool and releases its charge.
func (b *Buffer) Free() error {
	if b == nil {
		return fmt.Errorf("%w: memory: free of a nil buffer", device.ErrInvalid)
	}
	if !b.freed.CompareAndSwap(false, true) {
		return fmt.Errorf("memory: buffer 0x%x (%s): %w", uint64(b.Addr), FormatBytes(b.Size), ErrDoubleFree)
	}
	err := b.pool.give(b.blk)
	b.acct.Release(b.blk.size)
	b.pool.frees.Add(1)
	b.host = nil
	return err
}
