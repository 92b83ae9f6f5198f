package operators_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// The Reset contract beyond the harness: an operator that cannot be reset
// is named, RecordSource rewinds and keeps its records until Close,
// Reset before Open and after a failed run, and no Reset after Close.

// closeOnly is an operator without Reset (as operators of other packages
// may be).
type closeOnly struct{ *operators.RecordSource }

func (closeOnly) Reset() {} // not the Resetter method: no context, no error

func TestResetUnsupported(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=64MiB,cores=1")
	src := closeOnly{operators.NewRecordSource(arrow.NewSchema(nil, nil))}
	err := operators.Reset(ctx, src)
	if !errors.Is(err, device.ErrNotSupported) || !strings.Contains(err.Error(), "closeOnly") {
		t.Fatalf("Reset of an operator without Reset: %v", err)
	}
	lim, err := operators.NewLimit(tgt, src, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lim.Close()
	if err := operators.Reset(ctx, lim); !errors.Is(err, device.ErrNotSupported) || !strings.Contains(err.Error(), "closeOnly") {
		t.Fatalf("Reset of a Limit over it: %v", err)
	}
	if err := operators.Reset(ctx, counted{operators.Wrapped{src}}); !errors.Is(err, device.ErrNotSupported) {
		t.Fatalf("Reset of a wrapper around it: %v", err)
	}
}

// counted is a wrapper embedding operators.Wrapped.
type counted struct{ operators.Wrapped }

// TestWrappedReset resets a source through a wrapper.
func TestWrappedReset(t *testing.T) {
	ctx := context.Background()
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := recordOf(t, schema, [][]any{{int64(1)}, {int64(2)}})
	defer rec.Release()
	w := counted{operators.Wrapped{operators.NewRecordSource(schema, rec)}}
	defer w.Close()
	for run := range 2 {
		got, err := drainRows(ctx, w, -1)
		if err != nil || len(got) != 2 {
			t.Fatalf("run %d: %d rows, %v", run, len(got), err)
		}
		if err := operators.Reset(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordSourceReset rewinds a source twice, releasing what Next hands
// out at once, and checks with a checked allocator that Close releases the
// source's references and that a record the caller kept stays valid.
func TestRecordSourceReset(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.Record
	for i := range 3 {
		b := array.NewInt64Builder(mem)
		b.AppendValues([]int64{int64(i), int64(10 * i)}, nil)
		a := b.NewArray()
		b.Release()
		recs = append(recs, array.NewRecord(schema, []arrow.Array{a}, 2))
		a.Release()
	}
	src := operators.NewRecordSource(schema, recs...)
	releaseAll(recs) // the source holds its own references
	want := [][]any{{int64(0)}, {int64(0)}, {int64(1)}, {int64(10)}, {int64(2)}, {int64(20)}}
	var kept arrow.Record
	for run := range 3 {
		got, err := drainRows(ctx, src, -1)
		if err != nil {
			t.Fatal(err)
		}
		if err := compareRows(got, want); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if err := src.Reset(ctx); err != nil {
			t.Fatal(err)
		}
	}
	kept, _ = src.Next(ctx)
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if got := rowsOf([]arrow.Record{kept}); compareRows(got, want[:2]) != nil {
		t.Fatalf("a record kept past Close: %v", got)
	}
	kept.Release()
	if r, _ := src.Next(ctx); r != nil {
		t.Fatal("a closed source returned a record")
	}
}

// resetTree is a Limit over a TopN over a Sort over a FilterProject over a
// source: a chain of operators that each hold state.
func resetTree(t *testing.T, tgt *operators.Target, schema *arrow.Schema, recs []arrow.Record) operators.Operator {
	t.Helper()
	k := expr.Column(0, "k", types.LongType)
	fp, err := operators.NewFilterProject(tgt, operators.NewRecordSource(schema, recs...), mixedSel, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := operators.NewSort(tgt, fp, []operators.SortKey{{Expr: k, Descending: true}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := operators.NewTopN(tgt, s, []operators.SortKey{{Expr: k}}, 50, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := operators.NewLimit(tgt, n, 20, 2)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestResetBeforeOpenAndAfterFailure resets a tree never opened, then one
// whose run failed (the sort's quota ran out, without a spill manager),
// and runs it again with room: each time the output is the first run's.
func TestResetBeforeOpenAndAfterFailure(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=256MiB,cores=2")
	rng := rand.New(rand.NewPCG(5, 5))
	schema := mixedSchema(rng)
	recs := batchesOf(rng, schema, 30000, 4096, 0.1)
	defer releaseAll(recs)
	op := resetTree(t, tgt, schema, recs)
	defer op.Close()
	if err := operators.Reset(ctx, op); err != nil {
		t.Fatalf("Reset before Open: %v", err)
	}
	want, err := drainRows(ctx, op, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 20 {
		t.Fatalf("%d rows, want 20", len(want))
	}
	if err := operators.Reset(ctx, op); err != nil {
		t.Fatal(err)
	}
	roomy := tgt.Account
	tgt.Account = hmem.NewAccount("tiny", 64<<10, roomy)
	_, err = drainRows(ctx, op, -1)
	if !errors.Is(err, hmem.ErrQuotaExceeded) {
		t.Fatalf("a run under a tiny quota: %v", err)
	}
	if err := operators.Reset(ctx, op); err != nil {
		t.Fatalf("Reset after a failed run: %v", err)
	}
	if n := tgt.Account.InUse(); n != 0 {
		t.Fatalf("the tiny quota holds %d bytes after Reset", n)
	}
	tgt.Account = roomy
	got, err := drainRows(ctx, op, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := compareRows(got, want); err != nil {
		t.Fatalf("after a failed run: %v", err)
	}
}

func TestHashJoinResetAfterClose(t *testing.T) {
	tgt := newTarget(t, "soft:memory=64MiB,cores=1")
	spec := operators.JoinSpec{Type: operators.JoinInner, LeftKeys: keyExprs(1), RightKeys: keyExprs(1)}
	j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema), operators.NewRecordSource(joinSchema), spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Reset(context.Background()); !errors.Is(err, device.ErrInvalid) {
		t.Fatalf("Reset after Close: %v", err)
	}
}
