package cdev

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"strconv"
	"sync"
	"unsafe"

	"github.com/hados-io/hados/device"
)

// Driver is a device.Driver over a C driver vtable (hados_driver.h): the
// built-in software DPU's, or a plugin's loaded with dlopen.
type Driver struct {
	vt   *C.hados_driver_vtable
	name string // as shown in Info.Driver: "soft" or "plugin:/path.so"
	lib  *library
}

// NewDriver wraps the vtable returned by a driver entry function, given as a
// C function pointer (a hados_driver_entry_fn). name is what Info.Driver
// shows. The vtable is checked for the ABI version and required functions.
func NewDriver(name string, entry unsafe.Pointer) (*Driver, error) {
	if entry == nil {
		return nil, fmt.Errorf("%w: driver %s: nil entry point", device.ErrInvalid, name)
	}
	vt := C.hdc_call_entry(entry)
	if err := checkVTable(name, vt); err != nil {
		return nil, err
	}
	return &Driver{vt: vt, name: name}, nil
}

func checkVTable(name string, vt *C.hados_driver_vtable) error {
	msg := C.hdc_check(vt)
	if msg == nil {
		return nil
	}
	switch s := C.GoString(msg); s {
	case "abi":
		return fmt.Errorf("%w: driver %s speaks driver ABI version %d; this hados speaks version %d", device.ErrNotSupported,
			name, uint32(vt.abi_version), ABIVersion)
	case "size":
		return fmt.Errorf("%w: driver %s has a vtable of %d bytes, want at least %d (built against an older hados_driver.h)",
			device.ErrNotSupported, name, uint32(vt.struct_size), C.sizeof_hados_driver_vtable)
	default:
		return fmt.Errorf("%w: driver %s: %s", device.ErrNotSupported, name, s)
	}
}

// Name is the driver's name as shown in device info.
func (d *Driver) Name() string { return d.name }

// Open implements device.Driver.
func (d *Driver) Open(spec device.Spec, index int, address string) (device.Device, error) {
	cfg := C.CString(spec.OptionString())
	defer C.free(unsafe.Pointer(cfg))
	var h *C.hados_device
	var eb errBuf
	// The driver's index is the device's global ordinal, so that every
	// device of the process gets its own device address range.
	if n, err := strconv.Atoi(address); err == nil && n >= 0 {
		index = n
	}
	if st := C.hdc_open(d.vt, cfg, C.uint32_t(index), &h, eb.ptr(), errLen); st != 0 {
		return nil, &device.Error{Device: address, Op: "open", Status: device.Status(st), Msg: eb.String()}
	}
	dev := &cdevice{drv: d, h: h, queues: map[*cqueue]struct{}{}}
	var info C.hados_device_info
	if st := C.hdc_info(d.vt, h, &info, eb.ptr(), errLen); st != 0 {
		C.hdc_close(d.vt, h, eb.ptr(), errLen)
		return nil, &device.Error{Device: address, Op: "info", Status: device.Status(st), Msg: eb.String()}
	}
	dev.info = convertInfo(&info, address, d.name)
	dev.num, _ = strconv.ParseUint(address, 10, 64)
	if d.lib != nil {
		d.lib.acquire()
	}
	return dev, nil
}

var simdNames = map[C.uint32_t]string{C.HADOS_SIMD_SCALAR: "scalar", C.HADOS_SIMD_AVX2: "avx2", C.HADOS_SIMD_AVX512: "avx512"}
var hugeNames = map[C.uint32_t]string{0: "none", 1: "transparent", 2: "hugetlb"}

func convertInfo(in *C.hados_device_info, address, driver string) device.Info {
	mode := device.HostVisible
	if in.mode == C.HADOS_MODE_DISCRETE {
		mode = device.Discrete
	}
	simd, ok := simdNames[in.simd]
	if !ok {
		simd = fmt.Sprintf("simd(%d)", uint32(in.simd))
	}
	huge, ok := hugeNames[in.hugepages]
	if !ok {
		huge = "unknown"
	}
	align := uint64(in.alloc_align)
	if align < 64 {
		align = 64
	}
	return device.Info{
		Address:       address,
		Name:          C.GoString(&in.name[0]),
		Driver:        driver,
		Version:       C.GoString(&in.version[0]),
		MemoryBytes:   uint64(in.memory_bytes),
		Cores:         int(in.cores),
		Mode:          mode,
		ModeName:      mode.String(),
		SIMD:          simd,
		HugePages:     huge,
		Locked:        in.locked != 0,
		MaxQueueDepth: int(in.max_queue_depth),
		AllocAlign:    align,
	}
}

// library is a dlopen'ed plugin, shared by every device opened from it and
// closed when the last one closes.
type library struct {
	path   string
	handle unsafe.Pointer
	mu     sync.Mutex
	refs   int
	drv    *Driver
}

func (l *library) acquire() {
	l.mu.Lock()
	l.refs++
	l.mu.Unlock()
}

func (l *library) release() {
	pluginsMu.Lock()
	defer pluginsMu.Unlock()
	l.mu.Lock()
	l.refs--
	last := l.refs == 0
	l.mu.Unlock()
	if last {
		delete(plugins, l.path)
		dlclose(l.handle)
	}
}
