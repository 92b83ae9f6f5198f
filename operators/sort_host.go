package operators

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/exchange"
)

// Host-side row comparison and copying for the spilled sort's k-way merge
// of sorted runs read back from disk (the device does every in-memory
// sort). Runs hold the sort's output layout: utf8 strings, no
// dictionaries.

// hostKey compares row i of array a with row j of array b (same type) as
// Spark's SortOrder does: nulls first or last, then the value ascending or
// descending (NaN greatest, -0.0 = 0.0, strings as unsigned bytes).
type hostKey struct {
	col        int
	desc       bool
	nullsFirst bool
	cmp        func(a, b arrow.Array, i, j int) int
}

func newHostKey(col int, dt arrow.DataType, desc, nullsFirst bool) (hostKey, error) {
	k := hostKey{col: col, desc: desc, nullsFirst: nullsFirst}
	switch dt.ID() {
	case arrow.BOOL:
		k.cmp = func(a, b arrow.Array, i, j int) int {
			return exchange.CompareBool(a.(*array.Boolean).Value(i), b.(*array.Boolean).Value(j))
		}
	case arrow.INT32:
		k.cmp = cmpValues[int32, *array.Int32]
	case arrow.DATE32:
		k.cmp = cmpValues[arrow.Date32, *array.Date32]
	case arrow.INT64:
		k.cmp = cmpValues[int64, *array.Int64]
	case arrow.TIMESTAMP:
		k.cmp = cmpValues[arrow.Timestamp, *array.Timestamp]
	case arrow.DECIMAL64:
		k.cmp = cmpValues[decimal.Decimal64, *array.Decimal64]
	case arrow.DECIMAL128:
		k.cmp = func(a, b arrow.Array, i, j int) int {
			return a.(*array.Decimal128).Value(i).Cmp(b.(*array.Decimal128).Value(j))
		}
	case arrow.FLOAT64:
		k.cmp = func(a, b arrow.Array, i, j int) int {
			return exchange.CompareDouble(a.(*array.Float64).Value(i), b.(*array.Float64).Value(j))
		}
	case arrow.STRING:
		k.cmp = func(a, b arrow.Array, i, j int) int {
			return bytes.Compare(strBytes(a.(*array.String), i), strBytes(b.(*array.String), j))
		}
	case arrow.LARGE_STRING:
		k.cmp = func(a, b arrow.Array, i, j int) int {
			return strings.Compare(a.(*array.LargeString).Value(i), b.(*array.LargeString).Value(j))
		}
	case arrow.DICTIONARY:
		if dt.(*arrow.DictionaryType).ValueType.ID() != arrow.STRING {
			return k, fmt.Errorf("%w: sort key of type %s", ErrUnsupportedType, dt)
		}
		k.cmp = func(a, b arrow.Array, i, j int) int {
			da, db := a.(*array.Dictionary), b.(*array.Dictionary)
			return strings.Compare(da.Dictionary().(*array.String).Value(da.GetValueIndex(i)),
				db.Dictionary().(*array.String).Value(db.GetValueIndex(j)))
		}
	default:
		return k, fmt.Errorf("%w: sort key of type %s", ErrUnsupportedType, dt)
	}
	return k, nil
}

func strBytes(a *array.String, i int) []byte {
	o := a.ValueOffsets()
	return a.ValueBytes()[o[i]-o[0] : o[i+1]-o[0]]
}

// cmpValues compares row i of a with row j of b, arrays of type A holding
// ordered values T.
func cmpValues[T cmp.Ordered, A interface{ Value(int) T }](a, b arrow.Array, i, j int) int {
	return cmp.Compare(a.(A).Value(i), b.(A).Value(j))
}

// cmpHostRows compares row i of record x with row j of record y by the keys.
func cmpHostRows(keys []hostKey, x arrow.Record, i int, y arrow.Record, j int) int {
	for _, k := range keys {
		a, b := x.Column(k.col), y.Column(k.col)
		na, nb := a.IsNull(i), b.IsNull(j)
		if na || nb {
			if na == nb {
				continue
			}
			r := 1
			if na {
				r = -1
			}
			if !k.nullsFirst {
				r = -r
			}
			return r
		}
		if r := k.cmp(a, b, i, j); r != 0 {
			if k.desc {
				return -r
			}
			return r
		}
	}
	return 0
}

// appendRow appends row i of src to b (same type).
func appendRow(b array.Builder, src arrow.Array, i int) {
	if src.IsNull(i) {
		b.AppendNull()
		return
	}
	switch s := src.(type) {
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(s.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(s.Value(i))
	case *array.Date32:
		b.(*array.Date32Builder).Append(s.Value(i))
	case *array.Int64:
		b.(*array.Int64Builder).Append(s.Value(i))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(s.Value(i))
	case *array.Decimal64:
		b.(*array.Decimal64Builder).Append(s.Value(i))
	case *array.Decimal128:
		b.(*array.Decimal128Builder).Append(s.Value(i))
	case *array.Float64:
		b.(*array.Float64Builder).Append(s.Value(i))
	case *array.String:
		b.(*array.StringBuilder).BinaryBuilder.Append(strBytes(s, i))
	default:
		panic(fmt.Sprintf("operators: appendRow: unexpected %T", src)) // runs hold only the types above
	}
}

// checkHostTypes reports a column type the spilled merge cannot copy.
func checkHostTypes(s *arrow.Schema) error {
	for _, f := range s.Fields() {
		switch f.Type.ID() {
		case arrow.BOOL, arrow.INT32, arrow.DATE32, arrow.INT64, arrow.TIMESTAMP, arrow.DECIMAL64, arrow.DECIMAL128,
			arrow.FLOAT64, arrow.STRING:
		default:
			return fmt.Errorf("%w: column %s of type %s in a spilled sort", device.ErrNotSupported, f.Name, f.Type)
		}
	}
	return nil
}
