package operators_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
)

// lineitemLike makes rows rows of (orderkey bigint, suppkey bigint) in
// batches of batch rows: 4 rows per order key (rows/4 keys, in order), the
// supplier keys random in [0, 10000) — TPC-H Q21's l_orderkey, l_suppkey.
func lineitemLike(mem memory.Allocator, rng *rand.Rand, rows, batch int) (*arrow.Schema, []arrow.Record) {
	s := arrow.NewSchema([]arrow.Field{{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.Record
	for lo := 0; lo < rows; lo += batch {
		n := min(batch, rows-lo)
		kb, sb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		kb.Reserve(n)
		sb.Reserve(n)
		for i := lo; i < lo+n; i++ {
			kb.UnsafeAppend(int64(i / 4))
			sb.UnsafeAppend(rng.Int64N(10000))
		}
		k, v := kb.NewArray(), sb.NewArray()
		recs = append(recs, array.NewRecord(s, []arrow.Array{k, v}, int64(n)))
		k.Release()
		v.Release()
		kb.Release()
		sb.Release()
	}
	return s, recs
}

// BenchmarkHashJoinCondition: Q21's joins on lineitem-like data, 1M probe
// rows × 1M build rows with 4 rows per key on both sides: a left semi and
// a left anti join on the order key with the condition build.suppkey <>
// probe.suppkey, against the same join without the condition (the peer,
// run alternately in the same benchmark); it prints the ratio.
func BenchmarkHashJoinCondition(b *testing.B) {
	const rows = 1 << 20
	for _, cores := range []int{1, 2} {
		for _, typ := range []operators.JoinType{operators.JoinLeftSemi, operators.JoinLeftAnti} {
			b.Run(fmt.Sprintf("%s/cores%d", typ, cores), func(b *testing.B) {
				tgt := newTarget(b, fmt.Sprintf("soft:memory=1GiB,cores=%d,mode=host-visible", cores))
				mem := tgt.OutputAllocator()
				rng := rand.New(rand.NewPCG(21, 21))
				ps, precs := lineitemLike(mem, rng, rows, 1<<16)
				bs, brecs := lineitemLike(mem, rng, rows, 1<<16)
				defer releaseAll(brecs)
				defer releaseAll(precs)
				key := []*expr.Expr{expr.Column(0, "l_orderkey", tLong)}
				cond := expr.Call(expr.OpNe, tBool, expr.Column(3, "l_suppkey", tLong), expr.Column(1, "l_suppkey", tLong))
				run := func(c *expr.Expr) (time.Duration, int64) {
					start := time.Now()
					j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(ps, precs...), operators.NewRecordSource(bs, brecs...),
						operators.JoinSpec{Type: typ, LeftKeys: key, RightKeys: key, Condition: c})
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
					return time.Since(start), n
				}
				var withCond, without time.Duration
				var n int64
				b.ResetTimer()
				for range b.N {
					d, m := run(cond)
					withCond += d
					n = m
					b.StopTimer()
					d, _ = run(nil)
					without += d
					b.StartTimer()
				}
				per := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
				b.ReportMetric(per(withCond), "ms/cond")
				b.ReportMetric(per(without), "ms/nocond")
				b.ReportMetric(float64(withCond)/float64(without), "ratio")
				b.ReportMetric(float64(n), "rows")
			})
		}
	}
}
