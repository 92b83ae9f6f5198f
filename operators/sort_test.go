package operators_test

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/pipeline"
	"github.com/hados-io/hados/operators/spill"
	"github.com/hados-io/hados/operators/types"
)

// sparkCmp compares two evaluator values of one type as Spark's SortOrder
// does (nil = NULL).
func sparkCmp(a, b any, desc, nullsFirst bool) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case (a == nil) == nullsFirst:
			return -1
		}
		return 1
	}
	var r int
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		r = map[bool]int{false: 0, true: 1}[x] - map[bool]int{false: 0, true: 1}[y]
	case int32:
		r = cmp.Compare(x, b.(int32))
	case int64:
		r = cmp.Compare(x, b.(int64))
	case float64:
		y := b.(float64)
		switch nx, ny := math.IsNaN(x), math.IsNaN(y); {
		case nx || ny:
			r = b01(nx) - b01(ny)
		case x < y:
			r = -1
		case x > y:
			r = 1
		}
	case *big.Int:
		r = x.Cmp(b.(*big.Int))
	case string:
		r = strings.Compare(x, b.(string))
	default:
		panic("sparkCmp: unexpected type")
	}
	if desc {
		r = -r
	}
	return r
}

func b01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// refSortRows sorts rows stably by the key values keyVals[i] (one slice per row).
func refSortRows(rows [][]any, keyVals [][]any, keys []operators.SortKey) [][]any {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		for k, sk := range keys {
			if r := sparkCmp(keyVals[idx[i]][k], keyVals[idx[j]][k], sk.Descending, sk.NullsFirst); r != 0 {
				return r < 0
			}
		}
		return false
	})
	out := make([][]any, len(rows))
	for i, x := range idx {
		out[i] = rows[x]
	}
	return out
}

// keyValues evaluates the keys over every input row with the reference.
func keyValues(t *testing.T, recs []arrow.Record, keys []operators.SortKey) [][]any {
	var out [][]any
	for _, r := range recs {
		cols := make([]arrow.Array, len(keys))
		for k, sk := range keys {
			a, err := expr.Eval(sk.Expr, r, memory.DefaultAllocator)
			if err != nil {
				t.Fatalf("reference key %v: %v", sk.Expr, err)
			}
			defer a.Release()
			cols[k] = a
		}
		for i := 0; i < int(r.NumRows()); i++ {
			row := make([]any, len(keys))
			for k, c := range cols {
				row[k] = expr.ValueAt(c, i)
			}
			out = append(out, row)
		}
	}
	return out
}

// randomBatches splits rows random rows of schema into batches.
func randomBatches(rng *rand.Rand, schema *arrow.Schema, rows int, nulls float64) []arrow.Record {
	var recs []arrow.Record
	for rows > 0 {
		n := min(rows, 1+rng.IntN(3000))
		if rng.IntN(4) == 0 {
			n = min(rows, 1+rng.IntN(5))
		}
		recs = append(recs, expr.RandomRecord(rng, schema, n, nulls, memory.DefaultAllocator))
		rows -= n
	}
	return recs
}

// runSort sorts recs by keys on tgt and returns the output batches (the
// caller releases them).
func runSort(tb testing.TB, tgt *operators.Target, schema *arrow.Schema, keys []operators.SortKey, recs ...arrow.Record) []arrow.Record {
	tb.Helper()
	op, err := operators.NewSort(tgt, operators.NewRecordSource(schema, recs...), keys)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := operators.Collect(context.Background(), op)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// deviceSortRows sorts recs by keys on tgt and returns the result's rows.
func deviceSortRows(t *testing.T, tgt *operators.Target, schema *arrow.Schema, keys []operators.SortKey, recs ...arrow.Record) [][]any {
	t.Helper()
	out := runSort(t, tgt, schema, keys, recs...)
	defer releaseAll(out)
	return rowsOf(out)
}

// randomKeys picks 1-3 keys: columns (sometimes the same column twice, low
// cardinality through a computed key) with random directions.
func randomKeys(rng *rand.Rand, schema *arrow.Schema, computed bool) []operators.SortKey {
	var keys []operators.SortKey
	for k := 1 + rng.IntN(3); k > 0; k-- {
		c := rng.IntN(schema.NumFields())
		dt, _ := types.FromArrow(schema.Field(c).Type)
		e := expr.Column(c, schema.Field(c).Name, dt)
		if computed && rng.IntN(2) == 0 {
			e = computedKey(rng, e)
		}
		keys = append(keys, operators.SortKey{Expr: e, Descending: rng.IntN(2) == 0, NullsFirst: rng.IntN(2) == 0})
	}
	return keys
}

// computedKey is a simple expression over column e whose device kernel
// and reference agree (the keys test sorting, not expressions).
func computedKey(rng *rand.Rand, e *expr.Expr) *expr.Expr {
	switch e.Type.Kind {
	case types.Int, types.Long, types.Double:
		return expr.Call(expr.OpNeg, e.Type, e)
	case types.String:
		return expr.Call(expr.OpLength, types.DataType{Kind: types.Int}, e)
	case types.Date:
		return expr.Call(expr.OpYear, types.DataType{Kind: types.Int}, e)
	}
	return expr.Call(expr.OpIsNull, types.DataType{Kind: types.Boolean}, e)
}

// TestSortDifferential sorts random batches of every type with random keys
// (columns and computed expressions, ASC/DESC x NULLS FIRST/LAST) and
// compares every output row with the reference stable sort.
func TestSortDifferential(t *testing.T) {
	ctx := context.Background()
	seeds := 24
	if testing.Short() {
		seeds = 8
	}
	for _, mode := range []string{"host-visible", "discrete"} {
		tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode="+mode)
		ran := 0
		for seed := 0; seed < seeds; seed++ {
			rng := rand.New(rand.NewPCG(uint64(seed), 11))
			if checkRandomSort(ctx, t, tgt, rng, []int{0, 1, 50, 3000, 40000}[seed%5], seed, mode) {
				ran++
			}
		}
		if ran < seeds/2 {
			t.Fatalf("only %d of %d cases ran", ran, seeds)
		}
	}
}

// TestSortSpecialValues covers NaN, -0.0, ties (stability) and strings
// with common prefixes and long strings in one sort.
func TestSortSpecialValues(t *testing.T) {
	tgt := newTarget(t, "soft:memory=64MiB,cores=2")
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	dv := []any{math.NaN(), math.Copysign(0, -1), 0.0, math.Inf(-1), math.Inf(1), 1.0, nil}
	sv := []any{"", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaa", "aaaaaaaa\x00", "b", nil}
	var rows [][]any
	for i := 0; i < 2000; i++ {
		rows = append(rows, []any{dv[rng.IntN(len(dv))], sv[rng.IntN(len(sv))], int64(i)})
	}
	rec := recordOf(t, schema, rows)
	defer rec.Release()
	for _, keys := range [][]operators.SortKey{
		{{Expr: expr.Column(0, "d", types.DataType{Kind: types.Double})}},
		{{Expr: expr.Column(1, "s", types.DataType{Kind: types.String}), Descending: true, NullsFirst: true}},
		{{Expr: expr.Column(1, "s", types.DataType{Kind: types.String})}, {Expr: expr.Column(0, "d", types.DataType{Kind: types.Double}), Descending: true}},
	} {
		got := deviceSortRows(t, tgt, schema, keys, rec)
		want := refSortRows(rows, keyValues(t, []arrow.Record{rec}, keys), keys)
		if err := compareRows(got, want); err != nil {
			t.Fatalf("keys %v: %v", keys, err)
		}
	}
}

// TestSortSpill forces spilling with a tiny quota and a spill manager, and
// checks the merged result; without a manager the same sort fails with
// QuotaExceeded.
func TestSortSpill(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=256MiB,cores=2")
	rng := rand.New(rand.NewPCG(9, 9))
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	recs := randomBatches(rng, schema, 60000, 0.1)
	defer releaseAll(recs)
	keys := []operators.SortKey{{Expr: expr.Column(1, "s", types.DataType{Kind: types.String}), NullsFirst: true},
		{Expr: expr.Column(0, "k", types.DataType{Kind: types.Long}), Descending: true}}
	want := refSortRows(rowsOf(recs), keyValues(t, recs, keys), keys)

	quota := hmem.NewAccount("tiny", 1<<20, tgt.Pool.Account())
	tgt.Account = quota
	op, _ := operators.NewSort(tgt, operators.NewRecordSource(schema, recs...), keys)
	if _, err := operators.Collect(ctx, op); !errors.Is(err, hmem.ErrQuotaExceeded) || !strings.Contains(err.Error(), "Sort: ") ||
		!strings.Contains(err.Error(), "cannot spill: no spill directory") {
		t.Fatalf("without spilling: %v", err)
	}

	m, err := spill.NewManager(t.TempDir(), exchange.LZ4)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tgt.Spill = m
	defer func() { tgt.Spill = nil }()
	op, _ = operators.NewSort(tgt, operators.NewRecordSource(schema, recs...), keys)
	out, err := operators.Collect(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	st := op.Stats()
	got := rowsOf(out)
	releaseAll(out)
	if err := compareRows(got, want); err != nil {
		t.Fatalf("spilled sort: %v", err)
	}
	if st.SpillFiles == 0 || st.SpillRows != 60000 {
		t.Fatalf("spill stats %+v: want files and 60000 rows", st)
	}
	t.Logf("spilled %d rows in %d files (%d bytes)", st.SpillRows, st.SpillFiles, st.SpillBytes)
	if quota.InUse() != 0 {
		t.Fatalf("quota account holds %d bytes", quota.InUse())
	}
}

// recordOf builds a record of rows (nil = NULL) for schemas of int32,
// int64, float64, bool and utf8 columns.
func recordOf(t testing.TB, schema *arrow.Schema, rows [][]any) arrow.Record {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, row := range rows {
		for j, v := range row {
			fb := b.Field(j)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.Int32Builder:
				x.Append(v.(int32))
			case *array.Int64Builder:
				x.Append(v.(int64))
			case *array.Float64Builder:
				x.Append(v.(float64))
			case *array.BooleanBuilder:
				x.Append(v.(bool))
			case *array.StringBuilder:
				x.Append(v.(string))
			default:
				t.Fatalf("recordOf: builder %T", fb)
			}
		}
	}
	return b.NewRecord()
}

// TestSortTiesAcrossCores sorts 70000 rows of a four-valued key (with
// nulls) on two cores, so the final merge is split between the cores
// (merge path) right through runs of equal keys: the order must stay the
// stable one.
func TestSortTiesAcrossCores(t *testing.T) {
	tgt := newTarget(t, "soft:memory=128MiB,cores=2")
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rng := rand.New(rand.NewPCG(4, 4))
	var rows [][]any
	for i := 0; i < 70000; i++ {
		var k any = int32(rng.IntN(4))
		if rng.IntN(10) == 0 {
			k = nil
		}
		rows = append(rows, []any{k, int64(i)})
	}
	rec := recordOf(t, schema, rows)
	defer rec.Release()
	for _, desc := range []bool{false, true} {
		keys := []operators.SortKey{{Expr: expr.Column(0, "k", types.DataType{Kind: types.Int}), Descending: desc, NullsFirst: desc}}
		got := deviceSortRows(t, tgt, schema, keys, rec)
		if err := compareRows(got, refSortRows(rows, keyValues(t, []arrow.Record{rec}, keys), keys)); err != nil {
			t.Fatalf("descending %v: %v", desc, err)
		}
	}
}

// TestSortPartitioned sorts with the order split into key ranges, one per
// core (bounded SORTs, no MERGE), on two and three cores: random schemas
// and keys with nulls against the reference, and keys that are all equal
// or all null (every splitter a tie, decided by the row number: the order
// must stay the input order).
func TestSortPartitioned(t *testing.T) {
	defer operators.SetSortPartitionRows(100)()
	ctx := context.Background()
	for _, cfg := range []string{"cores=2,mode=host-visible", "cores=3,mode=host-visible", "cores=2,mode=discrete"} {
		tgt := newTarget(t, "soft:memory=256MiB,"+cfg)
		for seed := range 8 {
			rng := rand.New(rand.NewPCG(uint64(seed), 21))
			checkRandomSort(ctx, t, tgt, rng, 33000+rng.IntN(20000), seed, cfg)
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
		for _, k := range []any{"same", nil} {
			var rows [][]any
			for i := range 40000 {
				rows = append(rows, []any{k, int64(i)})
			}
			rec := recordOf(t, schema, rows)
			keys := []operators.SortKey{{Expr: expr.Column(0, "k", tStr), Descending: true}}
			got := deviceSortRows(t, tgt, schema, keys, rec)
			rec.Release()
			if err := compareRows(got, rows); err != nil {
				t.Fatalf("%s: every key %v: %v", cfg, k, err)
			}
		}
	}
}

// checkRandomSort sorts rows random rows (a random schema and keys drawn
// from rng, nulls by seed) on tgt and compares them with the reference
// sort; false when the device does not support the keys.
func checkRandomSort(ctx context.Context, t *testing.T, tgt *operators.Target, rng *rand.Rand, rows, seed int, what string) bool {
	t.Helper()
	schema := expr.RandomSchema(rng, 1+rng.IntN(4))
	recs := randomBatches(rng, schema, rows, nullFracs[seed%3])
	keys := randomKeys(rng, schema, seed%2 == 1)
	want := refSortRows(rowsOf(recs), keyValues(t, recs, keys), keys)
	op, err := operators.NewSort(tgt, operators.NewRecordSource(schema, recs...), keys)
	releaseAll(recs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := operators.Collect(ctx, op)
	var u *pipeline.Unsupported
	if errors.As(err, &u) {
		return false
	}
	if err != nil {
		t.Fatalf("%s seed %d: %v", what, seed, err)
	}
	got := rowsOf(out)
	releaseAll(out)
	if err := compareRows(got, want); err != nil {
		t.Fatalf("%s seed %d (%d rows, keys %v): %v", what, seed, rows, keys, err)
	}
	return true
}
