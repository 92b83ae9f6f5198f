package scan

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// Dictionary-encoded string pages decoded by the scan itself.
//
// Read as a dictionary (dictread.go), a string column still costs pqarrow's
// index decoding: its RLE decoder reads every run header a byte at a time
// through a bit reader, widens the indices to uint64, then to int, then
// copies them into a freshly allocated []int32 and from there into its
// index builder — about 6 ns a value on TPC-H Q1's l_returnflag and
// l_linestatus, where the values themselves are one byte. For a flat
// BYTE_ARRAY column whose every chunk in the file is wholly dictionary
// encoded (the footer's decision of dictread.go), in a row group read whole,
// the scan instead takes the chunk's pages from arrow-go's page reader
// (which reads, decrypts and decompresses them, v1 and v2, with every
// codec the scan supports), decodes the dictionary page once, and decodes
// each data page's definition levels and RLE/bit-packed indices itself,
// straight into an index scratch, which expandIndices turns into the dense
// array in the decode allocator's memory.
//
// Bad input — a data page not dictionary encoded, an index outside the
// dictionary, a level or run that overruns its page, a chunk with fewer
// values than the row group's rows — is an error wrapping ErrCorrupt
// naming the column; the worker adds the file and row group.

// ownDictPages switches the scan's own decoding of dictionary-encoded
// string pages on (tests and A/B compare it with pqarrow's).
var ownDictPages = true

// ownDictChunks counts the column chunks dictColumn has decoded, process
// wide (tests check the path is taken).
var ownDictChunks atomic.Int64

// dictColumn decodes one dictionary-encoded BYTE_ARRAY column chunk, n rows
// at a time. Not safe for concurrent use; close releases the page reader.
type dictColumn struct {
	name   string
	typ    arrow.DataType // utf8 or binary
	pr     file.PageReader
	maxDef int16 // 0 (required) or 1 (optional, flat)

	haveDict bool
	dOffs    []int32 // dictionary offsets (n+1), from 0
	dBytes   []byte  // dictionary value bytes (a copy: page buffers are reused)

	left int    // values (nulls included) of the current data page still to decode
	defs hybrid // its definition levels (maxDef 1)
	idx  hybrid // its indices

	// dictOut: next returns the indices over the chunk's dictionary
	// (dictout.go), not the dense values; dictArr is that dictionary in
	// the decode allocator's memory, made by the first batch
	dictOut bool
	dictArr arrow.Array

	fx *fixedDict // a fixed-width column's dictionary (dictfixed.go); nil for byte arrays
	ps *plainStr  // a string chunk with PLAIN pages (plainstr.go); nil otherwise

	ix    []int32 // scratch: one batch's indices, spaced (null slots unread)
	lv    []int32 // scratch: one page's share of definition levels
	valid []byte  // scratch: one batch's validity bitmap

	// held are the scan's scratch buffers (getBuf) under ix, lv, valid
	// and fx's dictionary; close puts them back for the next chunk.
	held []*[]byte
}

// scratchOf returns n Ts (unzeroed) over a buffer of the scan's scratch
// pool that c holds until close. A scan decodes one chunk per column and
// row group; allocating these per chunk made the Go heap grow and shrink
// by hundreds of MiB per query, and its pages fault in again each time.
func scratchOf[T int32 | uint8 | uint16 | uint32 | uint64](c *dictColumn, n int) []T {
	var z T
	b := getBuf(max(n, 1) * int(unsafe.Sizeof(z)))
	c.held = append(c.held, b)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(*b))), n)
}

// newDictColumn opens the page reader of leaf in row group rg of pr.
func newDictColumn(pr *file.Reader, rg, leaf int, name string, typ arrow.DataType) (*dictColumn, error) {
	descr := pr.MetaData().Schema.Column(leaf)
	rdr, err := pr.RowGroup(rg).GetColumnPageReader(leaf)
	if err != nil {
		return nil, fmt.Errorf("%w: column %s: %v", ErrCorrupt, name, err)
	}
	ownDictChunks.Add(1)
	return &dictColumn{name: name, typ: typ, pr: rdr, maxDef: descr.MaxDefinitionLevel()}, nil
}

// newFixedDictColumn opens the page reader of fc's chunk in row group rg of
// pr, to decode it as out (ownFixedLeaf said it can).
func newFixedDictColumn(pr *file.Reader, rg int, fc *fileCol, out arrow.DataType) (*dictColumn, error) {
	fx := fixedDictOf(fc, out)
	if fx == nil {
		return nil, fmt.Errorf("%w: column %s of %s is not decoded as %s", ErrSchemaMismatch, fc.name, fc.descr.PhysicalType(), out)
	}
	rdr, err := pr.RowGroup(rg).GetColumnPageReader(fc.leaf)
	if err != nil {
		return nil, fmt.Errorf("%w: column %s: %v", ErrCorrupt, fc.name, err)
	}
	ownFixedChunks.Add(1)
	return &dictColumn{name: fc.name, typ: out, pr: rdr, maxDef: pr.MetaData().Schema.Column(fc.leaf).MaxDefinitionLevel(), fx: fx}, nil
}

// ownDictLeaf reports whether the chunk of leaf of f (one of
// dictReadLeaves) in row group rg can be decoded by dictColumn: a flat
// BYTE_ARRAY column whose data pages are all dictionary encoded by the
// footer's encoding stats (a chunk that fell back to plain encoding, read
// as a dictionary only in tests, stays pqarrow's).
func ownDictLeaf(f *scanFile, rg, leaf int) bool {
	d := f.md.Schema.Column(leaf)
	if d.PhysicalType() != parquet.Types.ByteArray || d.MaxRepetitionLevel() != 0 || d.MaxDefinitionLevel() > 1 {
		return false
	}
	cc, err := f.md.RowGroup(rg).ColumnChunk(leaf)
	return err == nil && cc.HasDictionaryPage() && allDictEncoded(cc)
}

func (c *dictColumn) close() {
	if c.pr != nil {
		c.pr.Close()
		c.pr = nil
	}
	c.ix, c.lv, c.valid = nil, nil, nil
	if c.dictArr != nil {
		c.dictArr.Release()
		c.dictArr = nil
	}
	if c.fx != nil {
		c.fx.d8, c.fx.d16, c.fx.d32, c.fx.d64 = nil, nil, nil, nil
	}
	if c.ps != nil && c.ps.vals != nil {
		c.ps.vals.Release()
		c.ps.vals = nil
	}
	for _, b := range c.held {
		putBuf(b)
	}
	c.held = nil
}

// levels decodes the definition levels of the next m slots into c.lv,
// sets the bits of the valid ones in valid from bit got, and returns the
// levels and how many are valid.
func (c *dictColumn) levels(m, got int, valid []byte) ([]int32, int, error) {
	if cap(c.lv) < m {
		c.lv = scratchOf[int32](c, m)
	}
	lv := c.lv[:m]
	if err := c.defs.decode(lv); err != nil {
		return nil, 0, c.errorf("definition levels: %v", err)
	}
	v := 0
	for i, l := range lv {
		switch l {
		case 1:
			bitutil.SetBit(valid, got+i)
			v++
		case 0:
		default:
			return nil, 0, c.errorf("definition level %d above the maximum 1", l)
		}
	}
	return lv, v, nil
}

// eachRun splits the chunk's next n rows into runs that each lie in one
// data page, moving to the next page when the current one is used up, and
// calls fn with each run's first row (counted from the batch's start) and
// length; the first error stops it.
func (c *dictColumn) eachRun(n int, fn func(got, m int) error) error {
	for got := 0; got < n; {
		if c.left == 0 {
			if err := c.nextPage(); err != nil {
				return err
			}
			continue
		}
		m := min(n-got, c.left)
		if err := fn(got, m); err != nil {
			return err
		}
		c.left -= m
		got += m
	}
	return nil
}

// newValidity is a zeroed validity bitmap of n slots from mem (the caller
// releases it) and its bytes.
func newValidity(mem memory.Allocator, n int) (*memory.Buffer, []byte) {
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(b.Bytes())
	return b, b.Bytes()
}

// copyValidity returns a validity buffer from mem holding bits [voff,
// voff+n) of valid at 0 (the bits past n of its last byte clear); the
// caller releases it.
func copyValidity(mem memory.Allocator, valid []byte, voff, n int) *memory.Buffer {
	b, vb := newValidity(mem, n)
	bitutil.CopyBitmap(valid, voff, n, vb, 0)
	return b
}

func (c *dictColumn) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: column %s: %s", ErrCorrupt, c.name, fmt.Sprintf(format, args...))
}

// next decodes the chunk's next n rows into a dense array from mem, which
// the caller releases (for dictOut, a dictionary array: nextDict).
func (c *dictColumn) next(mem memory.Allocator, n int) (arrow.Array, error) {
	if c.fx != nil {
		return c.nextFixed(mem, n)
	}
	if c.ps != nil {
		return c.nextStr(mem, n)
	}
	if c.dictOut {
		return c.nextDict(mem, n) // dictout.go
	}
	if cap(c.ix) < n {
		c.ix = scratchOf[int32](c, n)
	}
	ix := c.ix[:n]
	valid, nulls, err := c.indices(ix)
	if err != nil {
		return nil, err
	}
	return expandIndices(mem, c.typ, ix, valid, 0, nulls, c.dOffs, c.dBytes)
}

// indices decodes the chunk's next len(ix) rows' dictionary indices into
// ix, a null slot's as 0, and returns their validity bits (nil for a
// required column; scratch of c, valid until the next call) and the
// number of nulls. The indices are not checked against the dictionary.
func (c *dictColumn) indices(ix []int32) (valid []byte, nulls int, err error) {
	n := len(ix)
	if c.maxDef > 0 {
		nb := int(bitutil.BytesForBits(int64(n)))
		if cap(c.valid) < nb {
			c.valid = scratchOf[uint8](c, nb)
		}
		valid = c.valid[:nb]
		clear(valid)
	}
	err = c.eachRun(n, func(got, m int) error {
		out := ix[got : got+m]
		if c.maxDef == 0 {
			if err := c.idx.decode(out); err != nil {
				return c.errorf("dictionary indices: %v", err)
			}
			return nil
		}
		lv, v, err := c.levels(m, got, valid)
		if err != nil {
			return err
		}
		nulls += m - v
		// Decode the v indices packed, then spread them to their slots
		// from the back (slot j >= packed position j), zeroing the nulls'.
		if err := c.idx.decode(out[:v]); err != nil {
			return c.errorf("dictionary indices: %v", err)
		}
		for i, j := m-1, v-1; i > j; i-- {
			if lv[i] == 1 {
				out[i] = out[j]
				j--
			} else {
				out[i] = 0
			}
		}
		return nil
	})
	return valid, nulls, err
}

// nextPage moves to the chunk's next data page, decoding a dictionary page
// met on the way.
func (c *dictColumn) nextPage() error {
	for {
		if !c.pr.Next() {
			if err := c.pr.Err(); err != nil {
				return c.errorf("%v", err)
			}
			return c.errorf("column chunk ends before the row group's rows")
		}
		var data []byte
		switch p := c.pr.Page().(type) {
		case *file.DictionaryPage:
			if c.haveDict {
				return c.errorf("a second dictionary page")
			}
			if e := parquet.Encoding(p.Encoding()); e != parquet.Encodings.Plain && e != parquet.Encodings.PlainDict {
				return c.errorf("dictionary page encoded %s", e)
			}
			var err error
			if c.fx != nil {
				err = c.setFixedDict(p.Data(), int(p.NumValues()))
			} else {
				err = c.setDict(p.Data(), int(p.NumValues()))
			}
			if err != nil {
				return err
			}
			continue
		case *file.DataPageV1:
			if err := c.dataEncoding(parquet.Encoding(p.Encoding())); err != nil {
				return err
			}
			data = p.Data()
			if c.maxDef > 0 {
				if p.DefinitionLevelEncoding() != parquet.Encodings.RLE {
					return c.errorf("definition levels encoded %s", p.DefinitionLevelEncoding())
				}
				if len(data) < 4 {
					return c.errorf("data page of %d bytes has no definition levels", len(data))
				}
				l := binary.LittleEndian.Uint32(data)
				if uint64(l) > uint64(len(data)-4) {
					return c.errorf("definition levels of %d bytes in a page of %d", l, len(data))
				}
				c.defs.reset(data[4:4+l], 1)
				data = data[4+l:]
			}
		case *file.DataPageV2:
			if err := c.dataEncoding(parquet.Encoding(p.Encoding())); err != nil {
				return err
			}
			data = p.Data()
			rl, dl := int64(p.RepetitionLevelByteLen()), int64(p.DefinitionLevelByteLen())
			if rl < 0 || dl < 0 || rl+dl > int64(len(data)) {
				return c.errorf("levels of %d+%d bytes in a page of %d", rl, dl, len(data))
			}
			if c.maxDef > 0 {
				c.defs.reset(data[rl:rl+dl], 1)
			}
			data = data[rl+dl:]
		default:
			continue // index and unknown pages carry no values
		}
		if c.ps != nil && c.ps.isPlain { // a string chunk's PLAIN page (plainstr.go)
			c.ps.data = data
		} else if !c.haveDict {
			return c.errorf("data page before the dictionary page")
		} else if c.fx != nil && c.fx.isPlain { // a fixed-width chunk's fallback (dictfixed.go)
			c.fx.plain = data
		} else if len(data) == 0 {
			c.idx.reset(nil, 0)
		} else {
			if data[0] > 32 {
				return c.errorf("dictionary index bit width %d", data[0])
			}
			c.idx.reset(data[1:], int(data[0]))
		}
		nv := c.pr.Page().NumValues()
		if nv < 0 {
			return c.errorf("data page of %d values", nv)
		}
		c.left = int(nv)
		return nil
	}
}

func (c *dictColumn) dataEncoding(e parquet.Encoding) error {
	if c.ps != nil {
		c.ps.isPlain = e == parquet.Encodings.Plain
		if c.ps.isPlain {
			return nil
		}
	}
	if c.fx != nil {
		c.fx.isPlain = e == parquet.Encodings.Plain && ownFixedPlain
		if c.fx.isPlain {
			return nil
		}
	}
	if e != parquet.Encodings.RLEDict && e != parquet.Encodings.PlainDict {
		return c.errorf("data page encoded %s, not by dictionary", e)
	}
	return nil
}

// setDict decodes a PLAIN dictionary page of n byte arrays.
func (c *dictColumn) setDict(data []byte, n int) error {
	if n < 0 || n > len(data)/4 {
		return c.errorf("dictionary of %d values in %d bytes", n, len(data))
	}
	offs := make([]int32, n+1)
	vals := make([]byte, 0, len(data)-4*n)
	pos := 0
	for i := 0; i < n; i++ {
		if len(data)-pos < 4 {
			return c.errorf("dictionary value %d truncated", i)
		}
		l := binary.LittleEndian.Uint32(data[pos:])
		pos += 4
		if uint64(l) > uint64(len(data)-pos) {
			return c.errorf("dictionary value %d of %d bytes overruns the page", i, l)
		}
		vals = append(vals, data[pos:pos+int(l)]...)
		pos += int(l)
		if len(vals) > math.MaxInt32 {
			return c.errorf("dictionary of more than 2 GiB")
		}
		offs[i+1] = int32(len(vals))
	}
	c.dOffs, c.dBytes, c.haveDict = offs, vals, true
	return nil
}

// hybrid decodes Parquet's RLE/bit-packed hybrid encoding of values of
// width bits (0–32).
type hybrid struct {
	data  []byte
	pos   int // next run header
	width int
	mask  uint64
	rle   int   // values left in the current RLE run
	val   int32 // its value
	bp    int   // values left in the current bit-packed run
	bit   int   // bit offset in data of its next value
}

func (h *hybrid) reset(data []byte, width int) {
	*h = hybrid{data: data, width: width, mask: 1<<uint(width) - 1}
}

// decode fills out with the next len(out) values.
func (h *hybrid) decode(out []int32) error {
	for i := 0; i < len(out); {
		switch {
		case h.rle > 0:
			m := min(h.rle, len(out)-i)
			v := h.val
			for j := range out[i : i+m] {
				out[i+j] = v
			}
			h.rle -= m
			i += m
		case h.bp > 0:
			m := min(h.bp, len(out)-i)
			h.unpack(out[i : i+m])
			h.bp -= m
			i += m
		default:
			if err := h.header(); err != nil {
				return err
			}
		}
	}
	return nil
}

// header reads the next run's header (and an RLE run's value).
func (h *hybrid) header() error {
	if h.pos >= len(h.data) {
		return fmt.Errorf("runs end before the page's values")
	}
	hdr, k := binary.Uvarint(h.data[h.pos:])
	if k <= 0 || hdr > math.MaxInt32 {
		return fmt.Errorf("bad run header at byte %d", h.pos)
	}
	h.pos += k
	if hdr&1 == 1 { // bit-packed: hdr>>1 groups of 8 values
		groups := int(hdr >> 1)
		nbytes := groups * h.width
		if avail := len(h.data) - h.pos; nbytes > avail {
			nbytes = avail // a last run may stop short of its groups
			groups = -1
		}
		h.bit = h.pos * 8
		h.pos += nbytes
		if h.width == 0 {
			h.bp = groups * 8
		} else if groups < 0 {
			h.bp = nbytes * 8 / h.width
		} else {
			h.bp = groups * 8
		}
		return nil
	}
	nb := (h.width + 7) / 8
	if len(h.data)-h.pos < nb {
		return fmt.Errorf("RLE run value truncated at byte %d", h.pos)
	}
	var v uint32
	for j := 0; j < nb; j++ {
		v |= uint32(h.data[h.pos+j]) << (8 * j)
	}
	h.pos += nb
	h.rle, h.val = int(hdr>>1), int32(v)
	return nil
}

// unpack reads len(out) values of the current bit-packed run (which holds
// them, within data).
func (h *hybrid) unpack(out []int32) {
	w, mask, data, bit := h.width, h.mask, h.data, h.bit
	if w == 0 {
		clear(out)
		return
	}
	for i := 0; i < len(out); {
		if p := bit >> 3; bit&7 == 0 && len(out)-i >= 8 {
			// Eight values at a byte boundary, i.e. w bytes.
			if w <= 8 && p+8 <= len(data) { // one load
				x := binary.LittleEndian.Uint64(data[p:])
				o := out[i : i+8 : i+8]
				for j := range o {
					o[j] = int32((x >> uint(j*w)) & mask)
				}
				i += 8
				bit += 8 * w
				continue
			}
			if p+w+8 <= len(data) { // a load per value
				g := data[p : p+w+8]
				o := out[i : i+8 : i+8]
				for j := range o {
					b := j * w
					o[j] = int32((binary.LittleEndian.Uint64(g[b>>3:]) >> uint(b&7)) & mask)
				}
				i += 8
				bit += 8 * w
				continue
			}
		}
		var x uint64
		if bit>>3+8 <= len(data) {
			x = binary.LittleEndian.Uint64(data[bit>>3:])
		} else { // the page's last bytes
			for j, b := range data[bit>>3:] {
				x |= uint64(b) << (8 * j)
			}
		}
		out[i] = int32((x >> uint(bit&7)) & mask)
		bit += w
		i++
	}
	h.bit = bit
}
