package scan

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// PLAIN-encoded string pages decoded by the scan itself.
//
// A string column of many distinct values (TPC-H's comments, names,
// addresses, phone numbers) is written PLAIN, or dictionary encoded until
// the writer's dictionary page limit and PLAIN after. pqarrow decodes such
// pages through its PlainByteArrayDecoder and appends each value to a
// BinaryBuilder in Go memory (about 300 ns a row of TPC-H's customer at
// one core), which convert then copies to the scan's allocator. For a flat
// BYTE_ARRAY chunk of a row group read whole whose data pages are, by the
// footer's encoding stats, PLAIN (or dictionary encoded then PLAIN), the
// scan instead takes the pages from arrow-go's page reader (dictpage.go's
// loop: read, decrypted, decompressed, v1 and v2) and walks the values —
// a 4-byte little-endian length, then the bytes — writing offsets and bytes
// straight into the output buffers from the decode allocator; values of a
// dictionary-encoded page are looked up in the chunk's dictionary. The
// value buffer is sized from the chunk's average bytes per value and, when
// a batch needs more, moved to a buffer a quarter larger (a fresh
// uninitialised allocation and one copy, not Reallocate, which clears).
// Values of up to 16 (64) bytes are copied as one 16-byte (64-byte) store
// where the page holds that many bytes from the value's start; the output
// keeps 64 bytes of room past its last value for that. Null slots are empty.
//
// Bad input — a length running past its page, a negative length, a page
// with fewer values than it announces, more than 2 GiB of value bytes in
// one batch, and the errors of dictpage.go's page loop — is an error
// wrapping ErrCorrupt naming the column.

// ownPlainStr switches the scan's own decoding of PLAIN string pages on
// (tests and A/B compare it with pqarrow's).
var ownPlainStr = true

// ownPlainChunks counts the string column chunks with PLAIN pages the scan
// has decoded itself, process wide (tests check the path is taken).
var ownPlainChunks atomic.Int64

// plainSlack is the room kept past the values for a 16-byte store.
const plainSlack = 64

// plainStr is the state of a string chunk decoded by nextStr.
type plainStr struct {
	avg     int    // estimated value bytes per row, for the first reservation
	isPlain bool   // the current data page is PLAIN encoded
	data    []byte // its values not yet decoded

	vals *memory.Buffer // the batch's value bytes (Buf: the whole allocation)
	used int            // bytes of vals written
}

// ownPlainLeaf reports whether the chunk of fc in row group rg of f can be
// decoded by dictColumn as strings with PLAIN pages: a flat BYTE_ARRAY
// column read as out (utf8 or binary, pqarrow's type for it), whose data
// pages are all PLAIN or dictionary encoded by the footer's encoding stats.
func ownPlainLeaf(f *scanFile, rg int, fc *fileCol, out arrow.DataType) bool {
	if !ownPlainStr || fc == nil || fc.leaf < 0 || fc.read == nil || out == nil {
		return false
	}
	if id := fc.read.ID(); (id != arrow.STRING && id != arrow.BINARY) || !arrow.TypeEqual(fc.read, out) {
		return false
	}
	d := f.md.Schema.Column(fc.leaf)
	if d.PhysicalType() != parquet.Types.ByteArray || d.MaxRepetitionLevel() != 0 || d.MaxDefinitionLevel() > 1 {
		return false
	}
	cc, err := f.md.RowGroup(rg).ColumnChunk(fc.leaf)
	return err == nil && dictThenPlain(cc)
}

// newPlainStrColumn opens the page reader of fc's chunk in row group rg of
// pr (f's file), to decode it as out (ownPlainLeaf said it can).
func newPlainStrColumn(pr *file.Reader, f *scanFile, rg int, fc *fileCol, out arrow.DataType) (*dictColumn, error) {
	rdr, err := pr.RowGroup(rg).GetColumnPageReader(fc.leaf)
	if err != nil {
		return nil, fmt.Errorf("%w: column %s: %v", ErrCorrupt, fc.name, err)
	}
	avg := 16
	if cc, err := f.md.RowGroup(rg).ColumnChunk(fc.leaf); err == nil && cc.NumValues() > 0 {
		// Uncompressed bytes include the 4-byte lengths, the levels and
		// the page headers; a sixteenth more for batches of longer values.
		avg = int(min(max(cc.TotalUncompressedSize()/cc.NumValues()-4, 1), 1<<20))
		avg += avg / 16
	}
	ownPlainChunks.Add(1)
	return &dictColumn{name: fc.name, typ: out, pr: rdr, maxDef: pr.MetaData().Schema.Column(fc.leaf).MaxDefinitionLevel(),
		ps: &plainStr{avg: avg}}, nil
}

// plainLimit bounds a batch's value buffer: its offsets must fit an int32.
const plainLimit = math.MaxInt32 &^ 63

// reserve makes room for need value bytes (plus plainSlack) in the batch's
// value buffer, moving what is written to a larger one if needed.
func (ps *plainStr) reserve(c *dictColumn, mem memory.Allocator, need int) error {
	need += plainSlack
	if need > plainLimit {
		return c.errorf("more than 2 GiB of strings in one batch")
	}
	if ps.vals != nil && need <= len(ps.vals.Buf()) {
		return nil
	}
	nb := memory.NewResizableBuffer(mem)
	if ps.vals == nil {
		nb.Reserve(need)
	} else {
		// A quarter more, within the limit: the callers check for room
		// only when a value does not fit.
		nb.Reserve(min(max(need, len(ps.vals.Buf())+len(ps.vals.Buf())/4), plainLimit))
		copy(nb.Buf(), ps.vals.Buf()[:ps.used])
		ps.vals.Release()
	}
	ps.vals = nb
	return nil
}

// nextStr decodes the chunk's next n rows into a dense string or binary
// array from mem, which the caller releases.
func (c *dictColumn) nextStr(mem memory.Allocator, n int) (arrow.Array, error) {
	ps := c.ps
	offBuf := memory.NewResizableBuffer(mem)
	defer offBuf.Release()
	offBuf.Resize((n + 1) * arrow.Int32SizeBytes)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[: n+1 : n+1]
	offs[0] = 0
	ps.used = 0
	defer func() {
		if ps.vals != nil {
			ps.vals.Release()
			ps.vals = nil
		}
	}()
	if err := ps.reserve(c, mem, min(n*ps.avg, plainLimit-plainSlack)); err != nil {
		return nil, err
	}
	var validity *memory.Buffer
	var valid []byte
	if c.maxDef > 0 {
		validity, valid = newValidity(mem, n)
		defer validity.Release()
	}
	nulls := 0
	err := c.eachRun(n, func(got, m int) error {
		var lv []int32
		v := m
		if c.maxDef > 0 {
			var err error
			if lv, v, err = c.levels(m, got, valid); err != nil {
				return err
			}
			nulls += m - v
			if v == m {
				lv = nil
			}
		}
		if ps.isPlain {
			return c.plainRun(mem, offs[got+1:got+1+m], lv)
		}
		return c.dictRun(mem, offs[got+1:got+1+m], lv, v)
	})
	if err != nil {
		return nil, err
	}
	ps.vals.ResizeNoShrink(ps.used)
	if nulls == 0 {
		validity = nil // the deferred Release of the buffer still runs
	}
	data := array.NewData(c.typ, n, []*memory.Buffer{validity, offBuf, ps.vals}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// plainRun writes the next len(offs) rows of the current PLAIN page: the
// end offset of each row to offs and the bytes of the valid ones (those
// where lv is 1; all when lv is nil) to the value buffer.
func (c *dictColumn) plainRun(mem memory.Allocator, offs []int32, lv []int32) error {
	ps := c.ps
	data := ps.data
	out := ps.vals.Buf()
	o, pos := ps.used, 0
	defer func() { ps.data, ps.used = data[pos:], o }()
	for i := range offs {
		if lv != nil && lv[i] == 0 {
			offs[i] = int32(o)
			continue
		}
		if len(data)-pos < 4 {
			return c.errorf("PLAIN page ends before its values (%d bytes left of %d)", len(data)-pos, len(data))
		}
		l := int(int32(binary.LittleEndian.Uint32(data[pos:])))
		pos += 4
		if l < 0 {
			return c.errorf("string of negative length %d", l)
		}
		if l > len(data)-pos {
			return c.errorf("string of %d bytes runs past its page (%d bytes left)", l, len(data)-pos)
		}
		if o+l+plainSlack > len(out) {
			ps.used = o
			if err := ps.reserve(c, mem, o+l); err != nil {
				return err
			}
			out = ps.vals.Buf()
		}
		if l <= 16 && len(data)-pos >= 16 {
			*(*[16]byte)(out[o : o+16]) = [16]byte(data[pos : pos+16])
		} else if l <= 64 && len(data)-pos >= 64 {
			// Four 16-byte stores, past the value (within the slack and
			// the page): no memmove call for short values.
			*(*[64]byte)(out[o : o+64]) = [64]byte(data[pos : pos+64])
		} else {
			copy(out[o:o+l], data[pos:pos+l])
		}
		o += l
		pos += l
		offs[i] = int32(o)
	}
	return nil
}

// dictRun writes the next len(offs) rows of the current dictionary-encoded
// page (v of them valid: where lv is 1, or all when lv is nil) as plainRun
// does, looking the values up in the chunk's dictionary.
func (c *dictColumn) dictRun(mem memory.Allocator, offs []int32, lv []int32, v int) error {
	ps := c.ps
	if cap(c.ix) < v {
		c.ix = scratchOf[int32](c, max(v, 256))
	}
	ix := c.ix[:v]
	if err := c.idx.decode(ix); err != nil {
		return c.errorf("dictionary indices: %v", err)
	}
	dn := uint32(len(c.dOffs) - 1)
	o, j := ps.used, 0
	for i := range offs {
		if lv != nil && lv[i] == 0 {
			offs[i] = int32(o)
			continue
		}
		k := ix[j]
		j++
		if uint32(k) >= dn {
			return c.indexErr(k, int(dn))
		}
		lo, hi := int(c.dOffs[k]), int(c.dOffs[k+1])
		if o+hi-lo+plainSlack > len(ps.vals.Buf()) {
			ps.used = o
			if err := ps.reserve(c, mem, o+hi-lo); err != nil {
				return err
			}
		}
		o += copy(ps.vals.Buf()[o:], c.dBytes[lo:hi])
		offs[i] = int32(o)
	}
	ps.used = o
	return nil
}
