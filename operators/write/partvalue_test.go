package write

import (
	"errors"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestJavaFloatString(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		bits int
		want string
	}{
		{1, 64, "1.0"},
		{-1.5, 64, "-1.5"},
		{0, 64, "0.0"},
		{math.Copysign(0, -1), 64, "-0.0"},
		{100, 64, "100.0"},
		{123456.789, 64, "123456.789"},
		{9999999, 64, "9999999.0"},
		{1e7, 64, "1.0E7"},
		{1.25e10, 64, "1.25E10"},
		{0.001, 64, "0.001"},
		{0.0001, 64, "1.0E-4"},
		{0.00012, 64, "1.2E-4"},
		{0.30000000000000004, 64, "0.30000000000000004"},
		{math.MaxFloat64, 64, "1.7976931348623157E308"},
		{math.NaN(), 64, "NaN"},
		{math.Inf(1), 64, "Infinity"},
		{math.Inf(-1), 64, "-Infinity"},
		{float64(float32(0.1)), 32, "0.1"},
		{float64(float32(3.4e38)), 32, "3.4E38"},
		{float64(float32(1.1)), 32, "1.1"},
	} {
		if got := javaFloatString(tc.v, tc.bits); got != tc.want {
			t.Errorf("javaFloatString(%v, %d) = %q, want %q", tc.v, tc.bits, got, tc.want)
		}
	}
}

func TestJavaDecimalString(t *testing.T) {
	for _, tc := range []struct {
		unscaled int64
		scale    int32
		want     string
	}{
		{0, 0, "0"},
		{12345, 2, "123.45"},
		{-12345, 2, "-123.45"},
		{5, 2, "0.05"},
		{0, 2, "0.00"},
		{1, 6, "0.000001"},
		{1, 7, "1E-7"},
		{10, 8, "1.0E-7"},
		{-123, 10, "-1.23E-8"},
		{123, 0, "123"},
	} {
		if got := javaDecimalString(big.NewInt(tc.unscaled), tc.scale); got != tc.want {
			t.Errorf("javaDecimalString(%d, %d) = %q, want %q", tc.unscaled, tc.scale, got, tc.want)
		}
	}
}

func TestFormatDateTime(t *testing.T) {
	for _, tc := range []struct {
		days int64
		want string
	}{
		{0, "1970-01-01"}, {-1, "1969-12-31"}, {19723, "2024-01-01"},
		{-719162, "0001-01-01"}, {2932896, "9999-12-31"}, {2932897, "+10000-01-01"},
	} {
		if got := formatDate(tc.days); got != tc.want {
			t.Errorf("formatDate(%d) = %q, want %q", tc.days, got, tc.want)
		}
	}
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		la = nil
	}
	for _, tc := range []struct {
		micros int64
		zone   *time.Location
		want   string
	}{
		{0, time.UTC, "1970-01-01 00:00:00"},
		{1_500_000, time.UTC, "1970-01-01 00:00:01.5"},
		{-1, time.UTC, "1969-12-31 23:59:59.999999"},
		{1_704_067_200_000_123, time.UTC, "2024-01-01 00:00:00.000123"},
		{0, time.FixedZone("+05:30", 5*3600+1800), "1970-01-01 05:30:00"},
		{0, la, "1969-12-31 16:00:00"},
	} {
		if tc.zone == nil {
			continue // no tz database on this host
		}
		if got := formatTimestamp(tc.micros, tc.zone); got != tc.want {
			t.Errorf("formatTimestamp(%d, %s) = %q, want %q", tc.micros, tc.zone, got, tc.want)
		}
	}
}

// TestPartitionFormatter checks the value string of each partition column
// type, built through arrow arrays.
func TestPartitionFormatter(t *testing.T) {
	mem := memory.DefaultAllocator
	build := func(dt arrow.DataType, add func(array.Builder)) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		add(b)
		return b.NewArray()
	}
	tz, _ := time.LoadLocation("UTC")
	for _, tc := range []struct {
		dt   arrow.DataType
		add  func(array.Builder)
		want string
	}{
		{arrow.FixedWidthTypes.Boolean, func(b array.Builder) { b.(*array.BooleanBuilder).Append(true) }, "true"},
		{arrow.PrimitiveTypes.Int8, func(b array.Builder) { b.(*array.Int8Builder).Append(-8) }, "-8"},
		{arrow.PrimitiveTypes.Int16, func(b array.Builder) { b.(*array.Int16Builder).Append(300) }, "300"},
		{arrow.PrimitiveTypes.Int32, func(b array.Builder) { b.(*array.Int32Builder).Append(-70000) }, "-70000"},
		{arrow.PrimitiveTypes.Int64, func(b array.Builder) { b.(*array.Int64Builder).Append(1 << 40) }, "1099511627776"},
		{arrow.PrimitiveTypes.Float32, func(b array.Builder) { b.(*array.Float32Builder).Append(2.5) }, "2.5"},
		{arrow.PrimitiveTypes.Float64, func(b array.Builder) { b.(*array.Float64Builder).Append(1e-5) }, "1.0E-5"},
		{arrow.BinaryTypes.String, func(b array.Builder) { b.(*array.StringBuilder).Append("a/b") }, "a/b"},
		{arrow.BinaryTypes.LargeString, func(b array.Builder) { b.(*array.LargeStringBuilder).Append("x") }, "x"},
		{arrow.FixedWidthTypes.Date32, func(b array.Builder) { b.(*array.Date32Builder).Append(19723) }, "2024-01-01"},
		{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, func(b array.Builder) { b.(*array.TimestampBuilder).Append(1_000_001) }, "1970-01-01 00:00:01.000001"},
		{&arrow.TimestampType{Unit: arrow.Millisecond}, func(b array.Builder) { b.(*array.TimestampBuilder).Append(1_500) }, "1970-01-01 00:00:01.5"},
		{&arrow.Decimal32Type{Precision: 5, Scale: 2}, func(b array.Builder) { b.(*array.Decimal32Builder).Append(decimal.Decimal32(-105)) }, "-1.05"},
		{&arrow.Decimal64Type{Precision: 10, Scale: 2}, func(b array.Builder) { b.(*array.Decimal64Builder).Append(decimal.Decimal64(12345)) }, "123.45"},
		{&arrow.Decimal128Type{Precision: 38, Scale: 0}, func(b array.Builder) { b.(*array.Decimal128Builder).Append(decimal128.New(1, 0)) }, "18446744073709551616"},
	} {
		arr := build(tc.dt, tc.add)
		f, err := partitionFormatter(arrow.Field{Name: "p", Type: tc.dt}, tz)
		if err != nil {
			t.Fatalf("%s: %v", tc.dt, err)
		}
		if got := f(arr, 0); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.dt, got, tc.want)
		}
		arr.Release()
	}
	for _, dt := range []arrow.DataType{arrow.BinaryTypes.Binary, arrow.ListOf(arrow.PrimitiveTypes.Int32), arrow.FixedWidthTypes.Time64us} {
		if _, err := partitionFormatter(arrow.Field{Name: "p", Type: dt}, tz); !errors.Is(err, ErrNotSupported) {
			t.Errorf("%s as partition column: err %v, want ErrNotSupported", dt, err)
		}
	}
}
