package expr

import (
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

// encodingsRecord has one column per Arrow encoding the evaluator reads,
// three rows each, the middle one NULL.
func encodingsRecord(t *testing.T, mem memory.Allocator) (arrow.Record, [][]any) {
	t.Helper()
	fields := []arrow.DataType{
		arrow.FixedWidthTypes.Boolean,
		arrow.PrimitiveTypes.Int32,
		arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float64,
		arrow.FixedWidthTypes.Date32,
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		&arrow.Decimal64Type{Precision: 5, Scale: 2},
		&arrow.Decimal128Type{Precision: 38, Scale: 2},
		arrow.BinaryTypes.String,
		arrow.BinaryTypes.LargeString,
		arrow.BinaryTypes.StringView,
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String},
	}
	max38 := new(big.Int).Sub(pow10(38), big.NewInt(1))
	values := [][]any{
		{true, nil, false},
		{int32(1), nil, int32(-7)},
		{int64(1) << 40, nil, int64(-1)},
		{1.5, nil, -0.25},
		{int32(0), nil, DaysFromCivil(2100, 12, 31)},
		{int64(-1), nil, int64(1_500_000)},
		{big.NewInt(-99999), nil, big.NewInt(123)},
		{new(big.Int).Neg(max38), nil, max38},
		{"", nil, "日本"},
		{"a", nil, "😀"},
		{"view", nil, "a longer string that is not inlined"},
		{"x", nil, "x"},
	}
	var af []arrow.Field
	var cols []arrow.Array
	for i, ft := range fields {
		af = append(af, arrow.Field{Name: string(rune('a' + i)), Type: ft, Nullable: true})
		bld := array.NewBuilder(mem, ft)
		for _, v := range values[i] {
			if err := appendValue(bld, v); err != nil {
				t.Fatal(err)
			}
		}
		cols = append(cols, bld.NewArray())
		bld.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(af, nil), cols, 3)
	for _, c := range cols {
		c.Release()
	}
	return rec, values
}

func TestEvalReadsEveryEncoding(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec, values := encodingsRecord(t, mem)
	defer rec.Release()
	for c, f := range rec.Schema().Fields() {
		typ, err := types.FromArrow(f.Type)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Eval(Column(c, f.Name, typ), rec, mem)
		if err != nil {
			t.Fatalf("column %d (%s): %v", c, f.Type, err)
		}
		want, _ := types.ToArrow(typ)
		if !arrow.TypeEqual(out.DataType(), want) {
			t.Errorf("column %d: output %s, want %s", c, out.DataType(), want)
		}
		for r := 0; r < 3; r++ {
			if got := ValueAt(out, r); !sameValue(got, values[c][r]) {
				t.Errorf("column %d (%s) row %d: %v, want %v", c, f.Type, r, show(got), show(values[c][r]))
			}
		}
		out.Release()
	}
	// An expression mixing columns, row by row.
	dict := Column(11, "l", tStr)
	e := Call(OpCoalesce, tStr, Call(OpSubstring, tStr, Column(9, "j", tStr), i32(1), i32(1)), dict)
	out, err := Eval(e, rec, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	for r, want := range []any{"a", nil, "😀"} {
		if got := ValueAt(out, r); got != want {
			t.Errorf("%s row %d = %v, want %v", e, r, got, want)
		}
	}
	if got, err := EvalRow(e, rec, 2); err != nil || got != "😀" {
		t.Errorf("EvalRow = %v, %v", got, err)
	}
	if _, err := EvalRow(e, rec, 3); err == nil {
		t.Error("EvalRow out of range succeeded")
	}
}

func TestEvalEmptyRecord(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := emptyRecord(0)
	defer rec.Release()
	out, err := Eval(Call(OpAdd, tInt, i32(1), i32(2)), rec, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if out.Len() != 0 {
		t.Errorf("Len = %d", out.Len())
	}
}

func TestEvalNullTypedResult(t *testing.T) {
	if got := evalOne(t, Literal(nil, tNull)); got != nil {
		t.Errorf("NULL literal = %v", got)
	}
}
