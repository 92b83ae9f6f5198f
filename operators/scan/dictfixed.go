package scan

import (
	"encoding/binary"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Dictionary-encoded fixed-width pages decoded by the scan itself.
//
// Every TPC-H column of a date, an integer or a decimal stored as INT32 or
// INT64 is, in a file written by a Parquet writer's defaults, a chunk of
// RLE_DICTIONARY data pages. pqarrow decodes them through a dictionary
// converter that grows its copy of the dictionary piece by piece, unpacks
// the indices into a scratch and gathers the values batch by batch (about a
// third of the CPU of TPC-H Q6's scan). The scan instead gives such a chunk
// — flat (required or optional), of a row group read whole, wholly
// dictionary encoded by the footer's encoding stats, the decision of
// dictpage.go — to dictColumn: the PLAIN dictionary page is decoded once
// into the values of the output type (the logical conversion applied per
// dictionary value: an INT32 decimal widened, a FIXED_LEN_BYTE_ARRAY decimal
// narrowed to its low 64 bits, a timestamp converted to microseconds), and
// each data page's indices are unpacked a few hundred at a time into a
// small scratch and gathered straight into the dense output buffer, in the
// decode allocator's memory. Optional columns are decoded run by run of
// their definition levels: a run of valid values is a block of set validity
// bits and a gather, a run of nulls a block of zeros; only bit-packed
// levels go value by value. Null slots hold zero. The output is
// bit-identical to what the scan produced through pqarrow and convert.
//
// Bad input — an index outside the dictionary, a dictionary page shorter
// than its values, and the errors of dictpage.go's page loop — is an error
// wrapping ErrCorrupt naming the column.

// ownFixedDicts switches the scan's own decoding of dictionary-encoded
// fixed-width pages on (tests and A/B compare it with pqarrow's).
var ownFixedDicts = true

// ownFixedPlain lets dictColumn take fixed-width chunks whose writer fell
// back from dictionary to PLAIN pages part way (a dictionary page, then
// dictionary-encoded pages, then plain ones: l_extendedprice of TPC-H's
// lineitem, past the writer's dictionary page limit); off, such chunks
// stay pqarrow's (tests and A/B).
var ownFixedPlain = true

// ownFixedChunks counts the fixed-width column chunks dictColumn has
// decoded, process wide (tests check the path is taken).
var ownFixedChunks atomic.Int64

// fixedDict is how a fixed-width column's dictionary values become the
// output's: the Parquet physical type, the bytes of a FIXED_LEN_BYTE_ARRAY
// value, the output's bytes per value, and how a value (as int64 bits) is
// converted.
type fixedDict struct {
	phys  parquet.Type
	flba  int // FIXED_LEN_BYTE_ARRAY length
	width int // output bytes per value: 1, 2, 4 or 8
	conv  func(int64) int64

	n int // dictionary values; the slices below are padded with zeros
	// to a power of two (at most 1<<16) so that indices of up to that
	// many bits never index past them (gatherPacked)
	d8  []uint8
	d16 []uint16
	d32 []uint32
	d64 []uint64
	tmp [256]int32 // unpacked indices

	copyable bool   // plain values are the output's bytes (no conversion)
	isPlain  bool   // the current data page is PLAIN encoded
	plain    []byte // its values not yet decoded
}

// fixedDictOf returns how column fc is decoded to out by dictColumn, or nil
// when it is not one of the fixed-width cases (out is the scan's output type
// for fc, which Open checked is the file's).
func fixedDictOf(fc *fileCol, out arrow.DataType) *fixedDict {
	if fc == nil || fc.descr == nil {
		return nil
	}
	id := func(v int64) int64 { return v }
	phys := fc.descr.PhysicalType()
	fd := &fixedDict{phys: phys, conv: id}
	switch phys {
	case parquet.Types.Int32:
		switch out.ID() {
		case arrow.INT8:
			fd.width = 1
		case arrow.INT16:
			fd.width = 2
		case arrow.INT32, arrow.DATE32:
			fd.width, fd.copyable = 4, true
		case arrow.DECIMAL64: // widened
			fd.width = 8
		default:
			return nil
		}
	case parquet.Types.Int64:
		switch out.ID() {
		case arrow.INT64, arrow.DECIMAL64:
			fd.width, fd.copyable = 8, true
		case arrow.TIMESTAMP:
			fd.width, fd.conv = 8, fc.toMicros
			if ts, ok := fc.read.(*arrow.TimestampType); ok && ts.Unit == arrow.Microsecond {
				fd.copyable = true // toMicros is the identity
			}
		default:
			return nil
		}
	case parquet.Types.Float:
		if out.ID() != arrow.FLOAT32 {
			return nil
		}
		fd.width, fd.copyable = 4, true
	case parquet.Types.Double:
		if out.ID() != arrow.FLOAT64 {
			return nil
		}
		fd.width, fd.copyable = 8, true
	case parquet.Types.FixedLenByteArray:
		l := fc.descr.TypeLength()
		if out.ID() != arrow.DECIMAL64 || l < 1 || l > 16 {
			return nil
		}
		fd.width, fd.flba = 8, l
	default:
		return nil
	}
	return fd
}

// ownFixedLeaf reports whether the chunk of fc in row group rg of f can be
// decoded by dictColumn as the fixed-width output type out: flat, wholly
// dictionary encoded by the footer's encoding stats.
func ownFixedLeaf(f *scanFile, rg int, fc *fileCol, out arrow.DataType) bool {
	if fc == nil || fc.leaf < 0 || fixedDictOf(fc, out) == nil {
		return false
	}
	d := f.md.Schema.Column(fc.leaf)
	if d.MaxRepetitionLevel() != 0 || d.MaxDefinitionLevel() > 1 {
		return false
	}
	cc, err := f.md.RowGroup(rg).ColumnChunk(fc.leaf)
	return err == nil && cc.HasDictionaryPage() && (allDictEncoded(cc) || ownFixedPlain && dictThenPlain(cc))
}

// dictThenPlain reports whether the chunk's data pages, by its encoding
// stats, are all dictionary or PLAIN encoded (a writer's fallback).
func dictThenPlain(cc *metadata.ColumnChunkMetaData) bool {
	es := cc.EncodingStats()
	data := 0
	for _, e := range es {
		switch e.PageType {
		case file.PageTypeDataPage, file.PageTypeDataPageV2:
			data++
			if e.Encoding != parquet.Encodings.RLEDict && e.Encoding != parquet.Encodings.PlainDict && e.Encoding != parquet.Encodings.Plain {
				return false
			}
		}
	}
	return data > 0
}

// setFixedDict decodes a PLAIN dictionary page of n fixed-width values
// into the output's values.
func (c *dictColumn) setFixedDict(data []byte, n int) error {
	fd := c.fx
	size := fd.size()
	if n < 0 || n > len(data)/size {
		return c.errorf("dictionary of %d values of %d bytes in %d bytes", n, size, len(data))
	}
	raw := func(i int) int64 { return fd.raw(data[i*size : i*size+size]) }
	padded := n
	if n > 1 && n <= 1<<16 {
		padded = 1 << bits.Len(uint(n-1))
	}
	fd.n = n
	if fd.copyable { // little-endian values of the output's width
		var d unsafe.Pointer
		switch fd.width {
		case 4:
			fd.d32 = dictOf[uint32](c, n, padded)
			d = unsafe.Pointer(unsafe.SliceData(fd.d32))
		default:
			fd.d64 = dictOf[uint64](c, n, padded)
			d = unsafe.Pointer(unsafe.SliceData(fd.d64))
		}
		copy(unsafe.Slice((*byte)(d), n*size), data)
		c.haveDict = true
		return nil
	}
	switch fd.width {
	case 1:
		fd.d8 = dictOf[uint8](c, n, padded)
		for i := range n {
			fd.d8[i] = uint8(raw(i))
		}
	case 2:
		fd.d16 = dictOf[uint16](c, n, padded)
		for i := range n {
			fd.d16[i] = uint16(raw(i))
		}
	case 4:
		fd.d32 = dictOf[uint32](c, n, padded)
		for i := range n {
			fd.d32[i] = uint32(raw(i))
		}
	default:
		fd.d64 = dictOf[uint64](c, n, padded)
		for i := range n {
			fd.d64[i] = uint64(fd.conv(raw(i)))
		}
	}
	c.haveDict = true
	return nil
}

// dictOf returns a dictionary slice of padded entries for n values from
// the scan's scratch pool (scratchOf): the entries past n are zeroed, as
// make would leave them; those up to n are the caller's to write.
func dictOf[T uint8 | uint16 | uint32 | uint64](c *dictColumn, n, padded int) []T {
	s := scratchOf[T](c, padded)
	clear(s[n:])
	return s
}

// size is the bytes of a PLAIN value.
func (fd *fixedDict) size() int {
	switch fd.phys {
	case parquet.Types.Int32, parquet.Types.Float:
		return 4
	case parquet.Types.Int64, parquet.Types.Double:
		return 8
	}
	return fd.flba
}

// raw reads the PLAIN value b (size bytes) as an int64: INT32 sign-extended
// (INT32 decimals widen so), FLOAT's bits, a FIXED_LEN_BYTE_ARRAY decimal's
// low 64 bits.
func (fd *fixedDict) raw(b []byte) int64 {
	switch fd.phys {
	case parquet.Types.Int32:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case parquet.Types.Float:
		return int64(binary.LittleEndian.Uint32(b))
	case parquet.Types.Int64, parquet.Types.Double:
		return int64(binary.LittleEndian.Uint64(b))
	}
	// Big-endian two's complement: the low 64 bits, sign-extended from a
	// shorter value.
	if len(b) > 8 {
		b = b[len(b)-8:]
	}
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	sh := uint(64 - 8*len(b))
	return int64(v<<sh) >> sh
}

// plainVals decodes len(out) values of the current PLAIN page into out.
func plainVals[T fixedVal](c *dictColumn, out []T) error {
	fd := c.fx
	size := fd.size()
	need := len(out) * size
	if need > len(fd.plain) {
		return c.errorf("plain page of %d value bytes short of %d values", len(fd.plain), len(out))
	}
	src := fd.plain[:need]
	fd.plain = fd.plain[need:]
	if len(out) == 0 {
		return nil
	}
	if fd.copyable { // little-endian values of the output's width
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), need), src)
		return nil
	}
	for i := range out {
		v := fd.raw(src[i*size : i*size+size])
		if fd.width == 8 {
			v = fd.conv(v)
		}
		out[i] = T(v)
	}
	return nil
}

// values writes the chunk's next len(out) non-null values: from the
// dictionary, or the plain page.
func values[T fixedVal](c *dictColumn, dict []T, out []T) error {
	if c.fx.isPlain {
		return plainVals(c, out)
	}
	return gatherIdx(c, dict, out)
}

// nextFixed decodes the chunk's next n rows into a dense fixed-width array
// from mem, which the caller releases.
func (c *dictColumn) nextFixed(mem memory.Allocator, n int) (arrow.Array, error) {
	w := c.fx.width
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(n * w)
	var validity *memory.Buffer
	var valid []byte
	if c.maxDef > 0 {
		validity, valid = newValidity(mem, n)
		defer validity.Release()
	}
	var (
		nulls int
		err   error
	)
	b := vals.Bytes()
	switch w {
	case 1:
		nulls, err = fixedBatch(c, &c.fx.d8, castVals[uint8](b, n), valid)
	case 2:
		nulls, err = fixedBatch(c, &c.fx.d16, castVals[uint16](b, n), valid)
	case 4:
		nulls, err = fixedBatch(c, &c.fx.d32, castVals[uint32](b, n), valid)
	default:
		nulls, err = fixedBatch(c, &c.fx.d64, castVals[uint64](b, n), valid)
	}
	if err != nil {
		return nil, err
	}
	if nulls == 0 {
		validity = nil // the deferred Release of the buffer still runs
	}
	data := array.NewData(c.typ, n, []*memory.Buffer{validity, vals}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// castVals views the first n values of type T in b (allocator memory,
// aligned for any T).
func castVals[T fixedVal](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	var z T
	if len(b) < n*int(unsafe.Sizeof(z)) {
		panic("scan: value buffer too short")
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

type fixedVal interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// fixedBatch fills out (one value per row) and the validity bits valid
// (nil for a required column; cleared by the caller) with the chunk's next
// len(out) rows, and returns how many are null. *dict is the decoded
// dictionary (set when the dictionary page is met).
func fixedBatch[T fixedVal](c *dictColumn, dict *[]T, out []T, valid []byte) (int, error) {
	nulls := 0
	err := c.eachRun(len(out), func(got, m int) error {
		o := out[got : got+m]
		if c.maxDef == 0 {
			return values(c, *dict, o)
		}
		for k := 0; k < m; {
			rle, cnt, val, err := c.defs.run()
			if err != nil {
				return c.errorf("definition levels: %v", err)
			}
			if rle {
				r := min(cnt, m-k)
				switch val {
				case 1:
					if err := values(c, *dict, o[k:k+r]); err != nil {
						return err
					}
					bitutil.SetBitsTo(valid, int64(got+k), int64(r), true)
				case 0:
					clear(o[k : k+r])
					nulls += r
				default:
					return c.errorf("definition level %d above the maximum 1", val)
				}
				c.defs.rle -= r
				k += r
				continue
			}
			// Bit-packed levels: value by value.
			r := min(cnt, m-k, len(c.fx.tmp))
			lv := c.fx.tmp[:r]
			c.defs.unpack(lv)
			c.defs.bp -= r
			v := 0
			for i, l := range lv {
				switch l {
				case 1:
					bitutil.SetBit(valid, got+k+i)
					v++
				case 0:
				default:
					return c.errorf("definition level %d above the maximum 1", l)
				}
			}
			nulls += r - v
			// The levels are in tmp, which gatherIdx reuses: spread
			// using the validity bits instead.
			seg := o[k : k+r]
			if err := values(c, *dict, seg[:v]); err != nil {
				return err
			}
			var zero T
			for i, j := r-1, v-1; i > j; i-- {
				if bitutil.BitIsSet(valid, got+k+i) {
					seg[i] = seg[j]
					j--
				} else {
					seg[i] = zero
				}
			}
			k += r
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return nulls, nil
}

// gatherIdx decodes len(out) indices from c.idx and writes the dictionary
// values they select to out (dict: the padded dictionary of c.fx.n values).
func gatherIdx[T fixedVal](c *dictColumn, dict []T, out []T) error {
	h := &c.idx
	n := c.fx.n
	for i := 0; i < len(out); {
		switch {
		case h.rle > 0:
			m := min(h.rle, len(out)-i)
			if uint32(h.val) >= uint32(n) {
				return c.indexErr(h.val, n)
			}
			v := dict[h.val]
			o := out[i : i+m]
			for j := range o {
				o[j] = v
			}
			h.rle -= m
			i += m
		case h.bp > 0:
			m := min(h.bp, len(out)-i)
			if g := gatherGroups(h, m, len(dict)); g > 0 {
				// Whole groups of eight at a byte boundary, fused.
				mx := gatherPacked(h, dict, out[i:i+8*g])
				if mx >= uint64(n) {
					return c.indexErr(int32(mx), n)
				}
				h.bp -= 8 * g
				i += 8 * g
				continue
			}
			m = min(m, len(c.fx.tmp))
			ix := c.fx.tmp[:m]
			h.unpack(ix)
			h.bp -= m
			o := out[i : i+m]
			o = o[:len(ix)]
			for j, k := range ix {
				if uint32(k) >= uint32(n) {
					return c.indexErr(k, n)
				}
				o[j] = dict[k]
			}
			i += m
		default:
			if err := h.header(); err != nil {
				return c.errorf("dictionary indices: %v", err)
			}
		}
	}
	return nil
}

// gatherGroups returns how many whole groups of eight of the next m values
// of h's bit-packed run gatherPacked can decode against a dictionary padded
// to pad values: h is at a byte boundary, the width is at most 16 bits and
// every index it can hold is below pad, and each group's loads stay in the
// data.
func gatherGroups(h *hybrid, m, pad int) int {
	w := h.width
	if h.bit&7 != 0 || w == 0 || w > 16 || 1<<w > pad || m < 8 {
		return 0
	}
	room := len(h.data) - h.bit>>3 - w - 8 // bytes past a group's start its loads may need
	if room < 0 {
		return 0
	}
	return min(m/8, room/w+1)
}

// gatherPacked decodes len(out) (a multiple of 8) bit-packed indices of h
// (see gatherGroups) and writes the values of dict they select to out,
// returning the largest index. A group of eight indices of w <= 16 bits is
// two 64-bit loads, of four indices each (4w bits, at most 64 with the
// second load's shift of 0 or 4 bits).
func gatherPacked[T fixedVal](h *hybrid, dict []T, out []T) uint64 {
	w, mask, data := h.width, h.mask, h.data
	p := h.bit >> 3
	sw := uint(w) & 63
	h4, s4 := 4*w>>3, uint(4*w&7)
	var mx uint64
	for g := 0; g+8 <= len(out); g += 8 {
		x := binary.LittleEndian.Uint64(data[p:])
		y := binary.LittleEndian.Uint64(data[p+h4:]) >> s4
		p += w
		o := out[g : g+8 : g+8]
		k := x & mask
		mx = max(mx, k)
		o[0] = dict[k]
		x >>= sw
		k = x & mask
		mx = max(mx, k)
		o[1] = dict[k]
		x >>= sw
		k = x & mask
		mx = max(mx, k)
		o[2] = dict[k]
		x >>= sw
		k = x & mask
		mx = max(mx, k)
		o[3] = dict[k]
		k = y & mask
		mx = max(mx, k)
		o[4] = dict[k]
		y >>= sw
		k = y & mask
		mx = max(mx, k)
		o[5] = dict[k]
		y >>= sw
		k = y & mask
		mx = max(mx, k)
		o[6] = dict[k]
		y >>= sw
		k = y & mask
		mx = max(mx, k)
		o[7] = dict[k]
	}
	h.bit = p * 8
	return mx
}

func (c *dictColumn) indexErr(k int32, n int) error {
	return c.errorf("dictionary index %d out of range [0, %d)", uint32(k), n)
}

// run returns the current run of h, reading run headers until one holds
// values: whether it is an RLE run (and its value), and the values left in
// it. The caller consumes them (h.rle -= k, or unpack then h.bp -= k).
func (h *hybrid) run() (rle bool, n int, val int32, err error) {
	for h.rle == 0 && h.bp == 0 {
		if err := h.header(); err != nil {
			return false, 0, 0, err
		}
	}
	if h.rle > 0 {
		return true, h.rle, h.val, nil
	}
	return false, h.bp, 0, nil
}
