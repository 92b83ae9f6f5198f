package exec

import (
	"testing"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// TestOverProjection rewrites keys and call arguments over a projection's
// input, shares the projected trees, leaves nil and literal arguments
// alone, and refuses a column out of range or typed unlike its expression.
func TestOverProjection(t *testing.T) {
	long := types.LongType
	dec := types.DecimalOf(15, 2)
	in0, in1 := expr.Column(0, "a", long), expr.Column(1, "p", dec)
	sum := expr.Call(expr.OpAdd, dec, in1, expr.Decimal(100, 15, 2))
	proj := []*expr.Expr{in0, sum} // the projection: a, p + 1.00
	key := expr.Column(0, "k", long)
	arg := expr.Call(expr.OpMul, types.DecimalOf(31, 4), expr.Column(1, "s", dec), expr.Column(1, "s", dec))
	calls := []operators.AggCall{
		{Func: "sum", Args: []*expr.Expr{arg}, Input: arg.Type},
		{Func: "count", Input: long},
	}
	keys, nc, ok := overProjection([]*expr.Expr{key}, calls, proj, true)
	if !ok {
		t.Fatal("refused a valid projection")
	}
	if keys[0] != in0 {
		t.Errorf("key: got %s, want the projected column itself", keys[0])
	}
	got := nc[0].Args[0]
	if got.Args[0] != sum || got.Args[1] != sum || got.Op != expr.OpMul || got.Type != arg.Type {
		t.Errorf("argument: got %s", got)
	}
	if calls[0].Args[0] != arg {
		t.Error("the original call was changed")
	}
	if len(nc[1].Args) != 0 {
		t.Errorf("count: got arguments %v", nc[1].Args)
	}
	if k, c, ok := overProjection([]*expr.Expr{key}, calls, nil, false); !ok || k[0] != key || c[0].Args[0] != arg {
		t.Error("without a projection the aggregation must be unchanged")
	}
	for name, bad := range map[string]*expr.Expr{
		"out of range": expr.Column(2, "x", long),
		"type differs": expr.Column(1, "s", long),
		"negative":     expr.Column(-1, "x", long),
	} {
		if _, _, ok := overProjection([]*expr.Expr{bad}, nil, proj, true); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}
