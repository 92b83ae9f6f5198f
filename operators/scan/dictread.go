package scan

import (
	"fmt"
	"math"
	"unsafe"

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
	dn := d.Dictionary().Len()
	switch dict := d.Dictionary().(type) {
	case *array.String:
		if dn > 0 { // an empty dictionary's offsets may be unwritten (all nulls, data page v2, after a seek)
			dOffs, dBytes = dict.ValueOffsets(), dict.ValueBytes()
		}
	case *array.Binary:
		if dn > 0 {
			dOffs, dBytes = dict.ValueOffsets(), dict.ValueBytes()
		}
	default:
		return nil, fmt.Errorf("%w: dictionary of type %s", ErrCorrupt, d.Dictionary().DataType())
	}
	if dn == 0 || len(dOffs) < dn+1 { // no values: every valid index is out of range
		dn, dOffs = 0, []int32{0}
	}
	idxs := idx.Int32Values()
	return expandIndices(mem, d.Dictionary().DataType(), idxs, d.NullBitmapBytes(), d.Data().Offset(), d.NullN(),
		dOffs[:dn+1], dBytes)
}

// expandIndices returns the dense array of type typ (utf8 or binary) whose
// slot i is the dictionary value ix[i] (dOffs: the dictionary's n+1
// offsets, dBytes its value bytes starting at dOffs[0]), or null where bit
// voff+i of valid is clear (nulls of them; valid is unread when nulls is
// 0). Buffers come from mem; every byte of them is written. An index of a
// valid slot outside the dictionary is an error wrapping ErrCorrupt.
func expandIndices(mem memory.Allocator, typ arrow.DataType, ix []int32, valid []byte, voff, nulls int,
	dOffs []int32, dBytes []byte) (arrow.Array, error) {
	dn := int32(len(dOffs) - 1)
	base := dOffs[0]
	n := len(ix)
	hasNulls := nulls > 0

	offBuf := memory.NewResizableBuffer(mem)
	defer offBuf.Release()
	offBuf.Resize((n + 1) * arrow.Int32SizeBytes)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[: n+1 : n+1]
	valBuf := memory.NewResizableBuffer(mem)
	defer valBuf.Release()
	var err error
	if w := uniformWidth(dOffs); w > 0 && expandUniform {
		err = expandFixed(valBuf, offs, ix, dBytes[:int(dn)*int(w)], int(w), hasNulls, valid, voff, n-nulls)
	} else {
		err = expandVar(valBuf, offs, ix, dOffs, base, dBytes, hasNulls, valid, voff)
	}
	if err != nil {
		return nil, err
	}

	var validity *memory.Buffer
	if hasNulls {
		validity = copyValidity(mem, valid, voff, n)
		defer validity.Release()
	}
	data := array.NewData(typ, n, []*memory.Buffer{validity, offBuf, valBuf}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// expandUniform switches the expansion of dictionaries whose values all
// have one length (flags, codes) to its one-pass loops (tests and A/B).
var expandUniform = true

// uniformWidth returns the length every dictionary value has (offs are the
// dictionary's n+1 offsets), or -1 when lengths differ or there are no
// values.
func uniformWidth(offs []int32) int32 {
	if len(offs) < 2 {
		return -1
	}
	w := offs[1] - offs[0]
	for i := 2; i < len(offs); i++ {
		if offs[i]-offs[i-1] != w {
			return -1
		}
	}
	return w
}

func badIndex(k int32, dn int) error {
	return fmt.Errorf("%w: dictionary index %d out of range [0, %d)", ErrCorrupt, k, dn)
}

// expandFixed writes offs (n+1 entries) and the bytes of valBuf (sized here
// for nvalid values) for indices ix into a dictionary of values of w bytes
// each (w > 0), stored back to back in dict. One pass: each index is checked as it
// is used, so a bad one stops the expansion (the caller frees the buffers).
func expandFixed(valBuf *memory.Buffer, offs, ix []int32, dict []byte, w int, hasNulls bool, valid []byte, voff, nvalid int) error {
	dn := len(dict) / w
	total := int64(nvalid) * int64(w)
	if total > math.MaxInt32 {
		return fmt.Errorf("%w: %d bytes of strings in one batch", ErrCorrupt, total)
	}
	valBuf.Resize(int(total))
	out := valBuf.Bytes()[:total:total]
	offs[0] = 0
	next := offs[1:]
	next = next[:len(ix)]
	switch {
	case w == 1 && !hasNulls:
		out = out[:len(ix)]
		for i, k := range ix {
			if uint(k) >= uint(len(dict)) {
				return badIndex(k, dn)
			}
			out[i] = dict[k]
			next[i] = int32(i + 1)
		}
	case !hasNulls:
		for i, k := range ix {
			if uint(k) >= uint(dn) {
				return badIndex(k, dn)
			}
			o := i * w
			copy(out[o:o+w], dict[int(k)*w:int(k)*w+w])
			next[i] = int32(o + w)
		}
	default:
		pos := 0
		for i, k := range ix {
			if bitutil.BitIsSet(valid, voff+i) {
				if uint(k) >= uint(dn) {
					return badIndex(k, dn)
				}
				if w == 1 {
					out[pos] = dict[k]
				} else {
					copy(out[pos:pos+w], dict[int(k)*w:int(k)*w+w])
				}
				pos += w
			}
			next[i] = int32(pos)
		}
	}
	return nil
}

// expandVar is expandFixed for values of differing lengths (dOffs: the
// dictionary's offsets, base the first; dBytes its value bytes): a pass
// that checks the indices and sums the lengths, then one that writes.
func expandVar(valBuf *memory.Buffer, offs, ix, dOffs []int32, base int32, dBytes []byte, hasNulls bool, valid []byte, voff int) error {
	dn := int32(len(dOffs) - 1)
	var total int64
	for i, k := range ix {
		if hasNulls && !bitutil.BitIsSet(valid, voff+i) {
			continue
		}
		if uint32(k) >= uint32(dn) {
			return badIndex(k, int(dn))
		}
		total += int64(dOffs[k+1] - dOffs[k])
	}
	if total > math.MaxInt32 {
		return fmt.Errorf("%w: %d bytes of strings in one batch", ErrCorrupt, total)
	}
	if w := shortWidth(dOffs); w > 0 && expandShort {
		// room for the last value's whole-word store past the end
		valBuf.Reserve(int(total) + w)
		valBuf.ResizeNoShrink(int(total))
		expandShortVar(valBuf.Buf()[:int(total)+w], offs, ix, dOffs, base, dBytes, w, hasNulls, valid, voff)
		return nil
	}
	valBuf.Resize(int(total))
	out := valBuf.Bytes()[:total:total]

	// Values are often a few bytes (flags, codes): those are copied a
	// byte at a time, not by memmove.
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
	return nil
}

// expandShort switches expandVar's whole-word loop for dictionaries of short
// values (shortWidth) on (tests and A/B).
var expandShort = true

// shortWidth is the store width (16 or 32 bytes) that holds every value of
// a dictionary (offs: its n+1 offsets) whose longest value fits one, or 0.
// Small dictionaries only: the loop copies the dictionary once per call.
func shortWidth(offs []int32) int {
	if len(offs) < 2 || len(offs) > 4097 {
		return 0
	}
	longest := int32(0)
	for i := 1; i < len(offs); i++ {
		longest = max(longest, offs[i]-offs[i-1])
	}
	switch {
	case longest <= 16:
		return 16
	case longest <= 32:
		return 32
	}
	return 0
}

// expandShortVar writes each valid slot's value as one w-byte store (w from
// shortWidth) of a padded copy of the dictionary and advances by the value's
// length, so the next store overwrites the excess: no per-byte loop and no
// memmove call per value. out has w bytes of room past the values' total;
// the indices were checked by the caller.
func expandShortVar(out []byte, offs, ix, dOffs []int32, base int32, dBytes []byte, w int, hasNulls bool, valid []byte, voff int) {
	dn := len(dOffs) - 1
	used := int(dOffs[dn] - base)
	pad := make([]byte, used+w)
	copy(pad, dBytes[:used])
	// each entry's start in pad and length, in one word
	tab := make([]uint64, dn)
	for k := range tab {
		tab[k] = uint64(uint32(dOffs[k]-base)) | uint64(uint32(dOffs[k+1]-dOffs[k]))<<32
	}
	offs[0] = 0
	next := offs[1 : len(ix)+1]
	// Stores through pointers: pos + w <= len(out) and start + w <=
	// len(pad) hold for every valid slot (its index was checked, and pos
	// never passes the values' total), so the loop needs no other checks.
	dst, src := unsafe.Pointer(unsafe.SliceData(out)), unsafe.Pointer(unsafe.SliceData(pad))
	var pos uint32
	switch {
	case !hasNulls && w == 16: // the common case (flags, modes) without the general loop's per-row tests: ~5% of the scan's CPU on l_shipmode
		for i, k := range ix {
			e := tab[k]
			*(*[16]byte)(unsafe.Add(dst, pos)) = *(*[16]byte)(unsafe.Add(src, uint32(e)))
			pos += uint32(e >> 32)
			next[i] = int32(pos)
		}
	default:
		for i, k := range ix {
			if hasNulls && !bitutil.BitIsSet(valid, voff+i) {
				next[i] = int32(pos)
				continue
			}
			e := tab[k]
			*(*[16]byte)(unsafe.Add(dst, pos)) = *(*[16]byte)(unsafe.Add(src, uint32(e)))
			if w == 32 {
				*(*[16]byte)(unsafe.Add(dst, pos+16)) = *(*[16]byte)(unsafe.Add(src, uint32(e)+16))
			}
			pos += uint32(e >> 32)
			next[i] = int32(pos)
		}
	}
}
