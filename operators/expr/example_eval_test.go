package expr_test

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// Evaluate price * 1.5 over a decimal(7,2) column the way Spark would:
// the result type comes from types.Arithmetic, NULL stays NULL.
func ExampleEval() {
	mem := memory.NewGoAllocator()
	priceType := &arrow.Decimal64Type{Precision: 7, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{{Name: "price", Type: priceType, Nullable: true}}, nil)
	b := array.NewDecimal64Builder(mem, priceType)
	b.AppendValues([]decimal.Decimal64{1999, 5}, nil) // 19.99, 0.05
	b.AppendNull()
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	col.Release()
	defer rec.Release()

	price := expr.Column(0, "price", types.DecimalOf(7, 2))
	rate := expr.Decimal(15, 2, 1)
	t, _ := types.Arithmetic("*", price.Type, rate.Type)
	e := expr.Call(expr.OpMul, t, price, rate)

	out, err := expr.Eval(e, rec, mem)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer out.Release() // the caller owns Eval's result
	fmt.Println(e, "::", e.Type)
	for i := 0; i < out.Len(); i++ {
		if v := expr.ValueAt(out, i); v != nil {
			fmt.Println(expr.FormatJavaDecimal(v.(*big.Int), e.Type.Scale))
		} else {
			fmt.Println("NULL")
		}
	}
	// Output:
	// (price * 1.5) :: decimal(10,3)
	// 29.985
	// 0.075
	// NULL
}
