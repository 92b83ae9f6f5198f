package scan

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// String columns through dictionary reads.
//
// pqarrow's dense reading of a dictionary-encoded BYTE_ARRAY column looks
// every value up in the page's dictionary and appends it to a BinaryBuilder
// one by one (~30 ns a value; over a third of TPC-H Q1's CPU went there, on
// l_returnflag and l_linestatus). Read as a dictionary instead, pqarrow
// bulk-decodes the int32 indices and inserts the chunk's dictionary once;
// the scan then expands the indices into the dense string or binary array
// it has always output (same type, same values, same validity), in two
// tight passes: sum the lengths, then copy. The expansion allocates the
// offsets and bytes from the decode allocator (uninitialised device
// memory) and writes every byte of them.
//
// A column is read so only when, in the file's footer, every column chunk
// of it has encoding stats showing dictionary-encoded data pages alone: a
// chunk whose writer fell back to plain encoding makes pqarrow insert each
// plain value into a dictionary builder, slower than the dense path, so such
// files keep it. (The expansion is correct whatever the dictionary reader
// returns; the footer only decides which path is faster.)

// readDictStrings switches the dictionary reading of string columns on
// (tests compare both paths).
var readDictStrings = true

// dictReadAlways reads every string column as a dictionary whatever the
// footer says (tests: chunks that fell back to plain encoding).
var dictReadAlways = false

// dictReadLeaves returns the Parquet leaves of the required columns of f to
// read as dictionaries: byte-array columns decoded as utf8 or binary whose
// every chunk in the file is wholly dictionary encoded.
func (s *Scanner) dictReadLeaves(f *scanFile) []int {
	if f == nil || !readDictStrings {
		return nil
	}
	var leaves []int
	for _, c := range s.out {
		if c.Partition {
			continue
		}
		fc := f.schema.lookup(c.Name)
		if fc == nil || fc.leaf < 0 || fc.read == nil {
			continue
		}
		if id := fc.read.ID(); id != arrow.STRING && id != arrow.BINARY {
			continue
		}
		if f.md.NumRowGroups() == 0 {
			continue
		}
		all := true
		for rg := 0; rg < f.md.NumRowGroups() && all; rg++ {
			cc, err := f.md.RowGroup(rg).ColumnChunk(fc.leaf)
			all = err == nil && (dictReadAlways || cc.HasDictionaryPage() && allDictEncoded(cc))
		}
		if all {
			leaves = append(leaves, fc.leaf)
		}
	}
	return leaves
}

// expandDict returns the dense array (of d's value type, utf8 or binary)
// that d's indices select from its dictionary, allocated from mem; the
// caller releases it (d is not consumed). Null slots get empty values; their
// indices are never read (pqarrow leaves them unwritten).
func expandDict(mem memory.Allocator, d *array.Dictionary) (arrow.Array, error) {
	idx, ok := d.Indices().(*array.Int32)
	if !ok {
		return nil, fmt.Errorf("%w: dictionary indices of type %s", ErrCorrupt, d.Indices().DataType())
	}
	var (
		dOffs  []int32
		dBytes []byte
	)
	switch dict := d.Dictionary().(type) {
	case *array.String:
		dOffs, dBytes = dict.ValueOffsets(), dict.ValueBytes()
	case *array.Binary:
		dOffs, dBytes = dict.ValueOffsets(), dict.ValueBytes()
	default:
		return nil, fmt.Errorf("%w: dictionary of type %s", ErrCorrupt, d.Dictionary().DataType())
	}
	dn := int32(d.Dictionary().Len())
	base := dOffs[0] // ValueBytes starts at the dictionary's first value
	n := d.Len()
	ix := idx.Int32Values()
	hasNulls := d.NullN() > 0
	valid, voff := d.NullBitmapBytes(), d.Data().Offset()

	// Pass 1: check the indices and sum the lengths.
	var total int64
	for i, k := range ix {
		if hasNulls && !bitutil.BitIsSet(valid, voff+i) {
			continue
		}
		if uint32(k) >= uint32(dn) {
			return nil, fmt.Errorf("%w: dictionary index %d out of range [0, %d)", ErrCorrupt, k, dn)
		}
		total += int64(dOffs[k+1] - dOffs[k])
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d bytes of strings in one batch", ErrCorrupt, total)
	}

	offBuf := memory.NewResizableBuffer(mem)
	defer offBuf.Release()
	offBuf.Resize((n + 1) * arrow.Int32SizeBytes)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[: n+1 : n+1]
	valBuf := memory.NewResizableBuffer(mem)
	defer valBuf.Release()
	valBuf.Resize(int(total))
	out := valBuf.Bytes()[:total:total]

	// Pass 2: write every offset and byte. Values are often a few bytes
	// (flags, codes): those are copied a byte at a time, not by memmove.
	var pos int32
	offs[0] = 0
	put := func(k int32) {
		lo, hi := dOffs[k]-base, dOffs[k+1]-base
		if hi-lo <= 8 {
			for j := lo; j < hi; j++ {
				out[pos] = dBytes[j]
				pos++
			}
			return
		}
		pos += int32(copy(out[pos:], dBytes[lo:hi]))
	}
	if hasNulls {
		for i, k := range ix {
			if bitutil.BitIsSet(valid, voff+i) {
				put(k)
			}
			offs[i+1] = pos
		}
	} else {
		for i, k := range ix {
			put(k)
			offs[i+1] = pos
		}
	}

	var validity *memory.Buffer
	if hasNulls {
		validity = memory.NewResizableBuffer(mem)
		defer validity.Release()
		validity.Resize(int(bitutil.BytesForBits(int64(n))))
		vb := validity.Bytes()
		clear(vb) // CopyBitmap may keep the bits past n of the last byte
		bitutil.CopyBitmap(valid, voff, n, vb, 0)
	}
	data := array.NewData(d.Dictionary().DataType(), n, []*memory.Buffer{validity, offBuf, valBuf}, nil, d.NullN(), 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}
