package exchange

import (
	"fmt"
	"strings"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"
)

// Codec is how shuffle blocks are compressed. The zero value is LZ4, the
// default of Spark's spark.io.compression.codec.
type Codec uint8

const (
	// LZ4 compresses blocks with the LZ4 block format (pierrec/lz4).
	LZ4 Codec = iota
	// Snappy compresses blocks with Snappy's block format (golang/snappy).
	Snappy
	// NoCompression stores blocks as they are (spark.shuffle.compress=false).
	NoCompression
)

// ParseCodec accepts the spark.io.compression.codec names "lz4" and
// "snappy", and "none" (or "uncompressed") for no compression.
func ParseCodec(name string) (Codec, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "lz4", "":
		return LZ4, nil
	case "snappy":
		return Snappy, nil
	case "none", "uncompressed":
		return NoCompression, nil
	}
	return 0, fmt.Errorf("%w: compression codec %q (want lz4, snappy or none)", ErrNotSupported, name)
}

func (c Codec) String() string {
	switch c {
	case LZ4:
		return "lz4"
	case Snappy:
		return "snappy"
	case NoCompression:
		return "none"
	}
	return fmt.Sprintf("codec(%d)", uint8(c))
}

// On-disk codec ids of a block; a block records the codec actually used
// (an incompressible LZ4 block is stored uncompressed).
const (
	wireNone   = 0
	wireLZ4    = 1
	wireSnappy = 2
)

// compressor compresses block payloads, reusing its scratch space. Not safe
// for concurrent use.
type compressor struct {
	codec Codec
	lz    lz4.Compressor
	buf   []byte
}

// compress returns the stored form of raw and its wire codec id. The result
// aliases raw or the compressor's scratch and is valid until the next call.
func (c *compressor) compress(raw []byte) ([]byte, byte, error) {
	switch c.codec {
	case LZ4:
		c.buf = grow(c.buf, lz4.CompressBlockBound(len(raw)))
		n, err := c.lz.CompressBlock(raw, c.buf)
		if err != nil {
			return nil, 0, fmt.Errorf("exchange: lz4 compress: %w", err)
		}
		if n == 0 || n >= len(raw) { // incompressible
			return raw, wireNone, nil
		}
		return c.buf[:n], wireLZ4, nil
	case Snappy:
		c.buf = grow(c.buf, snappy.MaxEncodedLen(len(raw)))
		return snappy.Encode(c.buf, raw), wireSnappy, nil
	case NoCompression:
		return raw, wireNone, nil
	}
	return nil, 0, fmt.Errorf("%w: codec %s", ErrNotSupported, c.codec)
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// maxExpansion bounds the uncompressed/stored size ratio a block may claim,
// so a damaged length cannot make the reader allocate gigabytes: LZ4's
// format cannot exceed 255:1 and Snappy's stays below that.
const maxExpansion = 256

// decompress expands a stored payload of wire codec id into dst (whose
// length is the expected size) and reports a reason string on failure.
func decompress(id byte, stored, dst []byte) error {
	switch id {
	case wireNone:
		if len(stored) != len(dst) {
			return fmt.Errorf("uncompressed block of %d bytes claims %d", len(stored), len(dst))
		}
		copy(dst, stored)
		return nil
	case wireLZ4:
		n, err := lz4.UncompressBlock(stored, dst)
		if err != nil {
			return fmt.Errorf("lz4: %w", err)
		}
		if n != len(dst) {
			return fmt.Errorf("lz4 block expands to %d bytes, header says %d", n, len(dst))
		}
		return nil
	case wireSnappy:
		n, err := snappy.DecodedLen(stored)
		if err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		if n != len(dst) {
			return fmt.Errorf("snappy block expands to %d bytes, header says %d", n, len(dst))
		}
		if _, err := snappy.Decode(dst, stored); err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		return nil
	}
	return fmt.Errorf("unknown codec id %d", id)
}
