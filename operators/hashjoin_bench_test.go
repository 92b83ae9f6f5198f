package operators_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
)

// keyedRecords makes rows rows of (k bigint, v int) in batches of batch
// rows in mem: k = f(i), v = i % 1000.
func keyedRecords(mem memory.Allocator, rows, batch int, f func(i int) int64) (*arrow.Schema, []arrow.Record) {
	s := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int32}}, nil)
	var recs []arrow.Record
	for lo := 0; lo < rows; lo += batch {
		n := min(batch, rows-lo)
		kb, vb := array.NewInt64Builder(mem), array.NewInt32Builder(mem)
		kb.Reserve(n)
		vb.Reserve(n)
		for i := lo; i < lo+n; i++ {
			kb.UnsafeAppend(f(i))
			vb.UnsafeAppend(int32(i % 1000))
		}
		k, v := kb.NewArray(), vb.NewArray()
		recs = append(recs, array.NewRecord(s, []arrow.Array{k, v}, int64(n)))
		k.Release()
		v.Release()
		kb.Release()
		vb.Release()
	}
	return s, recs
}

// BenchmarkHashJoin: 1M probe rows × 250K unique build rows (every probe
// row matches one build row), inner join, output materialised.
func BenchmarkHashJoin(b *testing.B) {
	const build, probe = 250_000, 1_000_000
	for _, cores := range []int{1, 2} {
		b.Run(fmt.Sprintf("cores%d", cores), func(b *testing.B) {
			tgt := newTarget(b, fmt.Sprintf("soft:memory=1GiB,cores=%d,mode=host-visible", cores))
			mem := tgt.OutputAllocator()
			bs, brecs := keyedRecords(mem, build, 1<<16, func(i int) int64 { return int64(i) })
			ps, precs := keyedRecords(mem, probe, 1<<18, func(i int) int64 { return int64(i*7919) % build })
			defer releaseAll(brecs)
			defer releaseAll(precs)
			key := []*expr.Expr{expr.Column(0, "k", tLong)}
			b.ResetTimer()
			for range b.N {
				j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(ps, precs...), operators.NewRecordSource(bs, brecs...),
					operators.JoinSpec{Type: operators.JoinInner, LeftKeys: key, RightKeys: key})
				if err != nil {
					b.Fatal(err)
				}
				out, err := operators.Collect(context.Background(), j)
				if err != nil {
					b.Fatal(err)
				}
				n := int64(0)
				for _, r := range out {
					n += r.NumRows()
				}
				releaseAll(out)
				if n != probe {
					b.Fatalf("%d rows, want %d", n, probe)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/probe, "ns/probe-row")
		})
	}
}

// BenchmarkHashJoinBuild: the build of a 1.5M-row table of unique sparse
// bigint keys (a slot table) on a 2-core device, on one core (parts1) and
// split over both (parts2), probed by one row; run the two alternately
// to compare them under the same load; best-ms is the fastest build (the
// least disturbed by other processes).
func BenchmarkHashJoinBuild(b *testing.B) {
	const build = 1_500_000
	tgt := newTarget(b, "soft:memory=1GiB,cores=2,mode=host-visible")
	mem := tgt.OutputAllocator()
	bs, brecs := keyedRecords(mem, build, 1<<18, func(i int) int64 { return int64(i) * 1_000_003 })
	ps, precs := keyedRecords(mem, 1, 1, func(int) int64 { return 0 })
	defer releaseAll(brecs)
	defer releaseAll(precs)
	key := []*expr.Expr{expr.Column(0, "k", tLong)}
	for _, parts := range []int{1, 2} {
		b.Run(fmt.Sprintf("parts%d", parts), func(b *testing.B) {
			defer operators.SetMaxBuildParts(parts)()
			best := time.Duration(math.MaxInt64)
			for range b.N {
				start := time.Now()
				j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(ps, precs...), operators.NewRecordSource(bs, brecs...),
					operators.JoinSpec{Type: operators.JoinInner, LeftKeys: key, RightKeys: key})
				if err != nil {
					b.Fatal(err)
				}
				out, err := operators.Collect(context.Background(), j)
				if err != nil {
					b.Fatal(err)
				}
				releaseAll(out)
				best = min(best, time.Since(start))
			}
			b.ReportMetric(float64(best.Microseconds())/1000, "best-ms")
		})
	}
}
