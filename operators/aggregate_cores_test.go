package operators_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
)

// TestHashAggregateGrowsStates: an aggregation opened on one core of two
// (Target.CoreShare) adds a state when its share grows to two (the other
// tasks of its stage ended), and its groups are those of the aggregation
// that stayed on one state; with a quota the new state's budget is
// reserved and everything comes back at Close. When the account cannot
// give the new state its budget, the aggregation keeps its one state and
// its answer.
func TestHashAggregateGrowsStates(t *testing.T) {
	recs := flushData(11, 3, 40000, 700, false) // records of two parts (MinRowsPerCore)
	defer releaseAll(recs)
	c := aggCase{keys: []*expr.Expr{colK1}, calls: updateCalls(false), mode: operators.AggUpdate}
	for _, tc := range []struct {
		quota  uint64
		refuse bool // the account is left too little for a second state's budget
	}{{0, false}, {64 << 20, false}, {64 << 20, true}} {
		quota := tc.quota
		t.Run(fmt.Sprintf("quota%d/refuse=%v", quota, tc.refuse), func(t *testing.T) {
			fixed := spillTarget(t, "soft:memory=256MiB,cores=2", quota, "")
			fixed.CoreShare = func() int { return 1 }
			want, _, err := c.run(t, fixed, spillSchema, recs)
			if err != nil {
				t.Fatal(err)
			}

			tgt := spillTarget(t, "soft:memory=256MiB,cores=2", quota, "")
			var asked atomic.Int64
			tgt.CoreShare = func() int { // one core at Open, two after
				if asked.Add(1) == 1 {
					return 1
				}
				return 2
			}
			h, err := operators.NewHashAggregate(tgt, operators.NewRecordSource(spillSchema, recs...), c.where, c.keys, c.calls, c.mode, c.names())
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := h.Open(ctx); err != nil {
				t.Fatal(err)
			}
			if n := h.States(); n != 1 {
				t.Fatalf("%d states after Open on one core, want 1", n)
			}
			wantStates, held := 2, uint64(0)
			if tc.refuse {
				// Open reserved a third of the account for its one state;
				// leave half a state's budget free, room for the batches
				// but not for a second state
				a := tgt.Account
				held = a.Limit() - a.InUse() - a.Limit()/6
				if err := a.Reserve(held); err != nil {
					t.Fatal(err)
				}
				defer a.Release(held)
				wantStates = 1
			}
			var got [][]any
			for {
				rec, err := h.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if rec == nil {
					break
				}
				if n := h.States(); n != wantStates {
					t.Errorf("%d states once the share grew to two cores, want %d", n, wantStates)
				}
				cp := copyRecord(t, rec)
				rec.Release()
				got = append(got, rowsOf([]arrow.Record{cp})...)
				defer cp.Release()
			}
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			if err := compareRows(sortedRows(got), want); err != nil {
				t.Fatalf("groups differ from one state's: %v", err)
			}
			if n := tgt.Account.InUse(); n != held {
				t.Errorf("task account holds %d bytes after Close, want the test's %d", n, held)
			}
		})
	}
}
