package codectest

/*
#include "codec_snappy.h"
*/
import "C"

var (
	snappyCompress cfunc = func(s *C.uint8_t, n C.int64_t, d *C.uint8_t, c C.int64_t) C.int64_t {
		return C.hd_snappy_compress(s, n, d, c)
	}
	snappyDecompress cfunc = func(s *C.uint8_t, n C.int64_t, d *C.uint8_t, c C.int64_t) C.int64_t {
		return C.hd_snappy_decompress(s, n, d, c)
	}
)

// SnappyBound returns the largest Snappy block n input bytes can compress
// to (hd_snappy_bound, equal to golang/snappy MaxEncodedLen), or -1 if n is
// negative or above 0xffffffff.
func SnappyBound(n int) int {
	r := C.hd_snappy_bound(C.int64_t(n))
	if r < 0 {
		return -1
	}
	return int(r)
}

// SnappyCompress compresses src into a new Snappy block (the format of
// golang/snappy Encode). The returned slice is owned by the caller.
func SnappyCompress(src []byte) ([]byte, error) {
	bound := SnappyBound(len(src))
	if bound < 0 {
		return nil, &CodecError{Codec: "snappy", Op: "compress", Code: C.HD_CODEC_ETOOBIG}
	}
	dst := make([]byte, bound)
	n, err := SnappyCompressInto(dst, src)
	if err != nil {
		return nil, err
	}
	return dst[:n], nil
}

// SnappyCompressInto compresses src into dst (caller-owned; use
// SnappyBound for a size that always suffices) and returns the number of
// bytes written.
func SnappyCompressInto(dst, src []byte) (int, error) {
	return result("snappy", "compress", call(snappyCompress, src, dst))
}

// SnappyDecodedLen returns the decoded length announced by src's preamble.
func SnappyDecodedLen(src []byte) (int, error) {
	return result("snappy", "decoded length", int64(C.hd_snappy_decoded_len(ptr(src), C.int64_t(len(src)))))
}

// SnappyDecompress decodes the Snappy block src, whose decoded size must be
// at most n, into a new caller-owned slice of the decoded length.
func SnappyDecompress(src []byte, n int) ([]byte, error) {
	if n < 0 {
		return nil, &CodecError{Codec: "snappy", Op: "decompress", Code: C.HD_CODEC_EINVAL}
	}
	dst := make([]byte, n)
	m, err := SnappyDecompressInto(dst, src)
	if err != nil {
		return nil, err
	}
	return dst[:m], nil
}

// SnappyDecompressInto decodes the Snappy block src into dst and returns
// the decoded length; bytes of dst past it may be overwritten.
func SnappyDecompressInto(dst, src []byte) (int, error) {
	return result("snappy", "decompress", call(snappyDecompress, src, dst))
}
