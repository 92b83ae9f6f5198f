package operators_test

import (
	"context"
	"math/big"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// The partial buffers of avg and sum must be Spark's exactly, because a
// Spark Final step may merge them (Average.scala, Sum.scala, Spark 3.x):
//
//	avg(x), x integral or double: (sum: double = 0.0, count: bigint = 0),
//	    updated by sum + coalesce(cast(x as double), 0.0); merged by
//	    sum.left + sum.right, so a null partial sum would null the group.
//	avg(x: decimal(p,s)): (sum: decimal(p+10,s) = 0, count = 0), the same.
//	sum(x), x integral or double: (sum = null), coalesce-added.
//	sum(x: decimal(p,s)): (sum: decimal(p+10,s) = 0, isEmpty = true).
//
// So a group whose inputs are all null has the avg buffers (0.0, 0) and
// (0, 0), the sum buffers null and (0, true).

var avgBufSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
}, nil)

// avgBufCalls are the calls under test; the buffer columns follow the key
// in this order: avg(i) sum,count; avg(l) sum,count; avg(f) sum,count;
// avg(d) sum,count; sum(f); sum(l); sum(d) sum,isEmpty; count(f).
func avgBufCalls() []operators.AggCall {
	col := func(i int) *expr.Expr {
		f := avgBufSchema.Field(i)
		dt, _ := types.FromArrow(f.Type)
		return expr.Column(i, f.Name, dt)
	}
	call := func(fn string, c *expr.Expr) operators.AggCall {
		return operators.AggCall{Func: fn, Args: []*expr.Expr{c}, Input: c.Type}
	}
	i, l, f, d := col(1), col(2), col(3), col(4)
	return []operators.AggCall{call("avg", i), call("avg", l), call("avg", f), call("avg", d),
		call("sum", f), call("sum", l), call("sum", d), call("count", f)}
}

// avgBufRecord builds a record of avgBufSchema from rows (nil: null;
// decimals as their unscaled int64).
func avgBufRecord(rows [][]any) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, avgBufSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r[0].(int64))
		for j := 1; j < len(r); j++ {
			if r[j] == nil {
				b.Field(j).AppendNull()
				continue
			}
			switch fb := b.Field(j).(type) {
			case *array.Int32Builder:
				fb.Append(r[j].(int32))
			case *array.Int64Builder:
				fb.Append(r[j].(int64))
			case *array.Float64Builder:
				fb.Append(r[j].(float64))
			case *array.Decimal128Builder:
				fb.Append(decimal128.FromI64(r[j].(int64)))
			}
		}
	}
	return b.NewRecordBatch()
}

// runAgg runs a HashAggregate over recs and returns its rows sorted by the
// first (bigint key) column, and the output schema.
func runAgg(t *testing.T, schema *arrow.Schema, recs []arrow.Record, keys []*expr.Expr, calls []operators.AggCall, mode operators.AggMode) ([][]any, *arrow.Schema) {
	t.Helper()
	var names []string
	for range keys {
		names = append(names, "k")
	}
	for _, c := range calls {
		bt, err := c.BufferTypes()
		if err != nil {
			t.Fatal(err)
		}
		for range bt {
			names = append(names, c.Func)
		}
	}
	tgt := newTarget(t, "soft:memory=64MiB,cores=2")
	for _, r := range recs {
		r.Retain()
	}
	h, err := operators.NewHashAggregate(tgt, operators.NewRecordSource(schema, recs...), nil, keys, calls, mode, names)
	if err != nil {
		t.Fatal(err)
	}
	out, err := operators.Collect(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	rows := rowsOf(out)
	for _, r := range out {
		r.Release()
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a][0].(int64) < rows[b][0].(int64) })
	return rows, h.Schema()
}

func dec(u int64) *big.Int { return big.NewInt(u) }

// Inputs: group 1 all null, group 2 full, group 3 half null.
var avgBufInput = [][]any{
	{int64(1), nil, nil, nil, nil},
	{int64(2), int32(3), int64(10), 1.5, int64(125)},
	{int64(3), nil, int64(7), nil, nil},
	{int64(1), nil, nil, nil, nil},
	{int64(2), int32(5), int64(-4), 2.5, int64(200)},
	{int64(3), int32(7), nil, -0.5, int64(310)},
}

// Spark's partial buffers for avgBufInput, per group.
var avgBufWant = [][]any{
	{int64(1), 0.0, int64(0), 0.0, int64(0), 0.0, int64(0), dec(0), int64(0), nil, nil, dec(0), true, int64(0)},
	{int64(2), 8.0, int64(2), 6.0, int64(2), 4.0, int64(2), dec(325), int64(2), 4.0, int64(6), dec(325), false, int64(2)},
	{int64(3), 7.0, int64(1), 7.0, int64(1), -0.5, int64(1), dec(310), int64(1), -0.5, int64(7), dec(310), false, int64(1)},
}

func TestHashAggregatePartialBuffersAllNull(t *testing.T) {
	rec := avgBufRecord(avgBufInput)
	defer rec.Release()
	k := expr.Column(0, "k", types.LongType)
	got, _ := runAgg(t, avgBufSchema, []arrow.Record{rec}, []*expr.Expr{k}, avgBufCalls(), operators.AggUpdate)
	if err := compareRows(got, avgBufWant); err != nil {
		t.Fatalf("partial buffers differ from Spark's: %v\ngot  %v\nwant %v", err, got, avgBufWant)
	}
	// Without keys, the one global group of all-null inputs or of no
	// input at all (an empty partition) has Spark's initial buffers too.
	for _, in := range [][][]any{avgBufInput[:1], nil} {
		r := avgBufRecord(in)
		got, _ = runAgg(t, avgBufSchema, []arrow.Record{r}, nil, avgBufCalls(), operators.AggUpdate)
		r.Release()
		if err := compareRows(got, [][]any{avgBufWant[0][1:]}); err != nil {
			t.Fatalf("global partial buffers of %d rows differ from Spark's: %v\ngot  %v\nwant %v", len(in), err, got, avgBufWant[0][1:])
		}
	}
}

// sparkAvgFinal merges avg buffers (sum, count) as Spark's Final step does
// (sum.left + sum.right: null if either is null) and evaluates the double
// average (null when the count is 0).
func sparkAvgFinal(parts [][2]any) any {
	sum, count := any(0.0), int64(0)
	for _, p := range parts {
		if sum == nil || p[0] == nil {
			sum = nil
		} else {
			sum = sum.(float64) + p[0].(float64)
		}
		count += p[1].(int64)
	}
	if sum == nil || count == 0 {
		return nil
	}
	return sum.(float64) / float64(count)
}

// TestHashAggregateAvgFinalOfDevicePartials merges two device partials
// (one with an all-null group that the other has values for) the way
// Spark's Final does, and with the device's merge mode: both give the
// averages of all the inputs, and null for a group without any input.
func TestHashAggregateAvgFinalOfDevicePartials(t *testing.T) {
	second := [][]any{
		{int64(1), int32(4), int64(4), 4.0, int64(400)},
		{int64(4), nil, nil, nil, nil},
	}
	k := expr.Column(0, "k", types.LongType)
	var partials [][][]any
	var parts []arrow.Record
	var pschema *arrow.Schema
	for _, in := range [][][]any{avgBufInput, second} {
		rec := avgBufRecord(in)
		rows, schema := runAgg(t, avgBufSchema, []arrow.Record{rec}, []*expr.Expr{k}, avgBufCalls(), operators.AggUpdate)
		rec.Release()
		partials = append(partials, rows)
		pschema = schema
		parts = append(parts, recordOfRows(t, schema, rows))
	}
	defer releaseAll(parts)

	// Spark's Final over the device partials: avg(i), avg(l), avg(f) are
	// buffer columns (1,2), (3,4), (5,6).
	want := map[int64][3]any{1: {4.0, 4.0, 4.0}, 2: {4.0, 3.0, 2.0}, 3: {7.0, 7.0, -0.5}, 4: {nil, nil, nil}}
	for key, w := range want {
		for a := 0; a < 3; a++ {
			var bufs [][2]any
			for _, p := range partials {
				for _, r := range p {
					if r[0].(int64) == key {
						bufs = append(bufs, [2]any{r[1+2*a], r[2+2*a]})
					}
				}
			}
			if got := sparkAvgFinal(bufs); got != w[a] {
				t.Errorf("group %d avg #%d: Spark's Final of the device partials %v is %v, want %v", key, a, bufs, got, w[a])
			}
		}
	}

	// The device's Final (merge mode) gives the merged buffers.
	var mcalls []operators.AggCall
	col := 1
	for _, c := range avgBufCalls() {
		bt, _ := c.BufferTypes()
		mc := operators.AggCall{Func: c.Func, Input: c.Input}
		for _, dt := range bt {
			mc.Args = append(mc.Args, expr.Column(col, pschema.Field(col).Name, dt))
			col++
		}
		mcalls = append(mcalls, mc)
	}
	merged, _ := runAgg(t, pschema, parts, []*expr.Expr{expr.Column(0, "k", types.LongType)}, mcalls, operators.AggMerge)
	wantMerged := [][]any{
		{int64(1), 4.0, int64(1), 4.0, int64(1), 4.0, int64(1), dec(400), int64(1), 4.0, int64(4), dec(400), false, int64(1)},
		avgBufWant[1], avgBufWant[2],
		{int64(4), 0.0, int64(0), 0.0, int64(0), 0.0, int64(0), dec(0), int64(0), nil, nil, dec(0), true, int64(0)},
	}
	if err := compareRows(merged, wantMerged); err != nil {
		t.Fatalf("merged buffers: %v\ngot  %v\nwant %v", err, merged, wantMerged)
	}

	// Final values over the merged buffers (Spark's evaluateExpression, as
	// race/exec projects it): avg(f) = sum / cast(count as double), avg(d) =
	// cast(sum / cast(count as decimal(20,0)) as decimal(16,6)); a group
	// without input is null either way.
	mrec := recordOfRows(t, pschema, merged)
	fSum := expr.Column(5, "f_sum", types.DoubleType)
	fCount := expr.Column(6, "f_count", types.LongType)
	dSum := expr.Column(7, "d_sum", types.DecimalOf(22, 2))
	dCount := expr.Column(8, "d_count", types.LongType)
	long := types.DecimalOf(20, 0)
	qt, err := types.Arithmetic("/", dSum.Type, long)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := types.Aggregate("avg", types.DecimalOf(12, 2))
	if err != nil {
		t.Fatal(err)
	}
	proj := []*expr.Expr{
		expr.Call(expr.OpDiv, types.DoubleType, fSum, expr.Call(expr.OpCast, types.DoubleType, fCount)),
		expr.Call(expr.OpCast, rt, expr.Call(expr.OpDiv, qt, dSum, expr.Call(expr.OpCast, long, dCount))),
	}
	wantFinal := [][]any{{4.0, dec(4_000000)}, {2.0, dec(1_625000)}, {-0.5, dec(3_100000)}, {nil, nil}}
	for side, rows := range runProjection(t, mrec, proj) {
		if err := compareRows(rows, wantFinal); err != nil {
			t.Errorf("%s: final averages: %v\ngot  %v\nwant %v", side, err, rows, wantFinal)
		}
	}
}

// recordOfRows builds a record of schema from rows of Go values (as
// expr.ValueAt returns them).
func recordOfRows(t *testing.T, schema *arrow.Schema, rows [][]any) arrow.Record {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		for j, v := range r {
			if v == nil {
				b.Field(j).AppendNull()
				continue
			}
			switch fb := b.Field(j).(type) {
			case *array.Int64Builder:
				fb.Append(v.(int64))
			case *array.Float64Builder:
				fb.Append(v.(float64))
			case *array.BooleanBuilder:
				fb.Append(v.(bool))
			case *array.Decimal128Builder:
				fb.Append(decimal128.FromBigInt(v.(*big.Int)))
			default:
				t.Fatalf("column %d: unexpected builder %T", j, fb)
			}
		}
	}
	return b.NewRecordBatch()
}
