package memory

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hados-io/hados/device"
)

// deviceBacking takes memory from a device.
type deviceBacking struct {
	dev     device.Device
	visible bool
}

func (d *deviceBacking) alloc(size uint64) (uint64, []byte, error) {
	a, err := d.dev.Alloc(size)
	if err != nil {
		return 0, nil, err
	}
	if !d.visible {
		return uint64(a), nil, nil
	}
	host, err := d.dev.Map(a, size)
	if err != nil {
		d.dev.Free(a)
		return 0, nil, err
	}
	return uint64(a), host, nil
}

func (d *deviceBacking) free(addr uint64) error { return d.dev.Free(device.Addr(addr)) }

func (d *deviceBacking) describe() string {
	info := d.dev.Info()
	return fmt.Sprintf("device %s (%s, %s)", info.Address, info.Driver, info.Mode)
}

// hostBacking maps pinned host memory: anonymous mappings outside the Go
// heap (never moved by the garbage collector, so DMA may hold their
// addresses), mlocked when the process may lock memory.
type hostBacking struct {
	lock   bool
	mu     sync.Mutex
	maps   map[uint64][]byte
	locked bool // the last mapping was locked
}

func (h *hostBacking) alloc(size uint64) (uint64, []byte, error) {
	if size > 1<<46 {
		return 0, nil, fmt.Errorf("%w: pinned host allocation of %d bytes", device.ErrInvalid, size)
	}
	mem, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: pinned host memory: mmap of %d bytes: %v", device.ErrNoMemory, size, err)
	}
	locked := h.lock && unix.Mlock(mem) == nil
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(mem))))
	h.mu.Lock()
	h.maps[addr] = mem
	h.locked = locked
	h.mu.Unlock()
	return addr, mem, nil
}

func (h *hostBacking) free(addr uint64) error {
	h.mu.Lock()
	mem, ok := h.maps[addr]
	delete(h.maps, addr)
	h.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: pinned host memory: free of unknown mapping 0x%x", device.ErrInvalid, addr)
	}
	return unix.Munmap(mem)
}

func (h *hostBacking) describe() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.locked {
		return "pinned host (mlocked)"
	}
	return "pinned host"
}

// NewHostPool creates a pool of pinned host memory: the staging buffers of
// DMA and the home of Arrow data bound for a discrete device. lock asks for
// mlock (best effort: without the privilege the memory is still outside the
// Go heap, only swappable).
func NewHostPool(opts PoolOptions, lock bool) *Pool {
	if opts.Name == "" {
		opts.Name = "host"
	}
	p := newPool(&hostBacking{lock: lock, maps: map[uint64][]byte{}}, opts)
	p.num = 1 << 32
	return p
}
