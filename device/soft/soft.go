package soft

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O3 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-unused-function
#cgo LDFLAGS: -lpthread
#include "hados_driver.h"
const hados_driver_vtable *hados_soft_driver_entry(void);
*/
import "C"

import (
	"unsafe"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/device/cdev"
)

// DriverName is the name the software DPU registers under.
const DriverName = "soft"

func init() {
	drv, err := cdev.NewDriver(DriverName, unsafe.Pointer(C.hados_soft_driver_entry))
	if err != nil {
		panic("device/soft: built-in driver rejected: " + err.Error()) // a build defect, never input
	}
	device.Register(DriverName, drv)
}
