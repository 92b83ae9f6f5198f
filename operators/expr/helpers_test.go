package expr

import (
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

// Shorthands for building test expressions.
var (
	tBool = types.BooleanType
	tInt  = types.IntType
	tLong = types.LongType
	tDbl  = types.DoubleType
	tDate = types.DateType
	tTS   = types.TimestampType
	tStr  = types.StringType
	tNull = types.NullType
)

func tDec(p, s int) types.DataType { return types.DecimalOf(p, s) }

// null is a NULL literal of type t.
func null(t types.DataType) *Expr { return Literal(nil, t) }

func b(v bool) *Expr      { return Literal(v, tBool) }
func i32(v int32) *Expr   { return Literal(v, tInt) }
func i64(v int64) *Expr   { return Literal(v, tLong) }
func f64(v float64) *Expr { return Literal(v, tDbl) }
func str(v string) *Expr  { return Literal(v, tStr) }
func date(s string) *Expr { return Literal(mustDate(s), tDate) }
func ts(v int64) *Expr    { return Literal(v, tTS) }
func bigOf(s string) *big.Int {
	u, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("bad big int " + s)
	}
	return u
}

// decLit is a decimal literal written as its digits: decLit("-12.34", 5, 2).
func decLit(s string, p, sc int) *Expr {
	u, scale, ok := parseDecimalDigits(s)
	if !ok || scale > sc {
		panic("bad decimal literal " + s)
	}
	return Literal(rescale(u, scale, sc), tDec(p, sc))
}

// decVal is the expected unscaled value of a decimal result "12.30" at scale sc.
func decVal(s string, sc int) *big.Int {
	u, scale, ok := parseDecimalDigits(s)
	if !ok || scale > sc {
		panic("bad decimal " + s)
	}
	return rescale(u, scale, sc)
}

func mustDate(s string) int32 {
	d, ok := ParseSparkDate(s)
	if !ok {
		panic("bad date " + s)
	}
	return d
}

// emptyRecord has no columns and n rows, for evaluating literal trees.
func emptyRecord(n int) arrow.Record {
	return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, int64(n))
}

// evalOne evaluates e on a one-row record without columns, checking that
// all memory is released, and returns the row's value.
func evalOne(t *testing.T, e *Expr) any {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := emptyRecord(1)
	defer rec.Release()
	out, err := Eval(e, rec, mem)
	if err != nil {
		t.Fatalf("Eval(%s): %v", e, err)
	}
	defer out.Release()
	want, _ := types.ToArrow(e.Type)
	if !arrow.TypeEqual(out.DataType(), want) {
		t.Fatalf("Eval(%s): result type %s, want %s", e, out.DataType(), want)
	}
	return ValueAt(out, 0)
}

// sameValue compares evaluator values exactly: NaN equals NaN, -0.0 differs
// from 0.0, decimals compare by unscaled value.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return x == y && math.Signbit(x) == math.Signbit(y)
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	}
	return a == b
}

// evalCase is one row of an evaluation table.
type evalCase struct {
	name string
	e    *Expr
	want any
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, c := range cases {
		name := c.name
		if name == "" {
			name = c.e.String()
		}
		t.Run(name, func(t *testing.T) {
			got := evalOne(t, c.e)
			if !sameValue(got, c.want) {
				t.Errorf("%s = %v (%T), want %v (%T)", c.e, show(got), got, show(c.want), c.want)
			}
		})
	}
}

func show(v any) any {
	if u, ok := v.(*big.Int); ok {
		return u.String()
	}
	return v
}
