package operators_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
)

// checkGathered compares a gathered record with the input rows it names.
func checkGathered(t *testing.T, name string, in, out arrow.Record, rows []int32) {
	t.Helper()
	if int(out.NumRows()) != len(rows) || out.NumCols() != in.NumCols() {
		t.Fatalf("%s: %d rows x %d cols, want %d x %d", name, out.NumRows(), out.NumCols(), len(rows), in.NumCols())
	}
	for j := 0; j < int(in.NumCols()); j++ {
		for i, r := range rows {
			var want any
			if r >= 0 {
				want = expr.ValueAt(in.Column(j), int(r))
			}
			if got := expr.ValueAt(out.Column(j), i); !sameValue(got, want) {
				t.Fatalf("%s: column %d row %d (input row %d): got %v, want %v", name, j, i, r, got, want)
			}
		}
	}
}

// checkBitmapTails fails when a validity or boolean bitmap of rec has bits
// set past its last row: outputs come from unzeroed (in tests: poisoned)
// memory, so every bit handed over must have been written.
func checkBitmapTails(t *testing.T, name string, rec arrow.Record) {
	t.Helper()
	n := int(rec.NumRows())
	if n%8 == 0 {
		return
	}
	for j, c := range rec.Columns() {
		for b, buf := range c.Data().Buffers() {
			bitmap := b == 0 || (b == 1 && c.DataType().ID() == arrow.BOOL)
			if buf == nil || !bitmap || buf.Len() < (n+7)/8 || c.Data().Offset() != 0 {
				continue
			}
			if tail := buf.Bytes()[n/8] >> (n % 8); tail != 0 {
				t.Fatalf("%s: column %d buffer %d has bits set past row %d: %#x", name, j, b, n, tail)
			}
		}
	}
}

// TestGather gathers random row numbers (with -1 rows of nulls) of random
// records of every type and encoding, small and split over the cores.
func TestGather(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"host-visible", "discrete"} {
		tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode="+mode)
		for seed := 0; seed < 8; seed++ {
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			schema := expr.RandomSchema(rng, 1+rng.IntN(5))
			if seed == 0 { // no strings: the split path
				schema = arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
					{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}}, nil)
			}
			n := []int{0, 1, 100, 70000}[seed%4]
			in := expr.RandomRecord(rng, schema, n, 0.2, memory.DefaultAllocator)
			rows := make([]int32, []int{0, 5, 300, 50001}[seed%4])
			for i := range rows {
				rows[i] = -1
				if n > 0 && rng.IntN(6) != 0 {
					rows[i] = int32(rng.IntN(n))
				}
			}
			out, err := tgt.Gather(ctx, in, rows)
			if err != nil {
				t.Fatalf("%s seed %d: %v", mode, seed, err)
			}
			checkGathered(t, mode, in, out, rows)
			checkBitmapTails(t, mode, out)
			for i := 0; i < int(out.NumCols()); i++ {
				if !out.Schema().Field(i).Nullable {
					t.Errorf("field %d not nullable", i)
				}
			}
			out.Release()
			in.Release()
		}
	}
}

// TestConcatRecords concatenates batches of every type, dictionaries that
// differ included, into one record and checks every row.
func TestConcatRecords(t *testing.T) {
	tgt := newTarget(t, "soft:memory=64MiB,cores=2")
	rng := rand.New(rand.NewPCG(3, 3))
	schema := expr.RandomSchema(rng, 6)
	var recs []arrow.Record
	for _, n := range []int{5, 0, 300, 1} {
		recs = append(recs, expr.RandomRecord(rng, schema, n, 0.1, memory.DefaultAllocator))
	}
	out, err := operators.ConcatRecords(tgt, recs)
	if err != nil {
		t.Fatal(err)
	}
	want := rowsOf(recs)
	if err := compareRows(rowsOf([]arrow.Record{out}), want); err != nil {
		t.Fatal(err)
	}
	out.Release()
	one, err := operators.ConcatRecords(tgt, recs[:1])
	if err != nil || one != recs[0] {
		t.Fatalf("one record: %v", err)
	}
	one.Release()
	other := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil), []arrow.Array{array.MakeArrayOfNull(memory.DefaultAllocator, arrow.PrimitiveTypes.Int32, 1)}, 1)
	defer other.Column(0).Release()
	if _, err := operators.ConcatRecords(tgt, []arrow.Record{recs[0], other}); err == nil {
		t.Fatal("schemas differ: no error")
	}
	other.Release()
	for _, r := range recs {
		r.Release()
	}
}

// TestConcatRecordsSlices concatenates random records of every type with
// nulls, sliced at random offsets, into unzeroed (poisoned) buffers, and
// compares the result with array.Concatenate, bitmap tails included.
func TestConcatRecordsSlices(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		tgt := newTarget(t, "soft:memory=64MiB,cores=2,mode="+mode)
		for seed := range 12 {
			rng := rand.New(rand.NewPCG(uint64(seed), 11))
			schema := expr.RandomSchema(rng, 1+rng.IntN(6))
			var recs []arrow.Record
			for range 1 + rng.IntN(5) {
				n := []int{0, 1, 7, 64, 300}[rng.IntN(5)]
				r := expr.RandomRecord(rng, schema, n+9, []float64{0, 0.2, 1}[rng.IntN(3)], memory.DefaultAllocator)
				lo := int64(rng.IntN(9))
				recs = append(recs, r.NewSlice(lo, lo+int64(n)))
				r.Release()
			}
			if len(recs) == 1 {
				recs = append(recs, recs[0].NewSlice(0, recs[0].NumRows()))
			}
			out, err := operators.ConcatRecords(tgt, recs)
			if err != nil {
				t.Fatalf("%s seed %d: %v", mode, seed, err)
			}
			for j := range schema.NumFields() {
				parts := make([]arrow.Array, len(recs))
				for i, r := range recs {
					parts[i] = r.Column(j)
				}
				want, err := array.Concatenate(parts, memory.DefaultAllocator)
				if err != nil {
					t.Fatal(err)
				}
				got := out.Column(j)
				if !array.ApproxEqual(got, want, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) || got.NullN() != want.NullN() {
					t.Fatalf("%s seed %d column %d (%s): differs from array.Concatenate", mode, seed, j, got.DataType())
				}
				want.Release()
			}
			checkBitmapTails(t, mode, out)
			out.Release()
			releaseAll(recs)
		}
	}
}
