package main

/*
#include "hados.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
)

//export hados_devices_json
func hados_devices_json(rtp *C.hados_runtime, out **C.char) C.int {
	return call(func() error {
		rt, err := lookup[*hados.Runtime](unsafe.Pointer(rtp))
		if err != nil {
			return fmt.Errorf("hados_devices_json: %w", err)
		}
		if out == nil {
			return fmt.Errorf("%w: hados_devices_json: out is NULL", device.ErrInvalid)
		}
		infos := make([]device.Info, 0, len(rt.Units()))
		for _, u := range rt.Units() {
			infos = append(infos, u.Device.Info())
		}
		b, err := json.Marshal(infos)
		if err != nil {
			return err
		}
		*out = C.CString(string(b)) // C memory: freed with hados_free_string
		return nil
	})
}
