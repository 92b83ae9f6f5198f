package operators

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
)

// ConcatRecords makes one record of recs (all of one schema), in
// t.OutputAllocator() memory — device memory when the device is
// host-visible, so operators read it in place. A single record is returned
// as it is (retained). Dictionary columns whose dictionaries differ are
// unified. The caller releases the result; recs are not released.
//
// Fixed-width, boolean and (large) string/binary columns are copied into
// unzeroed buffers (concatUninit: every byte handed over is written);
// other types go through array.Concatenate.
func ConcatRecords(t *Target, recs []arrow.Record) (arrow.Record, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: concat of no records", device.ErrInvalid)
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	schema := recs[0].Schema()
	var rows int64
	for i, r := range recs {
		if !r.Schema().Equal(schema) {
			return nil, fmt.Errorf("%w: concat: record %d has schema %s, record 0 %s", device.ErrInvalid, i, r.Schema(), schema)
		}
		rows += r.NumRows()
	}
	if rows > 1<<31-1 {
		return nil, fmt.Errorf("%w: concat: %d rows exceed a batch (2^31-1)", device.ErrInvalid, rows)
	}
	// Arrow's Concatenate loses what it allocated when an allocation fails
	// half way, so ask the account for the bytes first.
	if t.Account != nil {
		need := uint64(0)
		for _, r := range recs {
			need += recordBytes(r)
		}
		if err := t.Account.Reserve(need); err != nil {
			return nil, fmt.Errorf("concat of %d rows: %w", rows, err)
		}
		t.Account.Release(need)
	}
	mem := t.OutputAllocator()
	cols := make([]arrow.Array, schema.NumFields())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	parts := make([]arrow.Array, len(recs))
	for j := range cols {
		for i, r := range recs {
			parts[i] = r.Column(j)
		}
		err := hmem.Catch(func() (err error) {
			if cols[j] = concatUninit(parts, int(rows), mem); cols[j] == nil {
				cols[j], err = array.Concatenate(parts, mem)
			}
			return err
		})
		if err != nil {
			release()
			return nil, fmt.Errorf("concat: column %d (%s): %w", j, schema.Field(j).Name, err)
		}
	}
	rec := array.NewRecord(schema, cols, rows)
	release()
	return rec, nil
}

// recordBytes is the size of a record's buffers (dictionaries included).
func recordBytes(r arrow.Record) uint64 {
	var n uint64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += uint64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
		if d.DataType().ID() == arrow.DICTIONARY {
			add(d.Dictionary())
		}
	}
	for _, c := range r.Columns() {
		add(c.Data())
	}
	return n
}

// concatUninit concatenates parts (one type, rows rows in all) into
// buffers of mem allocated without zeroing when mem offers it, or returns
// nil for a type it does not handle (the caller falls back to
// array.Concatenate). Every byte of the buffers it hands over is written:
// validity bits of every row (bits past the last row clear), values of
// null rows copied as the parts hold them, offsets rebased. It panics
// like mem.Allocate when an allocation fails (the caller catches it).
func concatUninit(parts []arrow.Array, rows int, mem memory.Allocator) arrow.Array {
	un, ok := mem.(hmem.Uninit)
	if !ok || len(parts) == 0 {
		return nil
	}
	dt := parts[0].DataType()
	width, offsets := 0, 0 // bytes per value; bytes per offset (strings)
	switch dt.ID() {
	case arrow.BOOL:
	case arrow.INT8, arrow.UINT8, arrow.INT16, arrow.UINT16, arrow.INT32, arrow.UINT32, arrow.INT64, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64,
		arrow.TIMESTAMP, arrow.DURATION, arrow.DECIMAL128, arrow.DECIMAL256, arrow.FIXED_SIZE_BINARY,
		arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME:
		fw, ok := dt.(arrow.FixedWidthDataType)
		if !ok || fw.BitWidth()%8 != 0 || fw.BitWidth() == 0 {
			return nil
		}
		width = fw.BitWidth() / 8
	case arrow.STRING, arrow.BINARY:
		offsets = 4
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		offsets = 8
	default:
		return nil
	}
	var strBytes int64
	if offsets > 0 {
		for _, a := range parts {
			lo, hi := valueRange(a, offsets)
			strBytes += hi - lo
		}
		if offsets == 4 && strBytes > math.MaxInt32 {
			return nil // array.Concatenate reports the overflow
		}
	}
	nulls := 0
	for _, a := range parts {
		nulls += a.NullN()
	}
	var bufs []*memory.Buffer
	ok = false
	defer func() {
		if !ok { // an allocation panicked: free what was taken
			for _, b := range bufs {
				if b != nil {
					b.Release()
				}
			}
		}
	}()
	alloc := func(n int) []byte {
		b := un.AllocateUninit(n)
		bufs = append(bufs, memory.NewBufferWithAllocator(b, mem))
		return b
	}
	// validity
	var validity []byte
	if nulls > 0 {
		validity = alloc((rows + 7) / 8)
		at := 0
		for _, a := range parts {
			d := a.Data()
			if n := a.Len(); n > 0 {
				if vb := d.Buffers()[0]; vb != nil && a.NullN() > 0 {
					bitutil.CopyBitmap(vb.Bytes(), d.Offset(), n, validity, at)
				} else {
					bitutil.SetBitsTo(validity, int64(at), int64(n), true)
				}
				at += n
			}
		}
		clearTail(validity, rows)
	} else {
		bufs = append(bufs, nil)
	}
	switch {
	case dt.ID() == arrow.BOOL:
		out := alloc((rows + 7) / 8)
		at := 0
		for _, a := range parts {
			d := a.Data()
			if n := a.Len(); n > 0 {
				bitutil.CopyBitmap(d.Buffers()[1].Bytes(), d.Offset(), n, out, at)
				at += n
			}
		}
		clearTail(out, rows)
	case width > 0:
		out := alloc(width * rows)
		at := 0
		for _, a := range parts {
			d := a.Data()
			if n := a.Len(); n > 0 {
				at += copy(out[at:], d.Buffers()[1].Bytes()[width*d.Offset():width*(d.Offset()+n)])
			}
		}
	default:
		offs := alloc(offsets * (rows + 1))
		data := alloc(int(strBytes))
		at, pos := 0, int64(0) // rows and bytes written
		put := func(i int, v int64) {
			if offsets == 4 {
				binary.LittleEndian.PutUint32(offs[4*i:], uint32(v))
			} else {
				binary.LittleEndian.PutUint64(offs[8*i:], uint64(v))
			}
		}
		put(0, 0)
		for _, a := range parts {
			d := a.Data()
			n := a.Len()
			if n == 0 {
				continue
			}
			lo, hi := valueRange(a, offsets)
			src := d.Buffers()[1].Bytes()
			for i := 1; i <= n; i++ {
				put(at+i, pos+offsetAt(src, offsets, d.Offset()+i)-lo)
			}
			if hi > lo {
				copy(data[pos:], d.Buffers()[2].Bytes()[lo:hi])
			}
			at += n
			pos += hi - lo
		}
	}
	ad := array.NewData(dt, rows, bufs, nil, nulls, 0)
	ok = true
	for _, b := range bufs {
		if b != nil {
			b.Release() // NewData retained them
		}
	}
	defer ad.Release()
	return array.MakeFromData(ad)
}

// valueRange is the byte range [lo, hi) of a string or binary array's
// values (offsets: 4 or 8 bytes each).
func valueRange(a arrow.Array, offsets int) (lo, hi int64) {
	d := a.Data()
	if a.Len() == 0 {
		return 0, 0
	}
	src := d.Buffers()[1].Bytes()
	return offsetAt(src, offsets, d.Offset()), offsetAt(src, offsets, d.Offset()+a.Len())
}

// offsetAt reads offset i of a string or binary offsets buffer (offsets:
// 4 or 8 bytes each).
func offsetAt(src []byte, offsets, i int) int64 {
	if offsets == 4 {
		return int64(int32(binary.LittleEndian.Uint32(src[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(src[8*i:]))
}

// clearTail clears the bits of a bitmap's last byte past rows.
func clearTail(bits []byte, rows int) {
	if r := rows % 8; r != 0 {
		bits[rows/8] &= byte(1)<<r - 1
	}
}
