package cdev

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/hados-io/hados/device"
)

// PluginDriver loads vendor drivers: "plugin:/path/to/driver.so" in a device
// configuration. The shared object must export HADOS_DRIVER_ENTRY_SYMBOL
// ("hados_driver_entry") returning a vtable of the same ABI version.
type PluginDriver struct{}

var (
	pluginsMu sync.Mutex
	plugins   = map[string]*library{}
)

func init() { device.Register("plugin", PluginDriver{}) }

// Open implements device.Driver: it loads (or reuses) the plugin library and
// opens a device from it. The library stays loaded while any of its devices
// is open.
func (PluginDriver) Open(spec device.Spec, index int, address string) (device.Device, error) {
	drv, err := loadPlugin(spec.Path)
	if err != nil {
		return nil, err
	}
	dev, err := drv.Open(spec, index, address)
	drv.lib.release() // drop loadPlugin's reference; an open device holds its own
	return dev, err
}

func loadPlugin(path string) (*Driver, error) {
	// dlopen searches the library path for names without a '/': resolve
	// the path first so that the file checked is the file loaded.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	pluginsMu.Lock()
	defer pluginsMu.Unlock()
	name := "plugin:" + path
	if l, ok := plugins[path]; ok {
		l.acquire()
		return l.drv, nil
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: %s: cannot load driver: %v", device.ErrInvalid, name, err)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var eb errBuf
	h := C.hdc_dlopen(cpath, eb.ptr(), errLen)
	if h == nil {
		return nil, fmt.Errorf("%w: %s: cannot load driver: %s", device.ErrInvalid, name, eb.String())
	}
	if C.hdc_has_entry(h) == 0 {
		dlclose(h)
		return nil, fmt.Errorf("%w: %s: no symbol %s: not a hados driver", device.ErrNotSupported, name,
			C.HADOS_DRIVER_ENTRY_SYMBOL)
	}
	vt := C.hdc_entry(h)
	if err := checkVTable(name, vt); err != nil {
		dlclose(h)
		return nil, err
	}
	l := &library{path: path, handle: h, refs: 1}
	l.drv = &Driver{vt: vt, name: name, lib: l}
	plugins[path] = l
	return l.drv, nil
}

func dlclose(h unsafe.Pointer) { C.hdc_dlclose(h) }
