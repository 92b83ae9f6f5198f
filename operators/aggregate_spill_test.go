package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/spill"
	"github.com/hados-io/hados/operators/types"
)

// The spill tests run aggregations under a task quota far too small for
// their groups, with a spill manager, and check that the result is exactly
// the unspilled one (rows compared as sets), that the Go reference agrees,
// that files and memory all come back, and that without a spill directory
// the error names the operator and the sizes.

var spillSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k1", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "k2", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

var (
	colK1 = expr.Column(0, "k1", types.LongType)
	colK2 = expr.Column(1, "k2", types.StringType)
	colV  = expr.Column(2, "v", types.LongType)
	colD  = expr.Column(3, "d", types.DecimalOf(12, 2))
	colS  = expr.Column(4, "s", types.StringType)
	colF  = expr.Column(5, "f", types.DoubleType)
)

// spillData makes batches of rows over about groups distinct (k1, k2)
// pairs, with nulls in every column; doubles are small integers so that
// their sums are exact in any order.
func spillData(seed uint64, batches, rows, groups int) []arrow.Record {
	r := rand.New(rand.NewPCG(seed, 99))
	var out []arrow.Record
	for range batches {
		b := array.NewRecordBuilder(memory.DefaultAllocator, spillSchema)
		null := func() bool { return r.IntN(10) == 0 }
		for range rows {
			g := r.IntN(groups)
			if null() {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(int64(g / 4))
			}
			if g%4 == 3 && null() {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append([]string{"alpha", "b", "a-rather-long-key-string", ""}[g%4])
			}
			if null() {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Int64Builder).Append(r.Int64N(1e12) - 5e11)
			}
			if null() {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(r.Int64N(2e9) - 1e9))
			}
			if null() {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("s%x", r.Uint32()))
			}
			if null() {
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

// aggCase is one aggregation: its keys, calls and mode over an input.
type aggCase struct {
	keys  []*expr.Expr
	calls []operators.AggCall
	mode  operators.AggMode
	where *expr.Expr
}

func (c aggCase) names() []string {
	var names []string
	for i := range c.keys {
		names = append(names, fmt.Sprintf("key%d", i))
	}
	for i, call := range c.calls {
		bt, _ := call.BufferTypes()
		for j := range bt {
			names = append(names, fmt.Sprintf("agg%d_%d", i, j))
		}
	}
	return names
}

// run aggregates recs on t and returns the result rows in a canonical
// order, with the operator's stats.
func (c aggCase) run(tb testing.TB, t *operators.Target, schema *arrow.Schema, recs []arrow.Record) ([][]any, operators.Stats, error) {
	tb.Helper()
	h, err := operators.NewHashAggregate(t, operators.NewRecordSource(schema, recs...), c.where, c.keys, c.calls, c.mode, c.names())
	if err != nil {
		tb.Fatal(err)
	}
	// results are read as they come and released: all of them together
	// need not fit in the quota
	ctx := context.Background()
	defer h.Close()
	if err := h.Open(ctx); err != nil {
		return nil, h.Stats(), err
	}
	var rows [][]any
	for {
		rec, err := h.Next(ctx)
		if err != nil {
			return nil, h.Stats(), err
		}
		if rec == nil {
			break
		}
		for _, row := range rowsOf([]arrow.Record{rec}) {
			for j, v := range row { // strings alias the record's buffers
				if s, ok := v.(string); ok {
					row[j] = strings.Clone(s)
				}
			}
			rows = append(rows, row)
		}
		rec.Release()
	}
	if err := h.Close(); err != nil {
		return nil, h.Stats(), err
	}
	return sortedRows(rows), h.Stats(), nil
}

func sortedRows(rows [][]any) [][]any {
	keys := make([]string, len(rows))
	idx := make([]int, len(rows))
	for i, r := range rows {
		keys[i], idx[i] = fmt.Sprintf("%v", r), i
	}
	sort.Slice(idx, func(i, j int) bool { return keys[idx[i]] < keys[idx[j]] })
	out := make([][]any, len(rows))
	for i, j := range idx {
		out[i] = rows[j]
	}
	return out
}

// updateCalls are Partial/Complete calls over spillSchema: count(*),
// count(v), sum(v), sum(d), avg(d), avg(f), min(s), max(s), max(d) and,
// with first, first(v) and first(s, ignoreNulls).
func updateCalls(first bool) []operators.AggCall {
	calls := []operators.AggCall{
		{Func: "count", Input: types.LongType},
		{Func: "count", Args: []*expr.Expr{colV}, Input: types.LongType},
		{Func: "sum", Args: []*expr.Expr{colV}, Input: types.LongType},
		{Func: "sum", Args: []*expr.Expr{colD}, Input: colD.Type},
		{Func: "avg", Args: []*expr.Expr{colD}, Input: colD.Type},
		{Func: "avg", Args: []*expr.Expr{colF}, Input: types.DoubleType},
		{Func: "min", Args: []*expr.Expr{colS}, Input: types.StringType},
		{Func: "max", Args: []*expr.Expr{colS}, Input: types.StringType},
		{Func: "max", Args: []*expr.Expr{colD}, Input: colD.Type},
	}
	if first {
		calls = append(calls, operators.AggCall{Func: "first", Args: []*expr.Expr{colV}, Input: types.LongType},
			operators.AggCall{Func: "first", Args: []*expr.Expr{colS}, IgnoreNulls: true, Input: types.StringType})
	}
	return calls
}

// mergeCase is the Final aggregation over the output of partial.
func mergeCase(partial aggCase, schema *arrow.Schema) aggCase {
	m := aggCase{mode: operators.AggMerge}
	col := 0
	for range partial.keys {
		f := schema.Field(col)
		dt, _ := types.FromArrow(f.Type)
		m.keys = append(m.keys, expr.Column(col, f.Name, dt))
		col++
	}
	for _, c := range partial.calls {
		bt, _ := c.BufferTypes()
		mc := operators.AggCall{Func: c.Func, Input: c.Input, IgnoreNulls: c.IgnoreNulls}
		for _, dt := range bt {
			mc.Args = append(mc.Args, expr.Column(col, schema.Field(col).Name, dt))
			col++
		}
		m.calls = append(m.calls, mc)
	}
	return m
}

// spillTarget is a target whose task account has the given quota and,
// if dir is not empty, a spill manager there.
func spillTarget(tb testing.TB, cfg string, quota uint64, dir string) *operators.Target {
	tb.Helper()
	t := newTarget(tb, cfg)
	t.Account = hmem.NewAccount("task 7", quota, t.Pool.Account())
	if dir != "" {
		m, err := spill.NewManager(dir, exchange.LZ4)
		if err != nil {
			tb.Fatal(err)
		}
		t.Spill = m
		tb.Cleanup(func() {
			if err := m.Close(); err != nil {
				tb.Error(err)
			}
		})
	}
	return t
}

// checkSpilled runs c on a roomy target and on a small quota with spill,
// and checks the results are equal and everything came back.
func checkSpilled(t *testing.T, cfg string, quota uint64, c aggCase, recs []arrow.Record) ([][]any, operators.Stats) {
	t.Helper()
	want, st, err := c.run(t, spillTarget(t, cfg, 0, ""), spillSchema, recs)
	if err != nil {
		t.Fatal(err)
	}
	if st.SpillFiles != 0 {
		t.Fatalf("the unlimited run spilled: %+v", st)
	}
	tgt := spillTarget(t, cfg, quota, t.TempDir())
	got, st, err := c.run(t, tgt, spillSchema, recs)
	if err != nil {
		t.Fatal(err)
	}
	if st.SpillFiles == 0 || st.SpillBytes == 0 || st.SpillRows == 0 {
		t.Fatalf("a quota of %s did not spill: %+v", hmem.FormatBytes(quota), st)
	}
	if err := compareRows(got, want); err != nil {
		t.Fatalf("spilled result differs from the unspilled one: %v", err)
	}
	if n := tgt.Account.InUse(); n != 0 {
		t.Errorf("task account holds %d bytes after Close", n)
	}
	ents, err := os.ReadDir(tgt.Spill.Dir())
	if err != nil || len(ents) != 0 {
		t.Errorf("%d spill files left after Close (%v)", len(ents), err)
	}
	ms := tgt.Spill.Stats()
	if ms.Files != st.SpillFiles || ms.Bytes != st.SpillBytes || ms.Rows != st.SpillRows {
		t.Errorf("operator stats %+v disagree with the manager's %+v", st, ms)
	}
	t.Logf("%d groups; spilled %d rows in %d files, %s", len(want), st.SpillRows, st.SpillFiles, hmem.FormatBytes(uint64(st.SpillBytes)))
	return got, st
}

const spillQuota = 8 << 20

func TestHashAggregateSpillPartial(t *testing.T) {
	recs := spillData(1, 6, 5000, 12000)
	defer releaseAll(recs)
	for _, mode := range []string{"host-visible", "discrete"} {
		t.Run(mode, func(t *testing.T) {
			c := aggCase{keys: []*expr.Expr{colK1, colK2}, calls: updateCalls(false), mode: operators.AggUpdate}
			got, _ := checkSpilled(t, "soft:memory=256MiB,cores=2,mode="+mode, spillQuota, c, recs)
			if err := compareRows(got, sortedRows(refAggregate(t, recs))); err != nil {
				t.Errorf("against the reference: %v", err)
			}
		})
	}
}

// TestHashAggregateSpillFirst uses one core: first() then follows input
// order with or without spilling.
func TestHashAggregateSpillFirst(t *testing.T) {
	recs := spillData(2, 5, 4000, 9000)
	defer releaseAll(recs)
	c := aggCase{keys: []*expr.Expr{colK2, colK1}, calls: updateCalls(true), mode: operators.AggUpdate}
	checkSpilled(t, "soft:memory=256MiB,cores=1", 4<<20, c, recs)
}

// TestHashAggregateSpillFiltered fuses a filter (Complete mode's shape
// after a Filter): a failed update's resume point is found by counting.
func TestHashAggregateSpillFiltered(t *testing.T) {
	recs := spillData(3, 4, 6000, 12000)
	defer releaseAll(recs)
	where := expr.Call(expr.OpGt, types.BooleanType, colV, expr.Literal(int64(-3e11), types.LongType))
	c := aggCase{keys: []*expr.Expr{colK1, colK2}, calls: updateCalls(false), mode: operators.AggUpdate, where: where}
	checkSpilled(t, "soft:memory=256MiB,cores=2", spillQuota, c, recs)
}

// TestHashAggregateSpillFinal merges partial buffers (Final mode): the
// partial aggregation of each batch separately, then a spilling merge.
func TestHashAggregateSpillFinal(t *testing.T) {
	recs := spillData(4, 6, 5000, 12000)
	defer releaseAll(recs)
	cfg := "soft:memory=256MiB,cores=2"
	partial := aggCase{keys: []*expr.Expr{colK1, colK2}, calls: updateCalls(false), mode: operators.AggUpdate}
	roomy := spillTarget(t, cfg, 0, "")
	var parts []arrow.Record
	for _, r := range recs {
		h, err := operators.NewHashAggregate(roomy, operators.NewRecordSource(spillSchema, r), nil, partial.keys, partial.calls, partial.mode, partial.names())
		if err != nil {
			t.Fatal(err)
		}
		out, err := operators.Collect(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out { // into Go memory: the records outlive nothing
			parts = append(parts, copyRecord(t, o))
			o.Release()
		}
	}
	defer releaseAll(parts)
	schema := parts[0].Schema()
	final := mergeCase(partial, schema)
	want, _, err := final.run(t, spillTarget(t, cfg, 0, ""), schema, parts)
	if err != nil {
		t.Fatal(err)
	}
	tgt := spillTarget(t, cfg, spillQuota, t.TempDir())
	got, st, err := final.run(t, tgt, schema, parts)
	if err != nil {
		t.Fatal(err)
	}
	if st.SpillFiles == 0 {
		t.Fatalf("did not spill: %+v", st)
	}
	if err := compareRows(got, want); err != nil {
		t.Fatalf("spilled Final differs: %v", err)
	}
	// and the Final equals the one-pass partial aggregation
	one, _, err := partial.run(t, roomy, spillSchema, recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := compareRows(got, one); err != nil {
		t.Fatalf("Final of partials differs from one pass: %v", err)
	}
}

func copyRecord(t *testing.T, r arrow.Record) arrow.Record {
	t.Helper()
	cols := make([]arrow.Array, r.NumCols())
	for i, c := range r.Columns() {
		a, err := array.Concatenate([]arrow.Array{c}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = a
	}
	out := array.NewRecordBatch(r.Schema(), cols, r.NumRows())
	release2(cols)
	return out
}

func release2(a []arrow.Array) {
	for _, x := range a {
		x.Release()
	}
}

// TestHashAggregateSpillRecursive gives so little memory that one
// partition of groups does not fit either and the merge spills again.
func TestHashAggregateSpillRecursive(t *testing.T) {
	defer operators.SetSpillPartitions(2)()
	recs := spillData(5, 8, 5000, 60000)
	defer releaseAll(recs)
	c := aggCase{keys: []*expr.Expr{colK1, colK2}, calls: updateCalls(false)[:4], mode: operators.AggUpdate}
	_, st := checkSpilled(t, "soft:memory=256MiB,cores=2", 4<<20, c, recs)
	if st.SpillFiles <= 4 { // 2 runs of the first level, each a data and an index file
		t.Errorf("no second level of spilling: %+v", st)
	}
}

// TestHashAggregateQuotaExceeded: without a spill directory the error
// names the operator, the budget and why it could not spill.
func TestHashAggregateQuotaExceeded(t *testing.T) {
	recs := spillData(6, 3, 5000, 12000)
	defer releaseAll(recs)
	tgt := spillTarget(t, "soft:memory=256MiB,cores=2", spillQuota, "")
	c := aggCase{keys: []*expr.Expr{colK1, colK2}, calls: updateCalls(false), mode: operators.AggUpdate}
	_, _, err := c.run(t, tgt, spillSchema, recs)
	if err == nil {
		t.Fatal("a tiny quota without spilling succeeded")
	}
	if !errors.Is(err, hmem.ErrQuotaExceeded) {
		t.Errorf("%v does not match memory.ErrQuotaExceeded", err)
	}
	msg := err.Error()
	for _, w := range []string{"HashAggregate: memory quota exceeded", "aggregation state", "each of 2 states may hold 1.3 MiB", "task 7", "8.0 MiB", "cannot spill: no spill directory"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	if n := tgt.Account.InUse(); n != 0 {
		t.Errorf("task account holds %d bytes after the failure", n)
	}
}

func TestQuotaExceededText(t *testing.T) {
	qe := &hmem.QuotaError{Account: "task 3", Requested: 64 << 20, InUse: 200 << 20, Limit: 256 << 20}
	cases := []struct {
		err  error
		why  string
		want string
	}{
		{qe, "no spill directory", "Sort: memory quota exceeded: task 3 requested 64.0 MiB with 200.0 MiB of 256.0 MiB in use; cannot spill: no spill directory"},
		{fmt.Errorf("sort: %w", qe), "", "Sort: sort: memory quota exceeded: task 3 requested 64.0 MiB with 200.0 MiB of 256.0 MiB in use"},
		{errors.New("device memory exhausted: 5 MiB"), "x", "Sort: memory quota exceeded: device memory exhausted: 5 MiB; cannot spill: x"},
	}
	for _, c := range cases {
		err := operators.QuotaExceeded("Sort", c.err, c.why)
		if err.Error() != c.want {
			t.Errorf("got  %q\nwant %q", err, c.want)
		}
		if !errors.Is(err, hmem.ErrQuotaExceeded) {
			t.Errorf("%v does not match ErrQuotaExceeded", err)
		}
		var q *hmem.QuotaError
		if errors.Is(c.err, hmem.ErrQuotaExceeded) && (!errors.As(err, &q) || q != qe) {
			t.Errorf("%v: the QuotaError is lost", err)
		}
	}
}

// refAggregate is the Go reference of keys (k1, k2) with count(*),
// count(v), sum(v), then (skipping the decimal and double buffers) min(s)
// and max(s): it returns rows shaped like updateCalls(false)'s output with
// the columns it does not compute copied as nil, for compareRows on the
// columns it does.
func refAggregate(t *testing.T, recs []arrow.Record) [][]any {
	type acc struct {
		k1, k2        any
		n, nv         int64
		sum           *int64
		minS, maxS    any
		sumD, maxD    *big.Int
		seenD         bool
		avgSum        *big.Int
		avgN          int64
		avgF          float64
		avgFN         int64
		avgFAny, anyD bool
	}
	groups := map[string]*acc{}
	var order []string
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			k1, k2 := expr.ValueAt(r.Column(0), i), expr.ValueAt(r.Column(1), i)
			key := fmt.Sprintf("%v|%v|%v", k1 == nil, k1, k2)
			if k2 == nil {
				key += "|null"
			}
			a := groups[key]
			if a == nil {
				a = &acc{k1: k1, k2: k2, sumD: new(big.Int), avgSum: new(big.Int)}
				groups[key] = a
				order = append(order, key)
			}
			a.n++
			if v := expr.ValueAt(r.Column(2), i); v != nil {
				a.nv++
				s := v.(int64)
				if a.sum != nil {
					s += *a.sum
				}
				a.sum = &s
			}
			if d := expr.ValueAt(r.Column(3), i); d != nil {
				x := d.(*big.Int)
				a.sumD.Add(a.sumD, x)
				a.avgSum.Add(a.avgSum, x)
				a.avgN++
				if a.maxD == nil || x.Cmp(a.maxD) > 0 {
					a.maxD = x
				}
				a.anyD = true
			}
			if s := expr.ValueAt(r.Column(4), i); s != nil {
				if a.minS == nil || s.(string) < a.minS.(string) {
					a.minS = s
				}
				if a.maxS == nil || s.(string) > a.maxS.(string) {
					a.maxS = s
				}
			}
			if f := expr.ValueAt(r.Column(5), i); f != nil {
				a.avgF += f.(float64)
				a.avgFN++
			}
		}
	}
	var rows [][]any
	for _, k := range order {
		a := groups[k]
		var sum any
		if a.sum != nil {
			sum = *a.sum
		}
		var maxD any // Spark's decimal sum buffer starts at 0 with isEmpty true
		if a.anyD {
			maxD = a.maxD
		}
		avgF := a.avgF // Spark's double avg sum starts at 0.0: never null
		rows = append(rows, []any{a.k1, a.k2, a.n, a.nv, sum, a.sumD, !a.anyD, a.avgSum, a.avgN, avgF, a.avgFN, a.minS, a.maxS, maxD})
	}
	return rows
}
