package operators_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
)

// The shared operator harness (issue 8): every operator of the package,
// from the table in harness_ops_test.go, runs over random inputs in batches
// of 1, 7, 2048 and 65536 rows (not 65536 under testing.Short or the race
// detector), with 0%, 10% and 100% nulls, with and
// without a selection — a FilterProject in front of a child narrowing its
// rows — and its output is compared with a plain
// Go reference over the same rows. Then the operator is Reset and run
// again, in every other case first interrupted after one batch and Reset
// once more, and must give the same result; after each Reset, and after
// Close, the task's account must hold what it held before the first Open
// (zero but for a shared broadcast table), and newTarget checks at the end
// that every byte came back.

var harnessBatches = []int{1, 7, 2048, 65536}

// harnessCase is one combination of the harness's dimensions.
type harnessCase struct {
	idx   int
	batch int     // rows per input batch
	nulls float64 // fraction of null values
	sel   bool    // a selection narrows the children that have one
}

func (c harnessCase) String() string {
	s := fmt.Sprintf("batch=%d/nulls=%.0f%%", c.batch, 100*c.nulls)
	if c.sel {
		s += "/sel"
	}
	return s
}

// rows is how many rows a child gets: several batches, the last partial.
func (c harnessCase) rows() int {
	switch c.batch {
	case 1:
		return 5
	case 7:
		return 30
	case 2048:
		return 2731
	}
	return c.batch + 100
}

// harnessCases is every combination of the dimensions for batches of at
// most maxBatch rows (0: any). Batches of 65536 rows run in three
// combinations only (each null fraction once, with and without a
// selection), and not at all under testing.Short or the race detector.
func harnessCases(maxBatch int) []harnessCase {
	var cs []harnessCase
	for _, b := range harnessBatches {
		if (maxBatch > 0 && b > maxBatch) || (b > 2048 && (testing.Short() || raceEnabled)) {
			continue
		}
		for ni, n := range nullFracs {
			for _, sel := range []bool{false, true} {
				if b > 2048 && sel != (ni == 1) {
					continue
				}
				cs = append(cs, harnessCase{idx: len(cs), batch: b, nulls: n, sel: sel})
			}
		}
	}
	return cs
}

// harnessInput is one child's input: its records (released by the
// harness) and the condition a selection puts in front of it (nil: the
// child never has one).
type harnessInput struct {
	schema *arrow.Schema
	recs   []arrow.Record
	sel    *expr.Expr
}

// harnessEnv is what an operator is built with: the target, the case, and
// cleanups run after the operator is closed (in reverse order).
type harnessEnv struct {
	t        *testing.T
	tgt      *operators.Target
	c        harnessCase
	cleanups []func()
}

func (e *harnessEnv) onDone(f func()) { e.cleanups = append(e.cleanups, f) }

// harnessOp is one operator under test.
type harnessOp struct {
	name string
	// inputs generates the children's inputs for a case.
	inputs func(rng *rand.Rand, c harnessCase) []harnessInput
	// build makes the operator over its children (one per input).
	build func(e *harnessEnv, children []operators.Operator) (operators.Operator, error)
	// ref is the expected rows given each child's selected input.
	ref func(t *testing.T, c harnessCase, in [][]arrow.Record) [][]any
	// ordered: the order of the rows is part of the result.
	ordered bool
	// maxBatch, if set, bounds the batch sizes (for the costlier
	// variants of an operator another variant covers at full size).
	maxBatch int
}

// TestOperatorHarness runs every operator of harnessOps over every case.
func TestOperatorHarness(t *testing.T) {
	tgt := newTarget(t, "soft:memory=512MiB,cores=2")
	for _, op := range harnessOps {
		t.Run(op.name, func(t *testing.T) {
			for _, c := range harnessCases(op.maxBatch) {
				t.Run(c.String(), func(t *testing.T) { runHarnessCase(t, tgt, op, c) })
			}
		})
	}
}

// TestOperatorHarnessDiscrete runs a few cases of every operator on a
// discrete device (outputs copied back by DMA).
func TestOperatorHarnessDiscrete(t *testing.T) {
	tgt := newTarget(t, "soft:memory=512MiB,cores=2,mode=discrete")
	for _, op := range harnessOps {
		for _, c := range harnessCases(2048) {
			if c.batch != 2048 || c.nulls != 0.1 {
				continue
			}
			t.Run(op.name+"/"+c.String(), func(t *testing.T) { runHarnessCase(t, tgt, op, c) })
		}
	}
}

func runHarnessCase(t *testing.T, tgt *operators.Target, op harnessOp, c harnessCase) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(c.idx), uint64(len(op.name))))
	inputs := op.inputs(rng, c)
	refIn := make([][]arrow.Record, len(inputs))
	children := make([]operators.Operator, len(inputs))
	for i, in := range inputs {
		defer releaseAll(in.recs)
		refIn[i] = in.recs
		children[i] = operators.NewRecordSource(in.schema, in.recs...)
		if !c.sel || in.sel == nil {
			continue
		}
		refIn[i] = selectRecords(t, in.recs, in.sel)
		defer releaseAll(refIn[i])
		fp, err := operators.NewFilterProject(tgt, children[i], in.sel, nil, nil)
		if err != nil {
			t.Fatalf("selection of child %d: %v", i, err)
		}
		children[i] = fp
	}
	want := op.ref(t, c, refIn)
	if !op.ordered {
		want = sortedRows(want)
	}
	e := &harnessEnv{t: t, tgt: tgt, c: c}
	defer func() {
		for i := len(e.cleanups) - 1; i >= 0; i-- {
			e.cleanups[i]()
		}
		if n := tgt.Account.InUse(); n != 0 {
			t.Errorf("the task account holds %d bytes after Close", n)
		}
	}()
	root, err := op.build(e, children)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := root.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	base := tgt.Account.InUse()
	check := func(run string) {
		t.Helper()
		got, err := drainRows(ctx, root, -1)
		if err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		if !op.ordered {
			got = sortedRows(got)
		}
		if err := compareRows(got, want); err != nil {
			t.Fatalf("%s: %v", run, err)
		}
	}
	reset := func(after string) {
		t.Helper()
		if err := operators.Reset(ctx, root); err != nil {
			t.Fatalf("Reset after %s: %v", after, err)
		}
		if n := tgt.Account.InUse(); n != base {
			t.Fatalf("Reset after %s: the task account holds %d bytes, %d before the first run", after, n, base)
		}
	}
	check("first run")
	reset("the first run")
	if c.idx%2 == 1 {
		if _, err := drainRows(ctx, root, 1); err != nil {
			t.Fatalf("interrupted run: %v", err)
		}
		reset("a run interrupted after one batch")
	}
	check("run after Reset")
}

// drainRows opens op and reads up to batches batches (all when negative),
// checking each one's schema, and returns their rows. The batches are
// released (their memory may serve the next run), so strings are copied.
func drainRows(ctx context.Context, op operators.Operator, batches int) ([][]any, error) {
	if err := op.Open(ctx); err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	var rows [][]any
	for ; batches != 0; batches-- {
		r, err := op.Next(ctx)
		if err != nil || r == nil {
			return rows, err
		}
		if !r.Schema().Equal(op.Schema()) {
			r.Release()
			return nil, fmt.Errorf("a batch of schema %s from an operator of schema %s", r.Schema(), op.Schema())
		}
		for _, row := range rowsOf([]arrow.Record{r}) {
			for j, v := range row {
				if s, ok := v.(string); ok {
					row[j] = strings.Clone(s)
				}
			}
			rows = append(rows, row)
		}
		r.Release()
	}
	return rows, nil
}

// selectRecords is the rows of recs for which cond is true (the reference
// of a selection): slices of recs, one per run of selected rows, which
// the caller releases.
func selectRecords(t *testing.T, recs []arrow.Record, cond *expr.Expr) []arrow.Record {
	t.Helper()
	var out []arrow.Record
	for _, r := range recs {
		mask, err := expr.Eval(cond, r, memory.DefaultAllocator)
		if err != nil {
			t.Fatalf("reference selection %v: %v", cond, err)
		}
		n := int(r.NumRows())
		keep := func(i int) bool { v := expr.ValueAt(mask, i); return v != nil && v.(bool) }
		for lo := 0; lo < n; {
			if !keep(lo) {
				lo++
				continue
			}
			hi := lo + 1
			for hi < n && keep(hi) {
				hi++
			}
			out = append(out, r.NewSlice(int64(lo), int64(hi)))
			lo = hi
		}
		mask.Release()
	}
	return out
}
