package exchange

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// allTypesSchema has one column of every type the exchange handles.
var allTypesSchema = arrow.NewSchema([]arrow.Field{
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "dec64", Type: &arrow.Decimal64Type{Precision: 10, Scale: 2}, Nullable: true},
	{Name: "dec128s", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
	{Name: "dec128", Type: &arrow.Decimal128Type{Precision: 24, Scale: 3}, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "dict", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
}, nil)

var words = []string{"", "a", "ab", "abc", "abcd", "hello", "hello world", "Spark", "DPU", "1998-09-02", "naïve", "\xff\x00\xc8"}

// randomRecord builds rows of allTypesSchema with about nullFrac nulls.
// Floats include NaN, -0.0 and infinities. The caller releases it.
func randomRecord(t testing.TB, rng *rand.Rand, mem memory.Allocator, rows int, nullFrac float64) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(mem, allTypesSchema)
	defer b.Release()
	floats := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1.5, -2.25, 123.456}
	for r := 0; r < rows; r++ {
		for c, fb := range b.Fields() {
			if rng.Float64() < nullFrac {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.BooleanBuilder:
				fb.Append(rng.IntN(2) == 1)
			case *array.Int8Builder:
				fb.Append(int8(rng.IntN(256) - 128))
			case *array.Int16Builder:
				fb.Append(int16(rng.IntN(1<<16) - 1<<15))
			case *array.Int32Builder:
				fb.Append(int32(rng.Uint32()) >> rng.IntN(32))
			case *array.Int64Builder:
				fb.Append(int64(rng.Uint64()) >> rng.IntN(64))
			case *array.Date32Builder:
				fb.Append(arrow.Date32(rng.IntN(20000) - 5000))
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(rng.Int64N(4e15) - 1e15))
			case *array.Float32Builder:
				if rng.IntN(3) == 0 {
					fb.Append(float32(floats[rng.IntN(len(floats))]))
				} else {
					fb.Append(float32(rng.NormFloat64() * 1000))
				}
			case *array.Float64Builder:
				if rng.IntN(3) == 0 {
					fb.Append(floats[rng.IntN(len(floats))])
				} else {
					fb.Append(rng.NormFloat64() * 1e6)
				}
			case *array.Decimal64Builder:
				fb.Append(decimal.Decimal64(rng.Int64N(2e10) - 1e10))
			case *array.Decimal128Builder:
				if allTypesSchema.Field(c).Type.(*arrow.Decimal128Type).Precision <= 18 {
					fb.Append(decimal128.FromI64(rng.Int64N(2e12) - 1e12))
				} else {
					fb.Append(decimal128.New(rng.Int64N(2000)-1000, rng.Uint64()))
				}
			case *array.StringBuilder:
				fb.Append(words[rng.IntN(len(words))])
			case *array.BinaryBuilder:
				buf := make([]byte, rng.IntN(12))
				for i := range buf {
					buf[i] = byte(rng.Uint32())
				}
				fb.Append(buf)
			case *array.LargeStringBuilder:
				fb.Append(words[rng.IntN(len(words))])
			case *array.BinaryDictionaryBuilder:
				if err := fb.AppendString(words[rng.IntN(len(words))]); err != nil {
					t.Fatal(err)
				}
			default:
				t.Fatalf("no generator for %T", fb)
			}
		}
	}
	return b.NewRecordBatch()
}

// checkedMem returns an allocator the test checks is back to zero.
func checkedMem(t testing.TB) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// sameRows reports whether two records hold the same values (NaN equal to
// NaN), as a descriptive error.
func sameRows(want, got arrow.RecordBatch) error {
	if want.NumRows() != got.NumRows() || want.NumCols() != got.NumCols() {
		return fmt.Errorf("shape %dx%d, want %dx%d", got.NumRows(), got.NumCols(), want.NumRows(), want.NumCols())
	}
	for c := 0; c < int(want.NumCols()); c++ {
		if !array.ApproxEqual(want.Column(c), got.Column(c), array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			return fmt.Errorf("column %s differs:\n got %v\nwant %v", want.ColumnName(c), got.Column(c), want.Column(c))
		}
	}
	return nil
}
