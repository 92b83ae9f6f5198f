package arrowsize_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/arrowsize"
)

func TestData(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	ints := func() arrow.Array {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues([]int64{1, 2, 3, 4}, []bool{true, false, true, true})
		return b.NewArray()
	}
	strs := func() arrow.Array {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues([]string{"ab", "cde"}, nil)
		return b.NewArray()
	}
	list := func() arrow.Array {
		b := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
		defer b.Release()
		b.Append(true)
		b.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{7, 8}, nil)
		return b.NewArray()
	}
	dict := func() arrow.Array {
		b := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8,
			ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
		defer b.Release()
		for _, s := range []string{"x", "y", "x"} {
			if err := b.AppendString(s); err != nil {
				t.Fatal(err)
			}
		}
		return b.NewArray()
	}
	bufs := func(a arrow.Array) int64 { // the array's own buffers only
		var n int64
		for _, b := range a.Data().Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		return n
	}
	for _, tc := range []struct {
		name string
		make func() arrow.Array
		// more is what the size adds to the array's own buffers.
		more func(a arrow.Array) int64
	}{
		{"int64 with nulls", ints, func(arrow.Array) int64 { return 0 }},
		{"string", strs, func(arrow.Array) int64 { return 0 }},
		{"list counts its values", list, func(a arrow.Array) int64 { return bufs(a.(*array.List).ListValues()) }},
		{"dictionary counts its values", dict, func(a arrow.Array) int64 { return bufs(a.(*array.Dictionary).Dictionary()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.make()
			defer a.Release()
			want := bufs(a) + tc.more(a)
			if got := arrowsize.Data(a.Data()); got != want || got <= 0 {
				t.Errorf("Data = %d, want %d (> 0)", got, want)
			}
			rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "a", Type: a.DataType()},
				{Name: "b", Type: a.DataType()}}, nil), []arrow.Array{a, a}, int64(a.Len()))
			defer rec.Release()
			if got := arrowsize.Record(rec); got != 2*want {
				t.Errorf("Record = %d, want %d (each column counted)", got, 2*want)
			}
		})
	}
}
