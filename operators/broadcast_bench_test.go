package operators_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
)

// BenchmarkBroadcastTableBuild: a broadcast table of 225K rows of unique
// sparse bigint keys (TPC-H Q5's orders ⋈ customer, keyed by order key:
// 225K of 6M) in 6 records, on a 2-core device, built on one core
// (parts1) and split over both (parts2), run alternately under the same
// load; best-ms is the fastest build.
func BenchmarkBroadcastTableBuild(b *testing.B) {
	const build = 225_000
	tgt := newTarget(b, "soft:memory=1GiB,cores=2,mode=host-visible")
	mem := tgt.OutputAllocator()
	bs, brecs := keyedRecords(mem, build, build/6+1, func(i int) int64 { return int64(i)*26 + int64(i*7919%13) })
	defer releaseAll(brecs)
	key := []*expr.Expr{expr.Column(0, "k", tLong)}
	for _, parts := range []int{1, 2} {
		b.Run(fmt.Sprintf("parts%d", parts), func(b *testing.B) {
			defer operators.SetMaxBuildParts(parts)()
			best := time.Duration(math.MaxInt64)
			for range b.N {
				start := time.Now()
				t, err := operators.NewBroadcastTable(context.Background(), tgt, operators.NewRecordSource(bs, brecs...), key, nil)
				if err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(start))
				t.Release()
			}
			b.ReportMetric(float64(best.Microseconds())/1000, "best-ms")
		})
	}
}

// BenchmarkBroadcastProbe: 1M probe rows against the 225K-row table of
// BenchmarkBroadcastTableBuild (a slot table of sparse keys), keys drawn
// from a range 6 times the table's so about 1 in 6 matches (TPC-H Q5's
// lineitem against orders ⋈ customer), inner join, output materialised.
func BenchmarkBroadcastProbe(b *testing.B) {
	const build, probe = 225_000, 1_000_000
	tgt := newTarget(b, "soft:memory=1GiB,cores=2,mode=host-visible")
	mem := tgt.OutputAllocator()
	bs, brecs := keyedRecords(mem, build, build/6+1, func(i int) int64 { return int64(i)*26 + int64(i*7919%13) })
	ps, precs := keyedRecords(mem, probe, 1<<16, func(i int) int64 { return int64(i*7919) % (26 * build) })
	defer releaseAll(brecs)
	defer releaseAll(precs)
	key := []*expr.Expr{expr.Column(0, "k", tLong)}
	table, err := operators.NewBroadcastTable(context.Background(), tgt, operators.NewRecordSource(bs, brecs...), key, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer table.Release()
	b.ResetTimer()
	for range b.N {
		j, err := operators.NewBroadcastHashJoin(tgt, operators.NewRecordSource(ps, precs...), table,
			operators.JoinSpec{Type: operators.JoinInner, Build: operators.BuildRight, LeftKeys: key, RightKeys: key})
		if err != nil {
			b.Fatal(err)
		}
		out, err := operators.Collect(context.Background(), j)
		if err != nil {
			b.Fatal(err)
		}
		releaseAll(out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/probe, "ns/probe-row")
}
