package operators_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
)

// A join's output under a tight quota (issue 3): with many matches per
// key one probe batch's output is far larger than the quota, yet the
// join must finish — in memory when its build side fits, through the
// grace hash join when it does not — by emitting output batches sized to
// what the task has left. Every join type × build side, with and without
// a condition, must give the unlimited run's result and the nested-loop
// reference's, and give every byte of the quota back.

func TestHashJoinOutputUnderQuota(t *testing.T) {
	scenarios := []struct {
		joinScenario
		quota uint64
		spill bool // the build side does not fit: the join must spill
	}{
		// ~20 build rows a key: a probe batch of 500 rows matches ~10k
		// pairs (~800 KiB of output) against a 256 KiB quota the
		// 400-row build side fits in
		{joinScenario{name: "fits", lrows: 2000, rrows: 400, card: 20, nullRate: 0.05, nkeys: 1, batch: 500}, 256 << 10, false},
		{joinScenario{name: "fits condition", lrows: 2000, rrows: 400, card: 20, nullRate: 0.05, nkeys: 1, cond: true, batch: 500}, 256 << 10, false},
		// 2000 build rows do not fit 128 KiB: the grace partitions' joins
		// size their output too
		{joinScenario{name: "spills", lrows: 1500, rrows: 2000, card: 100, nullRate: 0.05, nkeys: 2, batch: 500}, 128 << 10, true},
	}
	modes := []string{"host-visible", "discrete"}
	if testing.Short() {
		modes = modes[:1]
	}
	ctx := context.Background()
	for _, mode := range modes {
		tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode="+mode)
		for si, sc := range scenarios {
			rng := rand.New(rand.NewPCG(uint64(si), 23))
			lrecs := joinSideRecord(rng, sc.lrows, sc.card, sc.nullRate, sc.batch)
			rrecs := joinSideRecord(rng, sc.rrows, sc.card, sc.nullRate, sc.batch)
			left, right := rowsOf(lrecs), rowsOf(rrecs)
			for _, typ := range joinTypes {
				for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
					if !sc.spill && build == operators.BuildLeft {
						continue // the left side is the large one
					}
					t.Run(fmt.Sprintf("%s/%s/%s/%s", mode, sc.name, typ, build), func(t *testing.T) {
						spec := sc.spec(typ, build)
						newJoin := joinMaker(t, tgt, lrecs, rrecs, spec)
						unlimited, _, err := drainJoin(ctx, newJoin())
						if err != nil {
							t.Fatal(err)
						}
						check := graceTarget(t, tgt, sc.quota)
						j := newJoin()
						got, batches, err := drainJoin(ctx, j)
						peak := tgt.Account.Stats().Peak
						check()
						if err != nil {
							t.Fatalf("under %d KiB: %v", sc.quota>>10, err)
						}
						if peak > sc.quota {
							t.Errorf("peak %d over the quota %d", peak, sc.quota)
						}
						st := j.Stats()
						if spilled := st.SpillFiles > 0; spilled != sc.spill {
							t.Errorf("spilled %v, want %v: %+v", spilled, sc.spill, st)
						}
						if g, u := sortedKeys(got), sortedKeys(unlimited); !slices.Equal(g, u) {
							t.Fatalf("%d rows under the quota, %d unlimited", len(g), len(u))
						}
						want := sortedKeys(sc.reference(typ, left, right))
						if g := sortedKeys(got); !slices.Equal(g, want) {
							t.Fatalf("%d rows, reference %d", len(g), len(want))
						}
						// an inner join's output of a probe batch is split
						// over several batches
						if typ == operators.JoinInner && !sc.spill && len(batches) <= len(lrecs) {
							t.Errorf("%d output batches for %d probe batches: %v", len(batches), len(lrecs), batches)
						}
					})
				}
			}
			releaseAll(lrecs)
			releaseAll(rrecs)
		}
	}
}

// skewedSide is rows rows of joinSchema in batches of batch whose key i
// takes card values (0 for every row when card is 1); the rows of key 0
// whose number is below long carry a string of 1 KiB, the others one of a
// few bytes.
func skewedSide(rows, card, long, batch int) []arrow.Record {
	var recs []arrow.Record
	for lo := 0; lo < rows; lo += batch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, joinSchema)
		for r := lo; r < min(lo+batch, rows); r++ {
			k := r % card
			if k == 0 && r < long {
				b.Field(0).(*array.StringBuilder).Append(strings.Repeat(fmt.Sprint(r%10), 1024))
			} else {
				b.Field(0).(*array.StringBuilder).Append(fmt.Sprint("s", r%7))
			}
			b.Field(1).(*array.Int64Builder).Append(int64(k))
			b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r)))
			b.Field(3).(*array.Int32Builder).Append(int32(r % 100))
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	return recs
}

// TestHashJoinOutputSkewedRows: the rows every probe row matches are the
// build side's few long ones, so the output batch sized from the build
// side's average row is far too large for the quota: the join halves it
// until it fits and gives the unlimited result.
func TestHashJoinOutputSkewedRows(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	build := skewedSide(4000, 400, 4000, 1000) // ten long rows of key 0
	probe := skewedSide(600, 1, 0, 300)        // every row key 0, short strings
	defer releaseAll(build)
	defer releaseAll(probe)
	for _, typ := range []operators.JoinType{operators.JoinInner, operators.JoinLeftOuter, operators.JoinFullOuter} {
		t.Run(typ.String(), func(t *testing.T) {
			spec := operators.JoinSpec{Type: typ, LeftKeys: keyExprs(1), RightKeys: keyExprs(1)}
			newJoin := joinMaker(t, tgt, probe, build, spec)
			unlimited, _, err := drainJoin(ctx, newJoin())
			if err != nil {
				t.Fatal(err)
			}
			check := graceTarget(t, tgt, 1<<20)
			j := newJoin()
			got, batches, err := drainJoin(ctx, j)
			check()
			if err != nil {
				t.Fatal(err)
			}
			if st := j.Stats(); st.SpillFiles > 0 {
				t.Errorf("spilled: %+v", st)
			}
			if g, u := sortedKeys(got), sortedKeys(unlimited); !slices.Equal(g, u) {
				t.Fatalf("%d rows under the quota, %d unlimited", len(g), len(u))
			}
			t.Logf("%d rows in %d batches", len(got), len(batches))
		})
	}
}
