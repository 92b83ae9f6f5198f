package operators_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// TestFilterPassThrough: a FilterProject whose condition is only
// isnotnull(column) terms and whose projections are column references
// hands a batch without nulls in those columns on as it is (the input's
// own arrays), runs the device pipeline over a batch with nulls, and
// gives the same rows either way as with the pass-through switched off.
func TestFilterPassThrough(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=64MiB,cores=2")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	clean := recordOf(t, schema, [][]any{{int64(1), "x"}, {int64(2), nil}, {int64(3), "z"}})
	defer clean.Release()
	holey := recordOf(t, schema, [][]any{{int64(4), "x"}, {nil, "y"}, {int64(6), "z"}})
	defer holey.Release()
	a := expr.Column(0, "a", types.LongType)
	s := expr.Column(1, "s", types.StringType)
	notNullA := expr.Call(expr.OpIsNotNull, types.BooleanType, a)
	cases := []struct {
		name   string
		cond   *expr.Expr
		proj   []*expr.Expr
		passed bool // the clean batch is handed on as it is
	}{
		{"isnotnull(a), all columns", notNullA, nil, true},
		{"isnotnull(a), s then a", notNullA, []*expr.Expr{s, a}, true},
		{"no condition, a", nil, []*expr.Expr{a}, true},
		{"isnotnull(a) AND isnotnull(s)", expr.Call(expr.OpAnd, types.BooleanType, notNullA, expr.Call(expr.OpIsNotNull, types.BooleanType, s)), nil, false},
		{"a > 1", expr.Call(expr.OpGt, types.BooleanType, a, expr.Literal(int64(1), types.LongType)), nil, false},
		{"isnotnull(a), a + 1", notNullA, []*expr.Expr{expr.Call(expr.OpAdd, types.LongType, a, expr.Literal(int64(1), types.LongType))}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := func(pass bool) ([][]any, bool) {
				defer operators.SetPassBatches(pass)()
				var names []string
				for i := range c.proj {
					names = append(names, fmt.Sprintf("c%d", i))
				}
				clean.Retain()
				holey.Retain()
				fp, err := operators.NewFilterProject(tgt, operators.NewRecordSource(schema, clean, holey), c.cond, c.proj, names)
				if err != nil {
					t.Fatal(err)
				}
				defer fp.Close()
				if err := fp.Open(ctx); err != nil {
					t.Fatal(err)
				}
				var rows [][]any
				same := false
				for {
					r, err := fp.Next(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if r == nil {
						break
					}
					for j := range int(r.NumCols()) {
						for k := range int(clean.NumCols()) {
							same = same || r.Column(j) == clean.Column(k)
						}
					}
					rows = append(rows, rowsOf([]arrow.Record{r})...)
					r.Release()
				}
				return rows, same
			}
			want, samePlain := run(false)
			got, same := run(true)
			if samePlain || same != c.passed {
				t.Errorf("input arrays handed on: %v without the pass-through, %v with it; want false, %v", samePlain, same, c.passed)
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("rows %v with the pass-through, %v without", got, want)
			}
		})
	}
}
