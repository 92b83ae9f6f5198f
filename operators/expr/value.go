package expr

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// The reference evaluator works on one row at a time with plain Go values,
// the same representation literals use (see Expr): nil is NULL, boolean is
// bool, int is int32, bigint is int64, double is float64, decimal is a
// *big.Int holding the unscaled value (the scale is the expression Type's),
// date is int32 days, timestamp is int64 microseconds (UTC), string is
// string. Values are never mutated once made, so they may be shared.

// rowReader returns a function reading row i of arr as an evaluator value.
// It accepts the Arrow encodings hados feeds operators: bool, int32, int64,
// float64, date32, timestamp, decimal64, decimal128, utf8, large_utf8,
// utf8_view, dictionary<utf8> and null. The strings it returns may alias
// arr's buffers: they are valid while arr is.
func rowReader(arr arrow.Array) (func(i int) any, error) {
	var get func(i int) any
	switch a := arr.(type) {
	case *array.Null:
		return func(int) any { return nil }, nil
	case *array.Boolean:
		get = func(i int) any { return a.Value(i) }
	case *array.Int32:
		get = func(i int) any { return a.Value(i) }
	case *array.Int64:
		get = func(i int) any { return a.Value(i) }
	case *array.Float64:
		get = func(i int) any { return a.Value(i) }
	case *array.Date32:
		get = func(i int) any { return int32(a.Value(i)) }
	case *array.Timestamp:
		get = func(i int) any { return int64(a.Value(i)) }
	case *array.Decimal64:
		get = func(i int) any { return big.NewInt(int64(a.Value(i))) }
	case *array.Decimal128:
		get = func(i int) any { return a.Value(i).BigInt() }
	case *array.String:
		get = func(i int) any { return a.Value(i) }
	case *array.LargeString:
		get = func(i int) any { return a.Value(i) }
	case *array.StringView:
		get = func(i int) any { return a.Value(i) }
	case *array.Dictionary:
		dict, err := rowReader(a.Dictionary())
		if err != nil {
			return nil, fmt.Errorf("dictionary values: %w", err)
		}
		if !readableArrow(a.DataType()) {
			return nil, fmt.Errorf("dictionary of %s: only dictionaries of utf8 or fixed-width values are supported", a.Dictionary().DataType())
		}
		get = func(i int) any { return dict(a.GetValueIndex(i)) }
	default:
		return nil, fmt.Errorf("arrow type %s is not supported by the reference evaluator", arr.DataType())
	}
	return func(i int) any {
		if arr.IsNull(i) {
			return nil
		}
		return get(i)
	}, nil
}

// appendValue appends v (nil: NULL) to b. v must be the Go value of b's
// type (see rowReader); decimals must fit the builder's precision.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	ok := true
	switch b := b.(type) {
	case *array.BooleanBuilder:
		x, k := v.(bool)
		ok = k
		b.Append(x)
	case *array.Int32Builder:
		x, k := v.(int32)
		ok = k
		b.Append(x)
	case *array.Int64Builder:
		x, k := v.(int64)
		ok = k
		b.Append(x)
	case *array.Float64Builder:
		x, k := v.(float64)
		ok = k
		b.Append(x)
	case *array.Date32Builder:
		x, k := v.(int32)
		ok = k
		b.Append(arrow.Date32(x))
	case *array.TimestampBuilder:
		x, k := v.(int64)
		ok = k
		b.Append(arrow.Timestamp(x))
	case *array.Decimal64Builder:
		x, k := v.(*big.Int)
		if !k || !x.IsInt64() {
			return fmt.Errorf("value %v does not fit decimal64", v)
		}
		b.Append(decimal.Decimal64(x.Int64()))
	case *array.Decimal128Builder:
		x, k := v.(*big.Int)
		if !k || x.BitLen() > 127 {
			return fmt.Errorf("value %v does not fit decimal128", v)
		}
		b.Append(decimal128.FromBigInt(x))
	case *array.StringBuilder:
		x, k := v.(string)
		ok = k
		b.Append(x)
	case *array.LargeStringBuilder:
		x, k := v.(string)
		ok = k
		b.Append(x)
	case *array.StringViewBuilder:
		x, k := v.(string)
		ok = k
		b.Append(x)
	case *array.BinaryDictionaryBuilder:
		x, k := v.(string)
		ok = k
		if k {
			if err := b.AppendString(x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("builder %T is not supported by the reference evaluator", b)
	}
	if !ok {
		return fmt.Errorf("value %v (%T) does not match builder %T", v, v, b)
	}
	return nil
}

// ValueAt returns row i of arr as the Go value the evaluator uses (nil for
// NULL): bool, int32 (int and date), int64 (bigint and timestamp),
// float64, *big.Int (decimal unscaled) or string. It is meant for tests
// comparing device output with Eval's. Unsupported Arrow types panic.
func ValueAt(arr arrow.Array, i int) any {
	get, err := rowReader(arr)
	if err != nil {
		panic(err)
	}
	return get(i)
}
