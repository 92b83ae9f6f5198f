package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/operators/spill"
)

// The grace hash join: a tiny quota and a spill manager force the build
// side to disk; every join type × build side must give the in-memory
// result and the nested-loop reference's, leave no file behind and give
// every byte of the quota back.

// drainJoin runs op to its end, turning each batch into rows and releasing
// it at once (a tiny quota cannot hold the whole output), and closes it.
// batches are the output batches' row counts.
func drainJoin(ctx context.Context, op operators.Operator) (rows [][]any, batches []int64, err error) {
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
	}()
	if err := op.Open(ctx); err != nil {
		return nil, nil, err
	}
	for {
		r, err := op.Next(ctx)
		if err != nil {
			return nil, nil, err
		}
		if r == nil {
			return rows, batches, nil
		}
		if !r.Schema().Equal(op.Schema()) {
			r.Release()
			return nil, nil, fmt.Errorf("batch schema %s, operator's %s", r.Schema(), op.Schema())
		}
		for _, row := range rowsOf([]arrow.Record{r}) {
			for i, v := range row {
				if s, ok := v.(string); ok {
					row[i] = strings.Clone(s) // the batch's memory is about to be reused
				}
			}
			rows = append(rows, row)
		}
		batches = append(batches, r.NumRows())
		r.Release()
	}
}

// graceTarget gives tgt a quota of limit bytes and a spill manager in a
// test directory; the returned function restores tgt and checks that the
// quota is back to zero and the manager's directory is empty.
// joinMaker returns a constructor of the same hash join of left and right
// (over joinSchema) on tgt, for running it again (unlimited, then under a
// quota).
func joinMaker(t *testing.T, tgt *operators.Target, left, right []arrow.Record, spec operators.JoinSpec) func() *operators.HashJoin {
	return func() *operators.HashJoin {
		j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema, left...), operators.NewRecordSource(joinSchema, right...), spec)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
}

func graceTarget(t *testing.T, tgt *operators.Target, limit uint64) func() {
	t.Helper()
	m, err := spill.NewManager(t.TempDir(), exchange.LZ4)
	if err != nil {
		t.Fatal(err)
	}
	old := tgt.Account
	tgt.Account = hmem.NewAccount("task 9", limit, old)
	tgt.Spill = m
	return func() {
		t.Helper()
		if n := tgt.Account.InUse(); n != 0 {
			t.Errorf("the quota holds %d bytes at the end", n)
		}
		ents, err := os.ReadDir(m.Dir())
		if err != nil || len(ents) != 0 {
			t.Errorf("spill directory: %d files left (%v)", len(ents), err)
		}
		tgt.Account, tgt.Spill = old, nil
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestHashJoinGrace(t *testing.T) {
	defer operators.SetJoinBatchRows(100)()
	scenarios := []joinScenario{
		{name: "dups and nulls", lrows: 1500, rrows: 1500, card: 300, nullRate: 0.05, nkeys: 1, batch: 200},
		{name: "three keys null-safe condition", lrows: 1200, rrows: 1200, card: 60, nullRate: 0.1, nkeys: 3, nullSafe: true, cond: true, batch: 256},
		{name: "null-aware anti", lrows: 1200, rrows: 1200, card: 200, nullRate: 0.05, nkeys: 1, naaj: true, batch: 200},
		{name: "null-aware anti no right nulls", lrows: 1200, rrows: 1200, card: 200, nullRate: 0.05, nkeys: 1, naaj: true, batch: 200},
		{name: "null-aware anti empty right", lrows: 1500, rrows: 0, card: 200, nullRate: 0.1, nkeys: 1, naaj: true, batch: 200},
		{name: "empty probe", lrows: 1500, rrows: 0, card: 200, nullRate: 0.1, nkeys: 1, batch: 200},
	}
	modes := []string{"host-visible", "discrete"}
	if testing.Short() {
		modes = modes[:1]
	}
	ctx := context.Background()
	for _, mode := range modes {
		tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode="+mode)
		for si, sc := range scenarios {
			rng := rand.New(rand.NewPCG(uint64(si), 11))
			lrecs := joinSideRecord(rng, sc.lrows, sc.card, sc.nullRate, sc.batch)
			rrecs := joinSideRecord(rng, sc.rrows, sc.card, sc.nullRate, sc.batch)
			if strings.Contains(sc.name, "no right nulls") {
				releaseAll(rrecs)
				rrecs = joinSideRecord(rng, sc.rrows, sc.card, 0, sc.batch)
			}
			left, right := rowsOf(lrecs), rowsOf(rrecs)
			for _, typ := range sc.types() {
				for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
					if sc.rrows == 0 && build == operators.BuildRight {
						continue // an empty build side fits
					}
					t.Run(fmt.Sprintf("%s/%s/%s/%s", mode, sc.name, typ, build), func(t *testing.T) {
						spec := sc.spec(typ, build)
						newJoin := joinMaker(t, tgt, lrecs, rrecs, spec)
						mem, _, err := drainJoin(ctx, newJoin())
						if err != nil {
							t.Fatal(err)
						}
						check := graceTarget(t, tgt, 128<<10)
						j := newJoin()
						got, batches, err := drainJoin(ctx, j)
						check()
						if err != nil {
							t.Fatal(err)
						}
						st := j.Stats()
						if st.SpillFiles == 0 || st.SpillRows == 0 {
							t.Fatalf("no spill: %+v", st)
						}
						if slices.Max(append(batches, 0)) > 1000 {
							t.Errorf("an output batch of %d rows", slices.Max(batches))
						}
						want := sortedKeys(sc.reference(typ, left, right))
						if g, m := sortedKeys(got), sortedKeys(mem); !slices.Equal(g, m) {
							for i := range g {
								if i < len(m) && g[i] != m[i] {
									t.Fatalf("grace %d rows, in memory %d; row %d: %s vs %s\nwant %s", len(g), len(m), i, g[i], m[i], want[i])
								}
							}
							t.Fatalf("grace %d rows, in memory %d", len(g), len(m))
						}
						if g := sortedKeys(got); !slices.Equal(g, want) {
							t.Fatalf("%d rows, reference %d\nfirst rows %v\nreference %v", len(g), len(want), g[:min(5, len(g))], want[:min(5, len(want))])
						}
					})
				}
			}
			releaseAll(lrecs)
			releaseAll(rrecs)
		}
	}
}

// TestHashJoinGraceRecursive allows two partitions only, so that a
// partition still does not fit and partitions itself again.
func TestHashJoinGraceRecursive(t *testing.T) {
	defer operators.SetGracePartitionLimit(2)()
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	lrecs, rrecs := joinSides(t, 3, 2000, 4000, 1500, 0.02, 250)
	for _, typ := range []operators.JoinType{operators.JoinFullOuter, operators.JoinLeftAnti} {
		check := graceTarget(t, tgt, 48<<10)
		j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema, lrecs...), operators.NewRecordSource(joinSchema, rrecs...),
			operators.JoinSpec{Type: typ, LeftKeys: keyExprs(2), RightKeys: keyExprs(2)})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := drainJoin(context.Background(), j)
		check()
		if err != nil {
			t.Fatal(err)
		}
		// the first level writes both sides once (4 runs, 8 files); a second level writes more
		if st := j.Stats(); st.SpillFiles <= 8 || st.SpillRows <= 6000 {
			t.Errorf("%s: no second level: %+v", typ, st)
		}
		want := sortedKeys(refJoin(typ, rowsOf(lrecs), rowsOf(rrecs), 2, nil, false, false))
		if g := sortedKeys(got); !slices.Equal(g, want) {
			t.Fatalf("%s: %d rows, reference %d", typ, len(g), len(want))
		}
	}
}

// TestHashJoinGraceHotKey: a build side whose rows share one key cannot be
// split; the join says so instead of partitioning forever.
func TestHashJoinGraceHotKey(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	rng := rand.New(rand.NewPCG(4, 4))
	recs := joinSideRecord(rng, 3000, 1, 0, 500)
	defer releaseAll(recs)
	check := graceTarget(t, tgt, 64<<10)
	j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema, recs[:1]...), operators.NewRecordSource(joinSchema, recs...),
		operators.JoinSpec{Type: operators.JoinInner, LeftKeys: keyExprs(1), RightKeys: keyExprs(1)})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = drainJoin(context.Background(), j)
	check()
	if !errors.Is(err, hmem.ErrQuotaExceeded) || !strings.Contains(err.Error(), "share a join key") {
		t.Fatalf("want a quota error naming the shared key, got %v", err)
	}
}
