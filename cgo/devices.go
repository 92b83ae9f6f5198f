package main

/*
#include "hados.h"
*/
import "C"

import (
	"encoding/json"

	"github.com/hados-io/hados/device"
)

//export hados_devices_json
func hados_devices_json(rtp *C.hados_runtime, out **C.char) C.int {
	return call(func() error {
		rs, err := runtimeOf("hados_devices_json", rtp)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_devices_json: out is NULL")
		}
		infos := make([]device.Info, 0, len(rs.rt.Units()))
		for _, u := range rs.rt.Units() {
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
