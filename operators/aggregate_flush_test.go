package operators_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// The flush tests run a partial aggregation by k1 with and without
// flushing (FlushPartial) and the Final aggregation over each output: the
// final results must be equal, the flushing must happen on input
// clustered by the key and stop where keys recur, and every byte must
// come back.

// flushData makes batches over spillSchema whose k1 comes in runs of 1–7
// equal keys (clustered: every key one run, some runs null) or, with
// shuffled, in random order over groups keys.
func flushData(seed uint64, batches, rows, groups int, clustered bool) []arrow.Record {
	r := rand.New(rand.NewPCG(seed, 7))
	var out []arrow.Record
	key, left, null := int64(0), 0, false
	for range batches {
		b := array.NewRecordBuilder(memory.DefaultAllocator, spillSchema)
		for range rows {
			if clustered {
				if left == 0 {
					key, left, null = key+1+r.Int64N(3), 1+r.IntN(7), r.IntN(20) == 0
				}
				left--
			} else {
				key, null = r.Int64N(int64(groups)), r.IntN(20) == 0
			}
			if null {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(key)
			}
			b.Field(1).(*array.StringBuilder).Append("x")
			if r.IntN(10) == 0 {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Int64Builder).Append(r.Int64N(1e12) - 5e11)
			}
			if r.IntN(10) == 0 {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(r.Int64N(2e9) - 1e9))
			}
			if r.IntN(10) == 0 {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("s%x", r.Uint32()))
			}
			if r.IntN(10) == 0 {
				b.Field(5).AppendNull()
			} else {
				b.Field(5).(*array.Float64Builder).Append(float64(r.IntN(2000) - 1000))
			}
		}
		out = append(out, b.NewRecordBatch())
		b.Release()
	}
	return out
}

// runPartial runs c over recs, flushing or not, and returns its output
// records (copied) and how many segments it flushed.
func runPartial(t *testing.T, tgt *operators.Target, c aggCase, recs []arrow.Record, flush bool) ([]arrow.Record, int) {
	t.Helper()
	h, err := operators.NewHashAggregate(tgt, operators.NewRecordSource(spillSchema, recs...), c.where, c.keys, c.calls, c.mode, c.names())
	if err != nil {
		t.Fatal(err)
	}
	if flush {
		h.FlushPartial()
	}
	ctx := context.Background()
	if err := h.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var out []arrow.Record
	var rows int64
	for {
		rec, err := h.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		rows += rec.NumRows()
		out = append(out, copyRecord(t, rec))
		rec.Release()
	}
	if st := h.Stats(); st.RowsOut != rows {
		t.Errorf("stats say %d rows out, %d came", st.RowsOut, rows)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	return out, h.Flushes()
}

func TestHashAggregateFlushPartial(t *testing.T) {
	defer operators.SetPartialFlushRows(3000)()
	calls := updateCalls(false)
	where := expr.Call(expr.OpGt, types.DataType{Kind: types.Boolean}, colF, expr.Literal(float64(-900), types.DoubleType))
	for _, tc := range []struct {
		name      string
		clustered bool
		groups    int
		where     *expr.Expr
		flushes   func(n int) bool
	}{
		{"clustered", true, 0, nil, func(n int) bool { return n >= 3 }},
		{"clustered-filtered", true, 0, where, func(n int) bool { return n >= 1 }},
		{"random-many", false, 1 << 30, nil, func(n int) bool { return n >= 3 }},
		{"random-few", false, 300, nil, func(n int) bool { return n == 1 }},
	} {
		recs := flushData(uint64(len(tc.name)), 7, 2500, tc.groups, tc.clustered)
		for _, mode := range []string{"host-visible", "discrete"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				tgt := spillTarget(t, "soft:memory=256MiB,cores=2,mode="+mode, 0, "")
				c := aggCase{keys: []*expr.Expr{colK1}, calls: calls, mode: operators.AggUpdate, where: tc.where}
				plain, n0 := runPartial(t, tgt, c, recs, false)
				defer releaseAll(plain)
				flushed, n := runPartial(t, tgt, c, recs, true)
				defer releaseAll(flushed)
				if n0 != 0 || !tc.flushes(n) {
					t.Errorf("flushed %d segments (%d without FlushPartial)", n, n0)
				}
				rows := func(rs []arrow.Record) (k int64) {
					for _, r := range rs {
						k += r.NumRows()
					}
					return k
				}
				t.Logf("%d segments flushed; partial rows %d → %d", n, rows(plain), rows(flushed))
				if len(plain) == 0 {
					t.Fatal("no output")
				}
				schema := plain[0].Schema()
				m := mergeCase(c, schema)
				want, _, err := m.run(t, tgt, schema, plain)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := m.run(t, tgt, schema, flushed)
				if err != nil {
					t.Fatal(err)
				}
				if err := compareRows(got, want); err != nil {
					t.Fatalf("final over the flushed partial differs: %v", err)
				}
				if n := tgt.Account.InUse(); n != 0 {
					t.Errorf("task account holds %d bytes after Close", n)
				}
			})
		}
		releaseAll(recs)
	}
}

// TestHashAggregateFlushNever: first(), two keys or a string key never
// flush.
func TestHashAggregateFlushNever(t *testing.T) {
	defer operators.SetPartialFlushRows(1000)()
	recs := flushData(3, 4, 2500, 0, true)
	defer releaseAll(recs)
	tgt := spillTarget(t, "soft:memory=256MiB,cores=1", 0, "")
	for i, c := range []aggCase{
		{keys: []*expr.Expr{colK1}, calls: updateCalls(true)},
		{keys: []*expr.Expr{colK1, colK2}, calls: updateCalls(false)},
		{keys: []*expr.Expr{colK2}, calls: updateCalls(false)},
	} {
		out, n := runPartial(t, tgt, c, recs, true)
		releaseAll(out)
		if n != 0 {
			t.Errorf("case %d flushed %d segments", i, n)
		}
	}
}
