package operators_test

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// Reset of the operators that spill (Sort, HashAggregate, the grace hash
// join) under a small quota with a spill manager: a run to the end, a
// run interrupted after its first batch — when the spill runs are on disk
// and being merged — and a last run must give the same rows, and each
// Reset must give back every byte of the quota and leave no spill file.

// checkSpillReset runs op three times as described above on tgt (whose
// account has the quota and whose spill manager is set) and closes it;
// ordered says whether the rows' order is part of the result.
func checkSpillReset(t *testing.T, tgt *operators.Target, op operators.Operator, ordered bool) {
	t.Helper()
	ctx := context.Background()
	clean := func(when string) {
		t.Helper()
		if n := tgt.Account.InUse(); n != 0 {
			t.Fatalf("%s: the quota holds %d bytes", when, n)
		}
		if ents, err := os.ReadDir(tgt.Spill.Dir()); err != nil || len(ents) != 0 {
			t.Fatalf("%s: %d spill files left (%v)", when, len(ents), err)
		}
	}
	run := func(batches int) [][]any {
		t.Helper()
		rows, err := drainRows(ctx, op, batches)
		if err != nil {
			t.Fatal(err)
		}
		if !ordered {
			rows = sortedRows(rows)
		}
		return rows
	}
	reset := func(when string) {
		t.Helper()
		if err := operators.Reset(ctx, op); err != nil {
			t.Fatalf("Reset after %s: %v", when, err)
		}
		clean("Reset after " + when)
	}
	want := run(-1)
	st := op.(interface{ Stats() operators.Stats }).Stats()
	if st.SpillFiles == 0 {
		t.Fatalf("the first run did not spill: %+v", st)
	}
	reset("the first run")
	run(1)
	if files, err := os.ReadDir(tgt.Spill.Dir()); err != nil || len(files) == 0 {
		t.Fatalf("no spill file while the interrupted run merges (%v)", err)
	}
	reset("an interrupted run")
	if err := compareRows(run(-1), want); err != nil {
		t.Fatalf("after Reset: %v", err)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	clean("Close")
}

func TestSortSpillReset(t *testing.T) {
	tgt := spillTarget(t, "soft:memory=256MiB,cores=2", 1<<20, t.TempDir())
	rng := rand.New(rand.NewPCG(9, 9))
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	recs := randomBatches(rng, schema, 40000, 0.1)
	defer releaseAll(recs)
	keys := []operators.SortKey{{Expr: expr.Column(1, "s", types.StringType)}, {Expr: expr.Column(0, "k", types.LongType), Descending: true}}
	op, err := operators.NewSort(tgt, operators.NewRecordSource(schema, recs...), keys)
	if err != nil {
		t.Fatal(err)
	}
	checkSpillReset(t, tgt, op, true)
}

func TestHashAggregateSpillReset(t *testing.T) {
	recs := spillData(1, 4, 5000, 12000)
	defer releaseAll(recs)
	tgt := spillTarget(t, "soft:memory=256MiB,cores=2", spillQuota, t.TempDir())
	c := aggCase{keys: aggKeys, calls: updateCalls(false), mode: operators.AggUpdate}
	op, err := operators.NewHashAggregate(tgt, operators.NewRecordSource(spillSchema, recs...), nil, c.keys, c.calls, c.mode, c.names())
	if err != nil {
		t.Fatal(err)
	}
	checkSpillReset(t, tgt, op, false)
}

func TestHashJoinGraceReset(t *testing.T) {
	defer operators.SetJoinBatchRows(100)()
	tgt := newTarget(t, "soft:memory=256MiB,cores=2")
	left, right := joinSides(t, 3, 1500, 1500, 300, 0.05, 200)
	defer graceTarget(t, tgt, 128<<10)()
	spec := operators.JoinSpec{Type: operators.JoinFullOuter, LeftKeys: keyExprs(1), RightKeys: keyExprs(1)}
	op, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema, left...), operators.NewRecordSource(joinSchema, right...), spec)
	if err != nil {
		t.Fatal(err)
	}
	checkSpillReset(t, tgt, op, false)
}
