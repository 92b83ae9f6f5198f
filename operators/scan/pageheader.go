package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Parquet page types (PageHeader.type).
const (
	pageTypeData       = 0
	pageTypeIndex      = 1
	pageTypeDictionary = 2
	pageTypeDataV2     = 3
)

// pageHeader is what the scan needs of a Parquet page header: enough to cut
// a column chunk into pages and to rewrite a header for the page's
// uncompressed payload (see inflate.go). Headers are Thrift structs in the
// compact protocol; the scan walks them itself because arrow-go keeps its
// Thrift types internal.
type pageHeader struct {
	typ                      int32
	uncompressed, compressed int32
	numValues                int32 // of a DATA_PAGE; 0 for other pages
	// sizeAt is the byte span, within the header, of the varint holding
	// compressed_page_size (field 3).
	sizeAt [2]int
	len    int // bytes the header takes
}

var errPageHeader = errors.New("bad page header")

// maxThriftDepth bounds the nesting of structs and containers a header
// may have (real headers nest 3 deep), so a corrupted one cannot exhaust
// the stack.
const maxThriftDepth = 16

// compact reads the Thrift compact protocol from b; the first error sticks
// and every later read returns zero.
type compact struct {
	b   []byte
	pos int
	err error
}

func (c *compact) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: byte %d: %s", errPageHeader, c.pos, fmt.Sprintf(format, args...))
	}
}

func (c *compact) byte() byte {
	if c.err != nil {
		return 0
	}
	if c.pos >= len(c.b) {
		c.fail("truncated")
		return 0
	}
	v := c.b[c.pos]
	c.pos++
	return v
}

func (c *compact) uvarint() uint64 {
	if c.err != nil {
		return 0
	}
	v, n := binary.Uvarint(c.b[c.pos:])
	if n <= 0 {
		c.fail("bad varint")
		return 0
	}
	c.pos += n
	return v
}

// int32 reads a zigzag varint that must fit an i32.
func (c *compact) int32() int32 {
	u := c.uvarint()
	v := int64(u>>1) ^ -int64(u&1)
	if v != int64(int32(v)) {
		c.fail("i32 out of range")
		return 0
	}
	return int32(v)
}

func (c *compact) skipBytes(n uint64) {
	if c.err != nil {
		return
	}
	if n > uint64(len(c.b)-c.pos) {
		c.fail("truncated")
		return
	}
	c.pos += int(n)
}

// field reads a field header; stop is true at the struct's end.
func (c *compact) field(last int16) (id int16, typ byte, stop bool) {
	h := c.byte()
	if h == 0 || c.err != nil {
		return 0, 0, true
	}
	typ = h & 0x0f
	if d := h >> 4; d != 0 {
		return last + int16(d), typ, false
	}
	v := c.int32()
	if v != int32(int16(v)) {
		c.fail("field id out of range")
	}
	return int16(v), typ, false
}

// skip skips a value of compact type typ.
func (c *compact) skip(typ byte, depth int) {
	if depth > maxThriftDepth {
		c.fail("nested too deep")
		return
	}
	switch typ {
	case 1, 2: // bool: the value is the type
	case 3: // byte
		c.skipBytes(1)
	case 4, 5, 6: // i16, i32, i64
		c.uvarint()
	case 7: // double
		c.skipBytes(8)
	case 8: // binary
		c.skipBytes(c.uvarint())
	case 9, 10: // list, set
		h := c.byte()
		n, et := uint64(h>>4), h&0x0f
		if n == 15 {
			n = c.uvarint()
		}
		c.skipElems(n, et, depth)
	case 11: // map
		n := c.uvarint()
		if n == 0 {
			return
		}
		kv := c.byte()
		for i := uint64(0); i < n && c.err == nil; i++ {
			c.skipElem(kv>>4, depth)
			c.skipElem(kv&0x0f, depth)
		}
	case 12: // struct
		var last int16
		for c.err == nil {
			id, t, stop := c.field(last)
			if stop {
				return
			}
			c.skip(t, depth+1)
			last = id
		}
	default:
		c.fail("unknown type %d", typ)
	}
}

func (c *compact) skipElems(n uint64, et byte, depth int) {
	if n > uint64(len(c.b)-c.pos) { // every element takes at least a byte
		c.fail("container of %d elements", n)
		return
	}
	for i := uint64(0); i < n && c.err == nil; i++ {
		c.skipElem(et, depth)
	}
}

// skipElem skips a container element: unlike a field, a bool element
// takes a byte.
func (c *compact) skipElem(typ byte, depth int) {
	if typ == 1 || typ == 2 {
		c.skipBytes(1)
		return
	}
	c.skip(typ, depth+1)
}

// parsePageHeader reads the page header at the start of b.
func parsePageHeader(b []byte) (pageHeader, error) {
	c := &compact{b: b}
	var h pageHeader
	var seen [4]bool
	var last int16
	for c.err == nil {
		id, typ, stop := c.field(last)
		if stop {
			break
		}
		last = id
		switch {
		case id >= 1 && id <= 3 && typ == 5:
			start := c.pos
			v := c.int32()
			switch id {
			case 1:
				h.typ = v
			case 2:
				h.uncompressed = v
			case 3:
				h.compressed, h.sizeAt = v, [2]int{start, c.pos}
			}
			seen[id] = true
		case id == 5 && typ == 12: // data_page_header: num_values is field 1
			var dl int16
			for c.err == nil {
				did, dt, dstop := c.field(dl)
				if dstop {
					break
				}
				if did == 1 && dt == 5 {
					h.numValues = c.int32()
				} else {
					c.skip(dt, 1)
				}
				dl = did
			}
		default:
			c.skip(typ, 0)
		}
	}
	if c.err != nil {
		return h, c.err
	}
	if !seen[1] || !seen[2] || !seen[3] {
		return h, fmt.Errorf("%w: type or sizes missing", errPageHeader)
	}
	if h.uncompressed < 0 || h.compressed < 0 || h.numValues < 0 {
		return h, fmt.Errorf("%w: negative size or count", errPageHeader)
	}
	h.len = c.pos
	return h, nil
}

// withCompressedSize returns a copy of the header hdr (parsed as h) whose
// compressed_page_size is n; the other fields keep their bytes.
func (h *pageHeader) withCompressedSize(hdr []byte, n int32) []byte {
	out := make([]byte, 0, len(hdr)+binary.MaxVarintLen32)
	out = append(out, hdr[:h.sizeAt[0]]...)
	out = binary.AppendUvarint(out, uint64(uint32(n<<1)^uint32(n>>31)))
	return append(out, hdr[h.sizeAt[1]:]...)
}
