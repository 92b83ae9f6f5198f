package scan

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

// partValue is a typed partition value: a datum in the column's domain, or null.
type partValue struct {
	v      datum
	isNull bool
}

// parsePartition types a partition directory value as Spark does for a
// user-given partition schema; __HIVE_DEFAULT_PARTITION__ is null.
func parsePartition(t types.DataType, raw string) (partValue, error) {
	if raw == hiveNull {
		return partValue{isNull: true}, nil
	}
	bad := func(err error) (partValue, error) {
		return partValue{}, fmt.Errorf("partition value %q is not a valid %s: %v", raw, t, err)
	}
	switch t.Kind {
	case types.Boolean:
		b, err := strconv.ParseBool(strings.ToLower(raw))
		if err != nil {
			return bad(err)
		}
		return partValue{v: b}, nil
	case types.Byte, types.Short, types.Int, types.Long:
		bits := map[types.Kind]int{types.Byte: 8, types.Short: 16, types.Int: 32, types.Long: 64}[t.Kind]
		i, err := strconv.ParseInt(raw, 10, bits)
		if err != nil {
			return bad(err)
		}
		return partValue{v: i}, nil
	case types.Float, types.Double:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return bad(err)
		}
		if t.Kind == types.Float {
			f = float64(float32(f))
		}
		return partValue{v: f}, nil
	case types.Decimal:
		r, ok := new(big.Rat).SetString(raw)
		if !ok {
			return bad(fmt.Errorf("not a number"))
		}
		if _, err := ratUnscaled(r, t.Precision, t.Scale); err != nil {
			return bad(err)
		}
		return partValue{v: r}, nil
	case types.Date:
		d, err := time.Parse("2006-01-02", raw)
		if err != nil {
			return bad(err)
		}
		return partValue{v: int64(math.Floor(float64(d.Unix()) / 86400))}, nil
	case types.Timestamp, types.TimestampNTZ:
		ts, err := time.Parse("2006-01-02 15:04:05.999999", raw)
		if err != nil {
			return bad(err)
		}
		return partValue{v: ts.UnixMicro()}, nil
	case types.String, types.Binary:
		return partValue{v: []byte(raw)}, nil
	}
	return partValue{}, &UnsupportedTypeError{Column: "(partition)", Type: t.String()}
}

// ratUnscaled returns r × 10^scale, which must be an integer of at most
// precision digits.
func ratUnscaled(r *big.Rat, precision, scale int) (*big.Int, error) {
	x := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(scale)))
	if !x.IsInt() {
		return nil, fmt.Errorf("more than %d fractional digits", scale)
	}
	u := x.Num()
	if new(big.Int).Abs(u).Cmp(pow10(precision)) >= 0 {
		return nil, fmt.Errorf("more than %d digits", precision)
	}
	return u, nil
}

// constArray returns an array of n copies of v of Arrow type at, allocated
// from mem; the caller releases it.
func constArray(mem memory.Allocator, at arrow.DataType, v partValue, n int) arrow.Array {
	b := array.NewBuilder(mem, at)
	defer b.Release()
	b.Reserve(n)
	if v.isNull {
		b.AppendNulls(n)
		return b.NewArray()
	}
	for i := 0; i < n; i++ {
		switch b := b.(type) {
		case *array.BooleanBuilder:
			b.Append(v.v.(bool))
		case *array.Int8Builder:
			b.Append(int8(v.v.(int64)))
		case *array.Int16Builder:
			b.Append(int16(v.v.(int64)))
		case *array.Int32Builder:
			b.Append(int32(v.v.(int64)))
		case *array.Int64Builder:
			b.Append(v.v.(int64))
		case *array.Date32Builder:
			b.Append(arrow.Date32(v.v.(int64)))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(v.v.(int64)))
		case *array.Float32Builder:
			b.Append(float32(v.v.(float64)))
		case *array.Float64Builder:
			b.Append(v.v.(float64))
		case *array.Decimal64Builder:
			dt := at.(*arrow.Decimal64Type)
			u, _ := ratUnscaled(v.v.(*big.Rat), int(dt.Precision), int(dt.Scale))
			b.Append(decimal.Decimal64(u.Int64()))
		case *array.Decimal128Builder:
			dt := at.(*arrow.Decimal128Type)
			u, _ := ratUnscaled(v.v.(*big.Rat), int(dt.Precision), int(dt.Scale))
			b.Append(decimal128.FromBigInt(u))
		case *array.StringBuilder:
			b.BinaryBuilder.Append(v.v.([]byte))
		case *array.BinaryBuilder:
			b.Append(v.v.([]byte))
		default:
			panic(fmt.Sprintf("scan: no constant builder for %s", at))
		}
	}
	return b.NewArray()
}
