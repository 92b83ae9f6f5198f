package scan

import (
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

// The test table: every supported type, values increasing with the row
// number (so min/max statistics are selective), nulls sprinkled in, a few
// NaN and signed zeros, even-only integers and strings (so a value can lie
// inside [min, max] yet be absent: only dictionaries and bloom filters can
// prune it) and a low-cardinality string column.
const testRows = 1200

var testColumns = []Column{
	{Name: "id", Type: types.LongType},
	{Name: "b", Type: types.BooleanType, Nullable: true},
	{Name: "i", Type: types.IntType, Nullable: true},
	{Name: "l", Type: types.LongType, Nullable: true},
	{Name: "d", Type: types.DoubleType, Nullable: true},
	{Name: "dec10", Type: types.DecimalOf(10, 0), Nullable: true},
	{Name: "dec15", Type: types.DecimalOf(15, 2), Nullable: true},
	{Name: "dec38", Type: types.DecimalOf(38, 10), Nullable: true},
	{Name: "dt", Type: types.DateType, Nullable: true},
	{Name: "ts", Type: types.TimestampType, Nullable: true},
	{Name: "s", Type: types.StringType, Nullable: true},
	{Name: "c", Type: types.StringType, Nullable: true},
}

var fruits = []string{"apple", "banana", "cherry", "date"}

func dec128(unscaled *big.Int) decimal128.Num { return decimal128.FromBigInt(unscaled) }

func bigDec38(r int) *big.Int {
	v := new(big.Int).Mul(big.NewInt(int64(r)-1000), pow10(20))
	return v.Add(v, big.NewInt(7))
}

// testRecord builds the table; the caller releases it.
func testRecord(mem memory.Allocator) arrow.RecordBatch {
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "dec10", Type: &arrow.Decimal128Type{Precision: 10, Scale: 0}, Nullable: true},
		{Name: "dec15", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "dec38", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for r := 0; r < testRows; r++ {
		null := func(k int) bool { return r%k == k-1 }
		b.Field(0).(*array.Int64Builder).Append(int64(r))
		appendOr(b.Field(1), null(17), func(x array.Builder) { x.(*array.BooleanBuilder).Append((r/300)%2 == 1) })
		appendOr(b.Field(2), null(13), func(x array.Builder) { x.(*array.Int32Builder).Append(int32(2 * r)) })
		appendOr(b.Field(3), null(11), func(x array.Builder) { x.(*array.Int64Builder).Append(int64(r)*1000 - 500000) })
		appendOr(b.Field(4), null(19), func(x array.Builder) {
			v := float64(r)*0.5 - 100
			switch {
			case r%97 == 5:
				v = math.NaN()
			case r == 200:
				v = math.Copysign(0, -1)
			}
			x.(*array.Float64Builder).Append(v)
		})
		appendOr(b.Field(5), null(23), func(x array.Builder) { x.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r) * 3)) })
		appendOr(b.Field(6), null(29), func(x array.Builder) {
			x.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r)*101 - 50000))
		})
		appendOr(b.Field(7), null(31), func(x array.Builder) { x.(*array.Decimal128Builder).Append(dec128(bigDec38(r))) })
		appendOr(b.Field(8), null(37), func(x array.Builder) { x.(*array.Date32Builder).Append(arrow.Date32(9000 + r/4)) })
		appendOr(b.Field(9), null(41), func(x array.Builder) {
			x.(*array.TimestampBuilder).Append(arrow.Timestamp(int64(1e15) + int64(r)*3_600_000_000))
		})
		appendOr(b.Field(10), null(43), func(x array.Builder) { x.(*array.StringBuilder).Append(fmt.Sprintf("k%05d", 2*r)) })
		appendOr(b.Field(11), null(7), func(x array.Builder) { x.(*array.StringBuilder).Append(fruits[(r/150)%4]) })
	}
	return b.NewRecordBatch()
}

func appendOr(b array.Builder, null bool, f func(array.Builder)) {
	if null {
		b.AppendNull()
		return
	}
	f(b)
}

func dec(unscaled int64, scale int) Decimal {
	return Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
}

// testFilters is the predicate matrix: every filter form on every column type.
func testFilters() []Filter {
	var fs []Filter
	add := func(col string, lo, mid, absent, hi Value, others ...Filter) {
		fs = append(fs,
			IsNull{col}, IsNotNull{col},
			EqualTo{col, mid}, EqualTo{col, absent}, EqualTo{col, hi}, EqualTo{col, nil},
			EqualNullSafe{col, mid}, EqualNullSafe{col, nil}, Not{EqualNullSafe{col, mid}},
			GreaterThan{col, hi}, GreaterThanOrEqual{col, mid}, LessThan{col, lo}, LessThanOrEqual{col, lo},
			In{col, []Value{lo, absent}}, In{col, []Value{absent, nil}}, In{col, []Value{hi}},
			Not{In{col, []Value{lo, mid}}}, Not{In{col, []Value{mid, nil}}},
			Not{EqualTo{col, mid}}, Not{GreaterThan{col, lo}},
			And{GreaterThan{col, lo}, LessThan{col, mid}},
			Or{LessThan{col, lo}, EqualTo{col, hi}},
			Not{And{IsNotNull{col}, GreaterThanOrEqual{col, lo}}},
		)
		fs = append(fs, others...)
	}
	add("b", false, true, true, true)
	add("i", int32(10), int32(1000), int32(1001), int32(5000))
	add("l", int64(-490000), int64(0), int64(1), int64(2_000_000))
	add("d", -95.0, 0.0, 0.25, 1000.0,
		EqualTo{"d", math.NaN()}, GreaterThan{"d", 800.0}, LessThan{"d", math.NaN()},
		EqualTo{"d", math.Copysign(0, -1)}, GreaterThanOrEqual{"d", math.NaN()},
		Not{EqualTo{"d", math.NaN()}}, In{"d", []Value{math.NaN(), 5.0}})
	add("dec10", dec(30, 0), dec(3000, 0), dec(3001, 0), dec(9000, 0), EqualTo{"dec10", dec(30000, 1)})
	add("dec15", dec(-49000, 2), dec(1, 0), dec(51, 2), dec(1_000_000, 2), LessThan{"dec15", int64(-400)})
	add("dec38", Decimal{bigDec38(10), 10}, Decimal{bigDec38(1000), 10}, Decimal{bigDec38(1001).Add(bigDec38(1001), big.NewInt(1)), 10},
		Decimal{bigDec38(1999), 10})
	add("dt", Date(9010), Date(9250), Date(8000), Date(9499))
	add("ts", Timestamp(1e15+10*3_600_000_000), Timestamp(1e15+1000*3_600_000_000), Timestamp(1e15+1),
		Timestamp(1e15+1999*3_600_000_000))
	add("s", "k00020", "k02000", "k02001", "k03998",
		StringStartsWith{"s", "k001"}, StringStartsWith{"s", "z"}, StringStartsWith{"s", "k0399"},
		StringEndsWith{"s", "98"}, StringContains{"s", "123"}, Not{StringStartsWith{"s", "k0"}},
		Not{StringStartsWith{"s", "k00"}}, Not{StringContains{"s", "0"}})
	add("c", "apple", "banana", "avocado", "date",
		StringStartsWith{"c", "ch"}, StringEndsWith{"c", "na"}, Not{StringStartsWith{"c", "b"}})
	fs = append(fs,
		And{EqualTo{"c", "cherry"}, LessThan{"i", int32(100)}},
		Or{EqualTo{"s", "k00002"}, GreaterThan{"l", int64(600_000)}},
		Not{Or{IsNull{"dt"}, LessThan{"dt", Date(9250)}}},
	)
	return fs
}
