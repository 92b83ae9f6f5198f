package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
)

// A lazy broadcast join takes its table in Open, after its probe side is
// open, built meanwhile on another goroutine: the rows equal the
// reference join's for every join type, and the table is asked for once.
func TestBroadcastHashJoinLazy(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 5))
	brecs := joinSideRecord(rng, 3000, 400, 0.05, 512)
	defer releaseAll(brecs)
	build := rowsOf(brecs)
	for i, typ := range joinTypes {
		t.Run(fmt.Sprint(typ), func(t *testing.T) {
			precs := joinSideRecord(rand.New(rand.NewPCG(uint64(i), 6)), 2500, 400, 0.05, 300)
			defer releaseAll(precs)
			ready := make(chan *operators.BroadcastTable, 1)
			go func() { // built beside the probe side's start
				table, err := operators.NewBroadcastTable(ctx, tgt, operators.NewRecordSource(joinSchema, brecs...), keyExprs(2), nil)
				if err != nil {
					t.Error(err)
				}
				ready <- table
			}()
			var table *operators.BroadcastTable
			calls := 0
			j, err := operators.NewBroadcastHashJoinLazy(tgt, operators.NewRecordSource(joinSchema, precs...), joinSchema,
				operators.JoinSpec{Type: typ, Build: operators.BuildRight, LeftKeys: keyExprs(2), RightKeys: keyExprs(2)},
				func(context.Context) (*operators.BroadcastTable, error) {
					calls++
					if table == nil {
						table = <-ready
					}
					if table == nil {
						return nil, errors.New("no table")
					}
					return table, nil
				})
			if err != nil {
				t.Fatal(err)
			}
			got, err := operators.Collect(ctx, j)
			if table != nil {
				table.Release() // the join holds its own reference until Close
			}
			if err != nil {
				t.Fatal(err)
			}
			defer releaseAll(got)
			want := refJoin(typ, rowsOf(precs), build, 2, nil, false, false)
			if g, w := sortedKeys(rowsOf(got)), sortedKeys(want); !slices.Equal(g, w) {
				t.Fatalf("%d rows, reference %d", len(g), len(w))
			}
			if calls != 1 {
				t.Fatalf("the table was asked for %d times", calls)
			}
		})
	}
}

// A lazy broadcast join reports its table's failure, or a table that does
// not fit it, from Open; closed without Open it never asks for the table.
func TestBroadcastHashJoinLazyErrors(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	recs := joinSideRecord(rng, 200, 50, 0.05, 64)
	defer releaseAll(recs)
	spec := operators.JoinSpec{Type: operators.JoinInner, Build: operators.BuildRight, LeftKeys: keyExprs(2), RightKeys: keyExprs(2)}
	lazy := func(get func(context.Context) (*operators.BroadcastTable, error)) *operators.HashJoin {
		j, err := operators.NewBroadcastHashJoinLazy(tgt, operators.NewRecordSource(joinSchema, recs...), joinSchema, spec, get)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}

	boom := errors.New("boom")
	j := lazy(func(context.Context) (*operators.BroadcastTable, error) { return nil, boom })
	if _, err := operators.Collect(ctx, j); !errors.Is(err, boom) {
		t.Fatalf("table error: got %v", err)
	}

	j = lazy(func(context.Context) (*operators.BroadcastTable, error) {
		t.Fatal("the table was asked for without Open")
		return nil, nil
	})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	// a table over one key where the join has two
	table, err := operators.NewBroadcastTable(ctx, tgt, operators.NewRecordSource(joinSchema, recs...), keyExprs(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer table.Release()
	j = lazy(func(context.Context) (*operators.BroadcastTable, error) { return table, nil })
	if _, err := operators.Collect(ctx, j); err == nil || !strings.Contains(err.Error(), "2 probe keys for a table of 1 keys") {
		t.Fatalf("a table of other keys: got %v", err)
	}

	// a table of other columns
	other := arrow.NewSchema(append(joinSchema.Fields(), arrow.Field{Name: "extra", Type: arrow.PrimitiveTypes.Int64}), nil)
	j, err = operators.NewBroadcastHashJoinLazy(tgt, operators.NewRecordSource(joinSchema, recs...), other, spec,
		func(context.Context) (*operators.BroadcastTable, error) { return table, nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := operators.Collect(ctx, j); err == nil || !strings.Contains(err.Error(), "are not the join's") {
		t.Fatalf("a table of other columns: got %v", err)
	}
}
