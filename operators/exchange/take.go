package exchange

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeRecord gathers the rows idx of rec, in that order, into a new record
// whose buffers come from mem. The caller releases the result.
func takeRecord(rec arrow.RecordBatch, idx []int32, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c := range cols {
		col, err := takeArray(rec.Column(c), idx, mem)
		if err != nil {
			return nil, fmt.Errorf("exchange: gather column %d (%s): %w", c, rec.Schema().Field(c).Name, err)
		}
		cols[c] = col
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(len(idx))), nil
}

// takeArray gathers the rows idx of col into a new array allocated from mem.
// Every index must be in [0, col.Len()).
func takeArray(col arrow.Array, idx []int32, mem memory.Allocator) (arrow.Array, error) {
	d, err := takeData(col, idx, mem)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

func takeData(col arrow.Array, idx []int32, mem memory.Allocator) (arrow.ArrayData, error) {
	n := len(idx)
	dt := col.DataType()
	if dt.ID() == arrow.NULL {
		return array.NewData(dt, n, []*memory.Buffer{nil}, nil, n, 0), nil
	}
	if n == 0 || col.Len() == 0 { // an empty source may lack buffers
		if n > 0 {
			return nil, fmt.Errorf("gather index %d out of range of an empty array", idx[0])
		}
		if _, ok := dt.(*arrow.DictionaryType); ok {
			return array.NewSliceData(col.Data(), 0, 0), nil
		}
		empty := array.MakeArrayOfNull(mem, dt, 0)
		defer empty.Release()
		d := empty.Data()
		d.Retain()
		return d, nil
	}
	validity, nulls := takeValidity(col, idx, mem)
	defer func() {
		// an allocator refusing the values' buffer (a quota) panics:
		// give the validity bitmap back before passing the panic on
		if r := recover(); r != nil {
			if validity != nil {
				validity.Release()
			}
			panic(r)
		}
	}()
	release := func(bufs ...*memory.Buffer) {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		dict := col.(*array.Dictionary)
		values := takeFixed(dict.Indices().Data(), t.IndexType.(arrow.FixedWidthDataType).BitWidth()/8, idx, mem)
		d := array.NewDataWithDictionary(dt, n, []*memory.Buffer{validity, values}, nulls, 0, dict.Dictionary().Data().(*array.Data))
		release(validity, values)
		return d, nil
	case *arrow.BooleanType:
		values := takeBits(col.Data(), idx, mem)
		d := array.NewData(dt, n, []*memory.Buffer{validity, values}, nil, nulls, 0)
		release(validity, values)
		return d, nil
	case arrow.FixedWidthDataType:
		w := t.BitWidth() / 8
		if t.BitWidth()%8 != 0 || !fixedWidthSupported(w) {
			release(validity)
			return nil, fmt.Errorf("%w: gathering %s", ErrNotSupported, dt)
		}
		values := takeFixed(col.Data(), w, idx, mem)
		d := array.NewData(dt, n, []*memory.Buffer{validity, values}, nil, nulls, 0)
		release(validity, values)
		return d, nil
	}
	if v, ok := asVarBinary(col); ok {
		offsets, data := takeVarBinary(v, idx, mem)
		d := array.NewData(dt, n, []*memory.Buffer{validity, offsets, data}, nil, nulls, 0)
		release(validity, offsets, data)
		return d, nil
	}
	release(validity)
	return nil, fmt.Errorf("%w: gathering %s", ErrNotSupported, dt)
}

// takeValidity returns the gathered validity bitmap (nil when col has no
// nulls) and the number of nulls among idx.
func takeValidity(col arrow.Array, idx []int32, mem memory.Allocator) (*memory.Buffer, int) {
	if col.NullN() == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	bm := buf.Bytes()
	nulls := 0
	for k, i := range idx {
		if col.IsValid(int(i)) {
			bitutil.SetBit(bm, k)
		} else {
			nulls++
		}
	}
	return buf, nulls
}

func takeBits(d arrow.ArrayData, idx []int32, mem memory.Allocator) *memory.Buffer {
	src := d.Buffers()[1].Bytes()
	off := d.Offset()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	dst := buf.Bytes()
	for k, i := range idx {
		if bitutil.BitIsSet(src, off+int(i)) {
			bitutil.SetBit(dst, k)
		}
	}
	return buf
}

func fixedWidthSupported(w int) bool {
	switch w {
	case 1, 2, 4, 8, 16, 32:
		return true
	}
	return false
}

// takeFixed gathers values of byte width w (a fixedWidthSupported width).
func takeFixed(d arrow.ArrayData, w int, idx []int32, mem memory.Allocator) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(idx) * w)
	var src []byte
	if b := d.Buffers()[1]; b != nil {
		src = b.Bytes()[d.Offset()*w:]
	}
	dst := buf.Bytes()
	if len(idx) == 0 {
		return buf
	}
	switch w {
	case 1:
		gather(dst, src, idx)
	case 2:
		gather(castSlice[uint16](dst), castSlice[uint16](src), idx)
	case 4:
		gather(castSlice[uint32](dst), castSlice[uint32](src), idx)
	case 8:
		gather(castSlice[uint64](dst), castSlice[uint64](src), idx)
	case 16:
		gather(castSlice[[2]uint64](dst), castSlice[[2]uint64](src), idx)
	case 32:
		gather(castSlice[[4]uint64](dst), castSlice[[4]uint64](src), idx)
	}
	return buf
}

func gather[T any](dst, src []T, idx []int32) {
	for k, i := range idx {
		dst[k] = src[i]
	}
}

// castSlice views b as a slice of T (b's length must be a multiple of T's
// size; x86-64 and arm64 tolerate the alignment of Arrow buffers).
func castSlice[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// takeVarBinary gathers string/binary values, keeping the offset width of
// the source.
func takeVarBinary(v varBinary, idx []int32, mem memory.Allocator) (offsets, data *memory.Buffer) {
	total := 0
	if o := v.off32; o != nil {
		for _, i := range idx {
			total += int(o[i+1] - o[i])
		}
	} else {
		for _, i := range idx {
			total += len(v.value(int(i)))
		}
	}
	data = memory.NewResizableBuffer(mem)
	defer func() {
		if r := recover(); r != nil { // an allocator refused the offsets: free the data
			data.Release()
			if offsets != nil {
				offsets.Release()
			}
			panic(r)
		}
	}()
	data.Resize(total)
	out := data.Bytes()
	offsets = memory.NewResizableBuffer(mem)
	pos := 0
	if v.off32 != nil {
		offsets.Resize(4 * (len(idx) + 1))
		off := castSlice[int32](offsets.Bytes())
		o, src := v.off32, v.data
		for k, i := range idx {
			off[k] = int32(pos)
			pos += copy(out[pos:], src[o[i]:o[i+1]])
		}
		off[len(idx)] = int32(pos)
		return offsets, data
	}
	offsets.Resize(8 * (len(idx) + 1))
	off := castSlice[int64](offsets.Bytes())
	for k, i := range idx {
		off[k] = int64(pos)
		pos += copy(out[pos:], v.value(int(i)))
	}
	off[len(idx)] = int64(pos)
	return offsets, data
}
