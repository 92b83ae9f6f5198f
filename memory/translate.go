package memory

import (
	"sort"
	"unsafe"

	"github.com/hados-io/hados/device"
)

// hostRange maps a host view of pool memory back to its device address.
type hostRange struct {
	host uintptr
	size uintptr
	addr uint64
}

func hostPtr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// addRange records the host view of a slab or large block; p.mu held.
func (p *Pool) addRange(addr uint64, host []byte) {
	if host == nil {
		return
	}
	r := hostRange{host: hostPtr(host), size: uintptr(len(host)), addr: addr}
	i := sort.Search(len(p.ranges), func(i int) bool { return p.ranges[i].host >= r.host })
	p.ranges = append(p.ranges, hostRange{})
	copy(p.ranges[i+1:], p.ranges[i:])
	p.ranges[i] = r
}

// removeRange forgets a large block's host view; p.mu held.
func (p *Pool) removeRange(host []byte) {
	if host == nil {
		return
	}
	h := hostPtr(host)
	i := sort.Search(len(p.ranges), func(i int) bool { return p.ranges[i].host >= h })
	if i < len(p.ranges) && p.ranges[i].host == h {
		p.ranges = append(p.ranges[:i], p.ranges[i+1:]...)
	}
}

// Translate returns the device address of host memory that lies in this
// pool's memory (the host view of a host-visible device's buffers, such as
// Arrow buffers from NewDeviceAllocator), so that kernels can read it in
// place: zero-copy. ok is false for any other memory, which must then cross
// by DMA. An empty slice is never translated.
func (p *Pool) Translate(b []byte) (addr device.Addr, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	h := hostPtr(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	i := sort.Search(len(p.ranges), func(i int) bool { return p.ranges[i].host > h }) - 1
	if i < 0 {
		return 0, false
	}
	r := p.ranges[i]
	if h+uintptr(len(b)) > r.host+r.size {
		return 0, false
	}
	return device.Addr(r.addr + uint64(h-r.host)), true
}
