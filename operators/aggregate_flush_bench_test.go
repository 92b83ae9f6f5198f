package operators_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

var flushBenchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// flushBenchData is rows rows in batches of 64K: keys in runs of 1–7
// (ascending, about rows/4 groups) when clustered, else uniform over
// groups.
func flushBenchData(rows, groups int, clustered bool) []arrow.Record {
	r := rand.New(rand.NewPCG(1, 2))
	var out []arrow.Record
	key, left := int64(0), 0
	for done := 0; done < rows; {
		n := min(1<<16, rows-done)
		b := array.NewRecordBuilder(memory.DefaultAllocator, flushBenchSchema)
		kb, vb := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.Int64Builder)
		for range n {
			if clustered {
				if left == 0 {
					key, left = key+1, 1+r.IntN(7)
				}
				left--
			} else {
				key = r.Int64N(int64(groups))
			}
			kb.Append(key)
			vb.Append(r.Int64N(50))
		}
		out = append(out, b.NewRecordBatch())
		b.Release()
		done += n
	}
	return out
}

// BenchmarkPartialFinal runs a partial sum(v) by k and the Final merge of
// its output (no exchange between), flushing or not, on one core: the
// partial's cost against what its larger output costs the final.
func BenchmarkPartialFinal(b *testing.B) {
	k := expr.Column(0, "k", types.LongType)
	v := expr.Column(1, "v", types.LongType)
	partial := aggCase{keys: []*expr.Expr{k}, calls: []operators.AggCall{{Func: "sum", Args: []*expr.Expr{v}, Input: types.LongType}}}
	for _, data := range []struct {
		name      string
		groups    int
		clustered bool
	}{{"clustered", 0, true}, {"random-1M", 1 << 20, false}, {"random-200K", 200_000, false}, {"random-5K", 5000, false}} {
		recs := flushBenchData(4<<20, data.groups, data.clustered)
		for _, flush := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/flush=%v", data.name, flush), func(b *testing.B) {
				tgt := newTarget(b, "soft:memory=2GiB,cores=1")
				ctx := context.Background()
				var mid int64
				for range b.N {
					h, err := operators.NewHashAggregate(tgt, operators.NewRecordSource(flushBenchSchema, recs...), nil, partial.keys, partial.calls, operators.AggUpdate, partial.names())
					if err != nil {
						b.Fatal(err)
					}
					if flush {
						h.FlushPartial()
					}
					var outs []arrow.Record
					if err := h.Open(ctx); err != nil {
						b.Fatal(err)
					}
					for {
						r, err := h.Next(ctx)
						if err != nil {
							b.Fatal(err)
						}
						if r == nil {
							break
						}
						outs = append(outs, r)
					}
					mid = 0
					for _, r := range outs {
						mid += r.NumRows()
					}
					schema := outs[0].Schema()
					m := mergeCase(partial, schema)
					f, err := operators.NewHashAggregate(tgt, operators.NewRecordSource(schema, outs...), nil, m.keys, m.calls, operators.AggMerge, m.names())
					if err != nil {
						b.Fatal(err)
					}
					if err := f.Open(ctx); err != nil {
						b.Fatal(err)
					}
					for {
						r, err := f.Next(ctx)
						if err != nil {
							b.Fatal(err)
						}
						if r == nil {
							break
						}
						r.Release()
					}
					if err := f.Close(); err != nil {
						b.Fatal(err)
					}
					releaseAll(outs)
					if err := h.Close(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(mid), "partial-rows")
			})
		}
		releaseAll(recs)
	}
}
