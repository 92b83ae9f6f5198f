package codectest

/*
#include "codec_lz4.h"
*/
import "C"

var (
	lz4Compress cfunc = func(s *C.uint8_t, n C.int64_t, d *C.uint8_t, c C.int64_t) C.int64_t {
		return C.hd_lz4_compress(s, n, d, c)
	}
	lz4Decompress cfunc = func(s *C.uint8_t, n C.int64_t, d *C.uint8_t, c C.int64_t) C.int64_t {
		return C.hd_lz4_decompress(s, n, d, c)
	}
)

// LZ4Bound returns the largest LZ4 block n input bytes can compress to
// (hd_lz4_bound), or -1 if n is negative or above the 0x7E000000 limit.
func LZ4Bound(n int) int {
	r := C.hd_lz4_bound(C.int64_t(n))
	if r < 0 {
		return -1
	}
	return int(r)
}

// LZ4Compress compresses src into a new raw LZ4 block (the format of
// pierrec/lz4 CompressBlock). The returned slice is owned by the caller.
func LZ4Compress(src []byte) ([]byte, error) {
	bound := LZ4Bound(len(src))
	if bound < 0 {
		return nil, &CodecError{Codec: "lz4", Op: "compress", Code: C.HD_CODEC_ETOOBIG}
	}
	dst := make([]byte, bound)
	n, err := LZ4CompressInto(dst, src)
	if err != nil {
		return nil, err
	}
	return dst[:n], nil
}

// LZ4CompressInto compresses src into dst (caller-owned; use LZ4Bound for
// a size that always suffices) and returns the number of bytes written.
func LZ4CompressInto(dst, src []byte) (int, error) {
	return result("lz4", "compress", call(lz4Compress, src, dst))
}

// LZ4Decompress decodes the LZ4 block src, whose decoded size must be at
// most n, into a new caller-owned slice of the decoded length.
func LZ4Decompress(src []byte, n int) ([]byte, error) {
	if n < 0 {
		return nil, &CodecError{Codec: "lz4", Op: "decompress", Code: C.HD_CODEC_EINVAL}
	}
	dst := make([]byte, n)
	m, err := LZ4DecompressInto(dst, src)
	if err != nil {
		return nil, err
	}
	return dst[:m], nil
}

// LZ4DecompressInto decodes the LZ4 block src into dst and returns the
// decoded length; bytes of dst past it may be overwritten.
func LZ4DecompressInto(dst, src []byte) (int, error) {
	return result("lz4", "decompress", call(lz4Decompress, src, dst))
}
