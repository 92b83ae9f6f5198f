package codectest

import (
	"fmt"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"
)

// codec bundles one format's C implementation (through this package) and
// its reference Go library, so every test runs the same way for both.
type codec struct {
	name        string
	bound       func(n int) int
	compress    func(src []byte) ([]byte, error)
	decompress  func(src []byte, n int) ([]byte, error)
	cCompress   cfunc // raw C entry points, for callExact
	cDecompress cfunc
	goCompress  func(src []byte) ([]byte, error)
	// goDecompress decodes with the Go library into an n-byte buffer.
	goDecompress func(src []byte, n int) ([]byte, error)
}

var lz4Codec = codec{
	name:        "lz4",
	bound:       LZ4Bound,
	compress:    LZ4Compress,
	decompress:  LZ4Decompress,
	cCompress:   lz4Compress,
	cDecompress: lz4Decompress,
	goCompress: func(src []byte) ([]byte, error) {
		dst := make([]byte, lz4.CompressBlockBound(len(src)))
		n, err := lz4.CompressBlock(src, dst, nil)
		if err != nil {
			return nil, err
		}
		if n == 0 && len(src) > 0 {
			return nil, fmt.Errorf("pierrec/lz4 reported incompressible despite a bound-sized buffer")
		}
		return dst[:n], nil
	},
	goDecompress: func(src []byte, n int) ([]byte, error) {
		dst := make([]byte, n)
		m, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return nil, err
		}
		return dst[:m], nil
	},
}

var snappyCodec = codec{
	name:        "snappy",
	bound:       SnappyBound,
	compress:    SnappyCompress,
	decompress:  SnappyDecompress,
	cCompress:   snappyCompress,
	cDecompress: snappyDecompress,
	goCompress:  func(src []byte) ([]byte, error) { return snappy.Encode(nil, src), nil },
	goDecompress: func(src []byte, n int) ([]byte, error) {
		dn, err := snappy.DecodedLen(src)
		if err != nil {
			return nil, err
		}
		if dn > n {
			return nil, fmt.Errorf("snappy: decoded length %d exceeds %d", dn, n)
		}
		return snappy.Decode(make([]byte, n), src)
	},
}

var codecs = []codec{lz4Codec, snappyCodec}
