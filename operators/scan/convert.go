package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// convert returns arr as an array of type to, allocating from mem when the
// layout changes; the caller releases the result (arr is not consumed).
//
// pqarrow decodes every decimal to decimal128 and keeps the Parquet
// timestamp unit; hados wants types.ToArrow's layout (decimal64 up to
// precision 18, timestamp[us]). A zone-only difference is a relabelling
// that shares the buffers.
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
			d := arr.Data()
			nd := array.NewData(to, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
			defer nd.Release()
			return array.MakeFromData(nd), nil
		}
		b := array.NewTimestampBuilder(mem, to)
		defer b.Release()
		b.Reserve(src.Len())
		for i := 0; i < src.Len(); i++ {
			if src.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(arrow.Timestamp(toMicros(int64(src.Value(i)))))
			}
		}
		return b.NewArray(), nil
	case *arrow.Decimal64Type:
		src, ok := arr.(*array.Decimal128)
		if !ok {
			break
		}
		b := array.NewDecimal64Builder(mem, to)
		defer b.Release()
		b.Reserve(src.Len())
		for i := 0; i < src.Len(); i++ {
			if src.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(decimal.Decimal64(int64(src.Value(i).LowBits())))
			}
		}
		return b.NewArray(), nil
	}
	return nil, fmt.Errorf("%w: cannot convert decoded %s to %s", ErrSchemaMismatch, from, to)
}
