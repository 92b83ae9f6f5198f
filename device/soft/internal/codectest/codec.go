package codectest

/*
#cgo CFLAGS: -I${SRCDIR}/../.. -O3 -Wall -Wextra
#include <stdlib.h>
#include "codec_lz4.h"
#include "codec_snappy.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Sentinel errors, one per C error code; a *CodecError wraps exactly one.
var (
	ErrInvalid     = errors.New("invalid argument")      // HD_CODEC_EINVAL
	ErrCorrupt     = errors.New("corrupt input")         // HD_CODEC_ECORRUPT
	ErrShortBuffer = errors.New("destination too small") // HD_CODEC_ESPACE
	ErrTooLarge    = errors.New("input too large")       // HD_CODEC_ETOOBIG
)

// CodecError reports a negative status returned by a C codec function.
type CodecError struct {
	Codec string // "lz4" or "snappy"
	Op    string // "compress", "decompress", "decoded length"
	Code  int64  // the HD_CODEC_E* value
}

func (e *CodecError) Error() string {
	return fmt.Sprintf("codectest: %s %s: %s (code %d)", e.Codec, e.Op,
		C.GoString(C.hd_codec_strerror(C.int64_t(e.Code))), e.Code)
}

// Unwrap returns the sentinel matching Code, so errors.Is works.
func (e *CodecError) Unwrap() error {
	switch e.Code {
	case C.HD_CODEC_EINVAL:
		return ErrInvalid
	case C.HD_CODEC_ECORRUPT:
		return ErrCorrupt
	case C.HD_CODEC_ESPACE:
		return ErrShortBuffer
	case C.HD_CODEC_ETOOBIG:
		return ErrTooLarge
	}
	return nil
}

// cfunc is the shape shared by every C compress/decompress entry point.
type cfunc func(src *C.uint8_t, n C.int64_t, dst *C.uint8_t, cap C.int64_t) C.int64_t

// result turns a C return value into (n, nil) or (0, *CodecError).
func result(codec, op string, r int64) (int, error) {
	if r < 0 {
		return 0, &CodecError{Codec: codec, Op: op, Code: r}
	}
	return int(r), nil
}

// ptr returns a C view of b's backing array (nil for an empty slice). The
// memory stays owned by Go; C only uses it for the duration of the call,
// which cgo's pointer rules allow because []byte holds no Go pointers.
func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b)))
}

// call runs f on Go memory directly: src is read, dst[:len(dst)] written.
func call(f cfunc, src, dst []byte) int64 {
	return int64(f(ptr(src), C.int64_t(len(src)), ptr(dst), C.int64_t(len(dst))))
}

// callExact runs f on copies of src and of a dstCap-byte output held in
// C.malloc'd buffers of exactly those sizes, so that under `go test -asan`
// any out-of-bounds access by the C code hits a redzone. It returns the C
// result and the first r output bytes; both buffers are freed before it
// returns.
func callExact(f cfunc, src []byte, dstCap int) (int64, []byte) {
	csrc := (*C.uint8_t)(C.malloc(C.size_t(max(len(src), 1))))
	defer C.free(unsafe.Pointer(csrc))
	cdst := (*C.uint8_t)(C.malloc(C.size_t(max(dstCap, 1))))
	defer C.free(unsafe.Pointer(cdst))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(csrc)), len(src)), src)
	var s, d *C.uint8_t
	if len(src) > 0 {
		s = csrc
	}
	if dstCap > 0 {
		d = cdst
	}
	r := int64(f(s, C.int64_t(len(src)), d, C.int64_t(dstCap)))
	if r < 0 {
		return r, nil
	}
	return r, C.GoBytes(unsafe.Pointer(cdst), C.int(r))
}
