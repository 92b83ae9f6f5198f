package csnappy

// The go command does not notice edits to codec_snappy.h, which lives
// outside this directory: after changing the decoder, touch this file (as
// the 2026-11-29 session-5 decoder change did) or build with -a, or the
// build cache keeps the old one.

/*
#cgo CFLAGS: -I${SRCDIR}/../../device/soft -O3
#include "codec_snappy.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// ErrCorrupt is returned (wrapped) for a malformed Snappy block.
var ErrCorrupt = errors.New("csnappy: corrupt input")

// ErrTooLarge is returned when a block announces more bytes than this
// platform can hold in a slice.
var ErrTooLarge = errors.New("csnappy: decoded block too large")

// DecodedLen returns the decoded length announced by the block's preamble.
func DecodedLen(src []byte) (int, error) {
	n := int64(C.hd_snappy_decoded_len(ptr(src), C.int64_t(len(src))))
	if n < 0 {
		return 0, fmt.Errorf("%w (%s)", ErrCorrupt, C.GoString(C.hd_codec_strerror(C.int64_t(n))))
	}
	if uint64(n) > uint64(maxInt) {
		return 0, ErrTooLarge
	}
	return int(n), nil
}

const maxInt = int(^uint(0) >> 1)

// maxExpansion bounds what a block of n bytes can decode to: no element
// yields more than 64 bytes for 3 (a copy with a 2-byte offset), so a
// corrupt preamble announcing more is refused before anything is
// allocated for it.
func maxExpansion(n int) int {
	return n/3*64 + 64
}

// Decode decodes the Snappy block src. The result is dst[:n] when dst has
// the capacity for the decoded length n, else a new slice the caller owns;
// dst and src must not overlap. On error dst's contents are unspecified.
func Decode(dst, src []byte) ([]byte, error) {
	n, err := DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if n > maxExpansion(len(src)) { // before allocating what it announces
		return nil, fmt.Errorf("%w: a block of %d bytes cannot decode to %d", ErrCorrupt, len(src), n)
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	r := int64(C.hd_snappy_decompress(ptr(src), C.int64_t(len(src)), ptr(dst), C.int64_t(n)))
	if r < 0 {
		return nil, fmt.Errorf("%w (%s)", ErrCorrupt, C.GoString(C.hd_codec_strerror(C.int64_t(r))))
	}
	if r != int64(n) { // the decoder guarantees r == n; keep it honest
		return nil, fmt.Errorf("%w: decoded %d bytes, the preamble says %d", ErrCorrupt, r, n)
	}
	return dst, nil
}

// ptr returns a C view of b's backing array (nil for an empty slice); Go
// keeps owning the memory, C uses it only during the call.
func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b)))
}

// fullCodec is what arrow-go's own codecs implement.
type fullCodec interface {
	compress.Codec
	compress.StreamingCodec
}

// Codec is a compress.Codec whose block decoding is Decode; the rest is
// the wrapped codec's.
type Codec struct {
	fullCodec
}

var (
	_ compress.ErrorCodec     = Codec{}
	_ compress.StreamingCodec = Codec{}
)

// NewCodec wraps base (arrow-go's Snappy codec), which must also be a
// compress.StreamingCodec, as arrow-go's codecs are.
func NewCodec(base compress.Codec) (Codec, error) {
	f, ok := base.(fullCodec)
	if !ok {
		return Codec{}, fmt.Errorf("csnappy: codec %T has no streaming interface", base)
	}
	if c, ok := base.(Codec); ok {
		return c, nil
	}
	return Codec{f}, nil
}

// Decode implements compress.Codec; it panics on a corrupt block, as the
// interface's contract has it (arrow-go calls DecodeWithError).
func (c Codec) Decode(dst, src []byte) []byte {
	out, err := Decode(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// DecodeWithError implements compress.ErrorCodec.
func (c Codec) DecodeWithError(dst, src []byte) ([]byte, error) {
	return Decode(dst, src)
}

// Register installs Codec around the currently registered Snappy codec in
// arrow-go's registry and returns a function restoring the previous one.
// Call it from an init, before any file is read: the registry is not safe
// against concurrent change.
func Register() (restore func(), err error) {
	base, err := compress.GetCodec(compress.Codecs.Snappy)
	if err != nil {
		return nil, err
	}
	c, err := NewCodec(base)
	if err != nil {
		return nil, err
	}
	compress.RegisterCodec(compress.Codecs.Snappy, c)
	return func() { compress.RegisterCodec(compress.Codecs.Snappy, base) }, nil
}
