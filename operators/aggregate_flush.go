package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// A partial aggregation (one whose output buffers are merged again
// downstream, Spark's Partial and PartialMerge) may emit a group more than
// once: the merge adds the pieces up. When its input is clustered by its
// key, as lineitem is by l_orderkey (about four consecutive rows per
// order), a hash table over the whole input reduces it no more than
// folding each run of equal keys does, yet it grows to every group of the
// task (Q18: 750K groups per task, beyond the caches) and emits them all
// at the end. Flushing then pays: after every partialFlushRows input rows
// the states are emitted and started afresh, so the table stays small and
// cache-resident and the output streams out as the input arrives.
//
// Whether the input is clustered is measured, not assumed: the operator
// counts the runs of equal keys in the rows it reads (one key of integer
// or date type read straight from a child column; other keys never flush)
// and compares a segment's groups with its runs. Groups at least
// flushKeepRatio of the runs mean the table found almost no key again
// apart from its run, and flushing goes on; fewer mean keys recur across
// runs (few or repeated keys in any order), and the operator stops
// flushing for good and aggregates the rest of its input as before, the
// one flushed segment costing a few duplicate groups. Filtered rows count
// as runs too, which can only make the groups look fewer (no flushing);
// null keys, one group however they lie, count as no run.
//
// Once on, flushing stays on: runs mode cannot see keys recur.
// While flushing goes on the states are created in runs mode (AGG_CREATE's
// runs hint): the device makes a group of every run of equal keys without
// a hash table, since the table found no key again anyway; a key that does
// recur (runs split across cores, or by a segment's end) is merged
// downstream like any duplicate.
//
// Aggregations with first() never flush: its value depends on the order
// the pieces are merged in.

// partialFlushRows is the input rows of one flushed segment (a variable
// for tests).
var partialFlushRows int64 = 1 << 17

// flushKeepRatio: flushing goes on while a segment's groups are at least
// this fraction of its runs.
const flushKeepRatio = 0.98

type flushMode uint8

const (
	flushNever   flushMode = iota // not a partial aggregation, or its key does not qualify
	flushTrying                   // the first segment decides
	flushOn                       // flushing after every segment
	flushStopped                  // keys recur: aggregating the rest at once
)

// partialFlush is a HashAggregate's flushing state.
type partialFlush struct {
	mode    flushMode
	col     int   // the child column of the key
	rows    int64 // input rows of the current segment
	runs    int64 // runs of equal keys in them
	prev    int64 // the last key read (when have)
	null    bool  // it was null
	have    bool
	pending []arrow.Record // emitted, not yet returned
	hint    int            // groups of the last state emitted (the next emit's first guess)
	flushes int            // segments flushed (tests)
}

// FlushPartial lets a partial aggregation (its output merged again
// downstream) flush its states as its input goes by when the input is
// clustered by its one integer or date key (see partialFlush). Call it
// before Open; other aggregations ignore it.
func (h *HashAggregate) FlushPartial() {
	h.flush.mode = flushNever
	if len(h.keys) != 1 || h.keys[0].Op != expr.OpColumn {
		return
	}
	switch h.keys[0].Type.Kind {
	case types.Int, types.Long, types.Date, types.Short, types.Byte:
	default:
		return
	}
	for _, c := range h.calls {
		if c.Func == "first" {
			return
		}
	}
	h.flush.mode, h.flush.col = flushTrying, h.keys[0].Col
}

// flushing reports whether the operator still counts runs to flush.
func (f *partialFlush) flushing() bool { return f.mode == flushTrying || f.mode == flushOn }

// count adds the rows of in and their runs of equal keys to the segment.
func (f *partialFlush) count(in arrow.Record) {
	if f.col < 0 || f.col >= int(in.NumCols()) {
		f.mode = flushStopped
		return
	}
	n := int(in.NumRows())
	f.rows += int64(n)
	if f.mode == flushOn { // runs mode: groups are runs, nothing to compare
		return
	}
	a := in.Column(f.col)
	var val func(i int) int64
	switch c := a.(type) {
	case *array.Int64:
		v := c.Int64Values()
		val = func(i int) int64 { return v[i] }
	case *array.Int32:
		v := c.Int32Values()
		val = func(i int) int64 { return int64(v[i]) }
	case *array.Date32:
		v := c.Date32Values()
		val = func(i int) int64 { return int64(v[i]) }
	case *array.Int16:
		v := c.Int16Values()
		val = func(i int) int64 { return int64(v[i]) }
	case *array.Int8:
		v := c.Int8Values()
		val = func(i int) int64 { return int64(v[i]) }
	default:
		f.mode = flushStopped
		return
	}
	runs, prev, null, have := f.runs, f.prev, f.null, f.have
	if a.NullN() == 0 {
		if i64, ok := a.(*array.Int64); ok { // the common case, without the closure
			for _, x := range i64.Int64Values() {
				if !have || null || x != prev {
					runs++
				}
				prev, null, have = x, false, true
			}
			f.runs, f.prev, f.null, f.have = runs, prev, null, have
			return
		}
	}
	for i := 0; i < n; i++ {
		isNull := a.IsNull(i)
		var x int64
		if !isNull {
			x = val(i)
		}
		if !isNull && (!have || null || x != prev) { // nulls are one group: their rows count as no run
			runs++
		}
		prev, null, have = x, isNull, true
	}
	f.runs, f.prev, f.null, f.have = runs, prev, null, have
}

// flushDue reports whether the current segment is complete.
func (h *HashAggregate) flushDue() bool {
	return h.flush.flushing() && h.flush.rows >= partialFlushRows && !h.spill.active() && !h.spill.merging
}

// flushLast emits the states of the last segment into pending, as
// flushStates does, and leaves them for Close.
func (h *HashAggregate) flushLast(ctx context.Context) error {
	for _, s := range h.states {
		if _, err := h.flushOne(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// flushOne emits state s into pending (nothing when it has no group) and
// returns how many groups it had.
func (h *HashAggregate) flushOne(ctx context.Context, s device.Addr) (int64, error) {
	f := &h.flush
	rec, err := h.emitHint(ctx, s, f.hint)
	if err != nil {
		return 0, err
	}
	n := rec.NumRows()
	f.hint = max(f.hint, int(n))
	if n == 0 {
		rec.Release()
		return 0, nil
	}
	h.stats.RowsOut += n
	f.pending = append(f.pending, rec)
	return n, nil
}

// flushStates emits every state as a record of its own into pending (no
// merge: the downstream merge adds the pieces up), frees the states,
// creates fresh ones and decides whether to go on flushing.
func (h *HashAggregate) flushStates(ctx context.Context) error {
	f := &h.flush
	var groups int64
	for _, s := range h.states {
		n, err := h.flushOne(ctx, s)
		if err != nil {
			return err
		}
		groups += n
	}
	f.flushes++
	if f.mode == flushOn || float64(groups) >= flushKeepRatio*float64(f.runs) {
		f.mode = flushOn
	} else {
		f.mode = flushStopped
	}
	f.rows, f.runs = 0, 0
	n := len(h.states)
	if err := h.freeStates(); err != nil {
		return err
	}
	return h.createStates(ctx, h.stateEnc, n)
}

// runsHint is AGG_CREATE's Args[1]: bit 0 (the states' groups may be the
// runs of equal keys: the device need not hash them) while flushing goes
// on.
func (f *partialFlush) runsHint() uint64 {
	if f.mode == flushOn {
		return 1
	}
	return 0
}

// popPending returns the next emitted record waiting, or nil.
func (f *partialFlush) popPending() arrow.Record {
	if len(f.pending) == 0 {
		return nil
	}
	r := f.pending[0]
	f.pending[0] = nil
	f.pending = f.pending[1:]
	return r
}

// reset drops what a run left: the records not returned and the counts;
// the mode goes back to trying when flushing was allowed.
func (f *partialFlush) reset() {
	for _, r := range f.pending {
		r.Release()
	}
	f.pending = nil
	f.rows, f.runs, f.have, f.hint = 0, 0, false, 0
	if f.mode != flushNever {
		f.mode = flushTrying
	}
}
