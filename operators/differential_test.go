package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/pipeline"
	"github.com/hados-io/hados/operators/types"
)

// The shared operator harness: every device operator runs over random
// inputs — batch sizes 1, 7, 2048 and 65536 rows, null fractions 0%, 10%
// and 100%, with and without a filter narrowing the selection first, on a
// host-visible and a discrete device — and its output is compared with the
// plain Go reference evaluator (operators/expr.Eval). Allocators and device
// memory must be back to zero afterwards (newTarget checks).

var (
	batchSizes = []int{1, 7, 2048, 65536}
	nullFracs  = []float64{0, 0.1, 1}
)

// refFilterProject computes FilterProject's answer with the reference.
func refFilterProject(rec arrow.Record, cond *expr.Expr, proj []*expr.Expr) ([][]any, error) {
	n := int(rec.NumRows())
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = true
	}
	if cond != nil {
		c, err := expr.Eval(cond, rec, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			v := expr.ValueAt(c, i)
			keep[i] = v != nil && v.(bool)
		}
		c.Release()
	}
	cols := make([]arrow.Array, len(proj))
	for j, e := range proj {
		a, err := expr.Eval(e, rec, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		cols[j] = a
	}
	var rows [][]any
	for i := 0; i < n; i++ {
		if !keep[i] {
			continue
		}
		row := make([]any, len(cols))
		for j, c := range cols {
			row[j] = expr.ValueAt(c, i)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func rowsOf(recs []arrow.Record) [][]any {
	var rows [][]any
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			row := make([]any, r.NumCols())
			for j := range row {
				row[j] = expr.ValueAt(r.Column(j), i)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return x == y || math.Abs(x-y) <= 1e-12*math.Max(math.Abs(x), math.Abs(y))
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	}
	return a == b
}

// compareRows reports the first difference between device and reference rows.
func compareRows(got, want [][]any) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d rows, reference %d", len(got), len(want))
	}
	for i := range got {
		for j := range got[i] {
			if !sameValue(got[i][j], want[i][j]) {
				return fmt.Errorf("row %d column %d: device %v (%T), reference %v (%T)", i, j, got[i][j], got[i][j], want[i][j], want[i][j])
			}
		}
	}
	return nil
}

// TestFilterProjectDifferential runs random well-typed expressions through
// the fused FilterProject and compares every row with the reference.
func TestFilterProjectDifferential(t *testing.T) {
	seeds := 24
	if testing.Short() {
		seeds = 6
	}
	for _, mode := range []string{"host-visible", "discrete"} {
		t.Run(mode, func(t *testing.T) {
			tgt := newTarget(t, "soft:memory=512MiB,cores=2,mode="+mode)
			var ran, unsupported int
			for seed := 0; seed < seeds; seed++ {
				rng := rand.New(rand.NewPCG(uint64(seed), 99))
				schema := expr.RandomSchema(rng, 2+rng.IntN(4))
				rows := batchSizes[seed%len(batchSizes)]
				nulls := nullFracs[seed%len(nullFracs)]
				in := expr.RandomRecord(rng, schema, rows, nulls, memory.DefaultAllocator)
				var cond *expr.Expr
				if seed%2 == 1 { // with a selection
					cond = expr.RandomExpr(rng, schema, 3, types.DataType{Kind: types.Boolean})
				}
				proj := []*expr.Expr{expr.RandomExpr(rng, schema, 3, types.DataType{}), expr.RandomExpr(rng, schema, 2, types.DataType{})}
				want, err := refFilterProject(in, cond, proj)
				if err != nil {
					in.Release()
					t.Fatalf("seed %d: reference: %v", seed, err)
				}
				op, err := operators.NewFilterProject(tgt, operators.NewRecordSource(schema, in), cond, proj, []string{"a", "b"})
				in.Release()
				if err != nil {
					t.Fatal(err)
				}
				if err := op.Compile(); err != nil {
					var u *pipeline.Unsupported
					if !errors.As(err, &u) {
						t.Fatalf("seed %d: compile %v / %v: %v", seed, cond, proj, err)
					}
					unsupported++
					op.Close()
					continue
				}
				out, err := operators.Collect(context.Background(), op)
				if err != nil {
					t.Fatalf("seed %d (%d rows, nulls %.0f%%): %v\ncondition %v\nprojections %v", seed, rows, 100*nulls, err, cond, proj)
				}
				got := rowsOf(out)
				for _, r := range out {
					r.Release()
				}
				if err := compareRows(got, want); err != nil {
					t.Errorf("seed %d (%d rows, nulls %.0f%%): %v\ncondition %v\nprojections %v", seed, rows, 100*nulls, err, cond, proj)
				}
				ran++
			}
			t.Logf("%d cases ran on the device, %d were unsupported by the compiler", ran, unsupported)
			if ran == 0 {
				t.Fatal("no case ran")
			}
		})
	}
}
