package operators_test

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// TestDecimal38CappedArithOverflow: a product or quotient whose Spark type
// is capped at 38 digits may be exact in 128 bits yet have more than 38
// digits (10^19 * 10^19 = 10^38 < 2^127): Spark's CheckOverflow makes it
// null (non-ANSI), on the device as in the reference; values with 38
// digits stay.
func TestDecimal38CappedArithOverflow(t *testing.T) {
	d20 := &arrow.Decimal128Type{Precision: 20, Scale: 0}
	d38 := &arrow.Decimal128Type{Precision: 38, Scale: 0}
	d38s37 := &arrow.Decimal128Type{Precision: 38, Scale: 37}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: d20, Nullable: true}, {Name: "b", Type: d20, Nullable: true},
		{Name: "n", Type: d38, Nullable: true}, {Name: "q", Type: d38s37, Nullable: true},
	}, nil)
	pow := func(e int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(e), nil) }
	dec := func(v *big.Int) decimal128.Num { return decimal128.FromBigInt(v) }
	nines := new(big.Int).Sub(pow(19), big.NewInt(1))
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	// rows: 10^19 * 10^19 (39 digits: null); (10^19-1)^2 (38 digits);
	// -10^19 * 10^19 (null); 5 * 7; null
	b.Field(0).(*array.Decimal128Builder).AppendValues([]decimal128.Num{dec(pow(19)), dec(nines), dec(new(big.Int).Neg(pow(19))), dec(big.NewInt(5)), {}}, []bool{true, true, true, true, false})
	b.Field(1).(*array.Decimal128Builder).AppendValues([]decimal128.Num{dec(pow(19)), dec(nines), dec(pow(19)), dec(big.NewInt(7)), {}}, []bool{true, true, true, true, false})
	// n / q with q = 1.0 (unscaled 10^37): decimal(38,6); 10^32 / 1 has 39
	// digits at scale 6 (null), 10^31 / 1 has 38
	b.Field(2).(*array.Decimal128Builder).AppendValues([]decimal128.Num{dec(pow(32)), dec(pow(31)), dec(new(big.Int).Neg(pow(32))), dec(big.NewInt(35)), {}}, []bool{true, true, true, true, false})
	b.Field(3).(*array.Decimal128Builder).AppendValues([]decimal128.Num{dec(pow(37)), dec(pow(37)), dec(pow(37)), dec(pow(37)), {}}, []bool{true, true, true, true, false})
	col := func(i int, name string, dt arrow.DataType) *expr.Expr {
		d := dt.(*arrow.Decimal128Type)
		return expr.Column(i, name, types.DecimalOf(int(d.Precision), int(d.Scale)))
	}
	proj := []*expr.Expr{
		expr.Call(expr.OpMul, types.DecimalOf(38, 0), col(0, "a", d20), col(1, "b", d20)),
		expr.Call(expr.OpDiv, types.DecimalOf(38, 6), col(2, "n", d38), col(3, "q", d38s37)),
	}
	sides := runProjection(t, b.NewRecord(), proj)
	want := fmt.Sprint(sides["reference"])
	if want != "[[<nil> <nil>] [99999999999999999980000000000000000001 10000000000000000000000000000000000000] [<nil> <nil>] [35 35000000] [<nil> <nil>]]" {
		t.Fatalf("reference: %s", want)
	}
	for side, rows := range sides {
		if got := fmt.Sprint(rows); got != want {
			t.Errorf("%s: %s, want %s", side, got, want)
		}
	}
}
