package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// convert returns arr as an array of type to, allocating from mem when the
// layout changes; the caller releases the result (arr is not consumed).
//
// pqarrow decodes every decimal to decimal128 and keeps the Parquet
// timestamp unit; hados wants types.ToArrow's layout (decimal64 up to
// precision 18, timestamp[us]). A zone-only difference is a relabelling
// that shares the buffers, and so are an INT64 decimal column decoded as its
// unscaled integers and a DATE column decoded as its int32 days (see
// decodeMetadata). The other conversions write the 64-bit values
// in one loop over the source's values (null slots included, whatever they
// hold) and copy the validity bitmap: no per-value builder call.
func convert(mem memory.Allocator, arr arrow.Array, to arrow.DataType, toMicros func(int64) int64) (arrow.Array, error) {
	from := arr.DataType()
	if arrow.TypeEqual(from, to) {
		arr.Retain()
		return arr, nil
	}
	switch to := to.(type) {
	case *arrow.TimestampType:
		src, ok := arr.(*array.Timestamp)
		if !ok {
			break
		}
		if from.(*arrow.TimestampType).Unit == to.Unit {
			return relabel(arr, to), nil
		}
		in := src.Values()
		return narrow64(mem, arr, to, func(out []int64) {
			for i, v := range in {
				out[i] = toMicros(int64(v))
			}
		}), nil
	case *arrow.Date32Type:
		if _, ok := arr.(*array.Int32); ok { // days (decodeMetadata): same layout
			return relabel(arr, to), nil
		}
	case *arrow.Decimal64Type:
		switch src := arr.(type) {
		case *array.Int64: // unscaled values (decodeMetadata): same layout
			return relabel(arr, to), nil
		case *array.Int32:
			in := src.Int32Values()
			return narrow64(mem, arr, to, func(out []int64) {
				for i, v := range in {
					out[i] = int64(v)
				}
			}), nil
		case *array.Decimal128:
			in := src.Values()
			return narrow64(mem, arr, to, func(out []int64) {
				for i, v := range in { // precision <= 18: the value is its low 64 bits
					out[i] = int64(v.LowBits())
				}
			}), nil
		}
	}
	return nil, fmt.Errorf("%w: cannot convert decoded %s to %s", ErrSchemaMismatch, from, to)
}

// relabel returns arr's buffers as an array of type to, which has the same
// layout; the buffers are shared, not copied.
func relabel(arr arrow.Array, to arrow.DataType) arrow.Array {
	d := arr.Data()
	nd := array.NewData(to, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// narrow64 builds an array of type to (a 64-bit fixed-width layout) with
// src's length and nulls, whose values fill writes.
func narrow64(mem memory.Allocator, src arrow.Array, to arrow.DataType, fill func(out []int64)) arrow.Array {
	n := src.Len()
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(n * 8)
	defer vals.Release()
	fill(arrow.Int64Traits.CastFromBytes(vals.Bytes())[:n])
	var validity *memory.Buffer
	if src.NullN() > 0 {
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(int(bitutil.BytesForBits(int64(n))))
		defer validity.Release()
		bitutil.CopyBitmap(src.NullBitmapBytes(), src.Data().Offset(), n, validity.Bytes(), 0)
	}
	d := array.NewData(to, n, []*memory.Buffer{validity, vals}, nil, src.NullN(), 0)
	defer d.Release()
	return array.MakeFromData(d)
}
