package cdev

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O2 -Wall
#cgo LDFLAGS: -ldl
#include "bridge.h"
*/
import "C"

const errLen = 512

// errBuf receives a driver's message on the C call that failed.
type errBuf [errLen]C.char

func (b *errBuf) ptr() *C.char   { return &b[0] }
func (b *errBuf) String() string { return C.GoString(&b[0]) }

// ABIVersion is the driver ABI version this build speaks.
const ABIVersion = C.HADOS_DRIVER_ABI_VERSION
