package exec

import (
	"testing"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// TestDropTrue removes the conjuncts a predicate calls always true from
// nested and n-ary conjunctions, keeps every other shape whole, and
// reports an empty conjunction as nil.
func TestDropTrue(t *testing.T) {
	boolean := types.DataType{Kind: types.Boolean}
	long := types.DataType{Kind: types.Long}
	col := func(i int) *expr.Expr { return expr.Column(i, "c", long) }
	nn := func(i int) *expr.Expr { return expr.Call(expr.OpIsNotNull, boolean, col(i)) }
	and := func(xs ...*expr.Expr) *expr.Expr { return expr.Call(expr.OpAnd, boolean, xs...) }
	gt := expr.Call(expr.OpGt, boolean, col(2), expr.Literal(int64(1), long))
	required := func(e *expr.Expr) bool { // isnotnull of columns 0 and 1
		return e.Op == expr.OpIsNotNull && e.Args[0].Op == expr.OpColumn && e.Args[0].Col < 2
	}
	cases := []struct {
		name string
		in   *expr.Expr
		want string // "" for nil
	}{
		{"all dropped", and(nn(0), and(nn(1), nn(0))), ""},
		{"one left of a pair", and(nn(0), gt), gt.String()},
		{"n-ary", and(nn(0), gt, nn(3), nn(1)), and(gt, nn(3)).String()},
		{"nested", and(and(nn(0), nn(3)), gt), and(nn(3), gt).String()},
		{"untouched", and(nn(3), gt), and(nn(3), gt).String()},
		{"not a conjunction", expr.Call(expr.OpOr, boolean, nn(0), gt), expr.Call(expr.OpOr, boolean, nn(0), gt).String()},
		{"a lone test", nn(1), ""},
	}
	for _, c := range cases {
		got := dropTrue(c.in, required)
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: got %s, want nothing", c.name, got)
		case c.want != "" && (got == nil || got.String() != c.want):
			t.Errorf("%s: got %v, want %s", c.name, got, c.want)
		}
	}
	in := and(nn(3), gt)
	if dropTrue(in, required) != in {
		t.Error("an unchanged conjunction was copied")
	}
}
