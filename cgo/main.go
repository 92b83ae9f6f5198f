// See doc.go for the package documentation.

package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include "hados.h"
*/
import "C"

import "unsafe"

func main() {}

//export hados_abi_version
func hados_abi_version() C.int { return C.HADOS_ABI_VERSION }

//export hados_free_string
func hados_free_string(s *C.char) { C.free(unsafe.Pointer(s)) }
