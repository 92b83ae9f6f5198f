package operators_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// TestCastIntToDecimal38Overflow: an integer cast to decimal(38, s) whose
// digits plus s pass 38 gives null (Spark's non-ANSI cast), not a value
// of 39 digits, on the device as in the reference.
func TestCastIntToDecimal38Overflow(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1e18, 99999999999999999, -1e18, 5, 0}, []bool{true, true, true, true, false})
	b.Field(1).(*array.Int32Builder).AppendValues([]int32{100000000, 9999999, -100000000, 5, 0}, []bool{true, true, true, true, false})
	l, i := expr.Column(0, "l", types.LongType), expr.Column(1, "i", types.IntType)
	proj := []*expr.Expr{
		expr.Call(expr.OpCast, types.DecimalOf(38, 20), l),
		expr.Call(expr.OpCast, types.DecimalOf(38, 30), i),
	}
	sides := runProjection(t, b.NewRecord(), proj)
	want := "[[<nil> <nil>] [9999999999999999900000000000000000000 9999999000000000000000000000000000000] [<nil> <nil>] [500000000000000000000 5000000000000000000000000000000] [<nil> <nil>]]"
	for side, rows := range sides {
		if got := fmt.Sprint(rows); got != want {
			t.Errorf("%s: %s, want %s", side, got, want)
		}
	}
}
