package scan

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestConvert: each decoded layout reaches hados's layout with its values
// and nulls, from a slice with an offset (as emit passes them).
func TestConvert(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec := &arrow.Decimal64Type{Precision: 15, Scale: 2}
	valid := []bool{true, false, true, true, false, true}
	vals := []int64{-5, 0, 123456789012, 7, 0, -1}
	build := func(b array.Builder) arrow.Array {
		defer b.Release()
		for i, v := range vals {
			if !valid[i] {
				b.AppendNull()
				continue
			}
			switch b := b.(type) {
			case *array.Int64Builder:
				b.Append(v)
			case *array.Int32Builder:
				b.Append(int32(v % 1000))
			case *array.Decimal128Builder:
				b.Append(decimal128.FromI64(v))
			case *array.TimestampBuilder:
				b.Append(arrow.Timestamp(v))
			}
		}
		return b.NewArray()
	}
	cases := []struct {
		name string
		src  arrow.Array
		to   arrow.DataType
		want func(v int64) int64
	}{
		{"int64 unscaled", build(array.NewInt64Builder(mem)), dec, func(v int64) int64 { return v }},
		{"int32 unscaled", build(array.NewInt32Builder(mem)), dec, func(v int64) int64 { return v % 1000 }},
		{"decimal128", build(array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 15, Scale: 2})), dec, func(v int64) int64 { return v }},
		{"timestamp ms", build(array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Millisecond})),
			&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, func(v int64) int64 { return v * 1000 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer c.src.Release()
			sl := array.NewSlice(c.src, 1, int64(len(vals)))
			defer sl.Release()
			out, err := convert(mem, sl, c.to, func(v int64) int64 { return v * 1000 })
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if !arrow.TypeEqual(out.DataType(), c.to) || out.Len() != len(vals)-1 {
				t.Fatalf("got %s of %d", out.DataType(), out.Len())
			}
			raw := arrow.Int64Traits.CastFromBytes(out.Data().Buffers()[1].Bytes())[out.Data().Offset():]
			for i := 0; i < out.Len(); i++ {
				j := i + 1
				if out.IsNull(i) != !valid[j] {
					t.Errorf("row %d: null %v, want %v", i, out.IsNull(i), !valid[j])
				}
				if valid[j] && raw[i] != c.want(vals[j]) {
					t.Errorf("row %d: %d, want %d", i, raw[i], c.want(vals[j]))
				}
			}
		})
	}
	days := build(array.NewInt32Builder(mem))
	defer days.Release()
	dd, err := convert(mem, days, arrow.FixedWidthTypes.Date32, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := dd.(*array.Date32); d.Len() != len(vals) || d.NullN() != 2 || d.Value(2) != arrow.Date32(vals[2]%1000) ||
		&d.Data().Buffers()[1].Bytes()[0] != &days.Data().Buffers()[1].Bytes()[0] {
		t.Errorf("int32 days to date32: %v (want relabelled, not copied)", d)
	}
	dd.Release()
	ints := build(array.NewInt64Builder(mem))
	defer ints.Release()
	if _, err := convert(mem, ints, arrow.BinaryTypes.String, nil); err == nil {
		t.Error("int64 to string converted")
	}
}
