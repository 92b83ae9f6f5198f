package operators

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/spill"
	"github.com/hados-io/hados/operators/types"
)

// SortKey is one key of a sort: Spark's SortOrder.
type SortKey struct {
	Expr       *expr.Expr
	Descending bool
	NullsFirst bool
}

// SortBatchRows is the size of the batches Sort and TopN emit.
const SortBatchRows = 1 << 16

// Sort sorts all of its input by keys (Spark's SortExec, stable). It
// collects the input (ConcatRecords), sorts the row numbers on the device
// (one SORT per core, then MERGE; or, by a leading string key, one SORT
// per core over its own range of the order), and gathers the output in
// batches of SortBatchRows rows, one GATHER per core at a time. Keys that
// are not plain columns are computed first by a FilterProject that
// appends them to the input; the output has the child's columns (strings
// as utf8).
//
// Under a memory quota: when an allocation fails with
// memory.ErrQuotaExceeded (or the account is more than half full while
// collecting) and t.Spill is set, Sort sorts what it holds, writes it as a
// sorted run to the spill manager, frees it and continues; at the end it
// merges the runs on the host (a k-way merge reading them back) and emits
// the merged rows in batches. Without t.Spill it fails with QuotaExceeded.
//
// Sort owns its child and every record it holds; Close releases them.
type Sort struct {
	t     *Target
	child Operator // the input, with computed keys appended when needed
	out   *arrow.Schema
	nOut  int // output columns (the child's)
	order sortOrder
	hkeys []hostKey
	stats Stats

	held     []arrow.Record // input not yet sorted
	heldRows int
	sorted   *sortedRecord // the in-memory result being emitted
	runs     []*spill.Run
	merger   *runMerger
	pending  []arrow.Record
	done     bool
}

// NewSort builds a sort of child's rows by keys.
func NewSort(t *Target, child Operator, keys []SortKey) (*Sort, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if len(keys) == 0 || len(keys) > device.MaxSortKeys {
		return nil, fmt.Errorf("%w: sort with %d keys (want 1..%d)", device.ErrInvalid, len(keys), device.MaxSortKeys)
	}
	in, order, err := sortInput(t, child, keys)
	if err != nil {
		return nil, err
	}
	s := &Sort{t: t, child: in, nOut: child.Schema().NumFields(), order: order}
	s.out = gatherSchema(child.Schema(), false)
	return s, nil
}

// sortInput resolves the keys to columns of the input: plain column
// references use the child's columns; other expressions are appended by a
// FilterProject over the child.
func sortInput(t *Target, child Operator, keys []SortKey) (Operator, sortOrder, error) {
	in := child.Schema()
	var o sortOrder
	var extra []*expr.Expr
	for i, k := range keys {
		if k.Expr == nil {
			return nil, o, fmt.Errorf("%w: sort key %d has no expression", device.ErrInvalid, i)
		}
		col := -1
		if k.Expr.Op == expr.OpColumn && k.Expr.Col >= 0 && k.Expr.Col < in.NumFields() {
			col = k.Expr.Col
		} else {
			col = in.NumFields() + len(extra)
			extra = append(extra, k.Expr)
		}
		var f uint32
		if k.Descending {
			f |= device.SortDesc
		}
		if k.NullsFirst {
			f |= device.SortNullsFirst
		}
		o.cols = append(o.cols, col)
		o.flags = append(o.flags, f)
	}
	if len(extra) == 0 {
		return child, o, nil
	}
	var proj []*expr.Expr
	var names []string
	for i, f := range in.Fields() {
		dt, err := types.FromArrow(f.Type)
		if err != nil {
			return nil, o, fmt.Errorf("sort: column %s: %w", f.Name, err)
		}
		proj = append(proj, expr.Column(i, f.Name, dt))
		names = append(names, f.Name)
	}
	for i, e := range extra {
		proj = append(proj, e)
		names = append(names, fmt.Sprintf("__sort_key_%d", i))
	}
	fp, err := NewFilterProject(t, child, nil, proj, names)
	if err != nil {
		return nil, o, fmt.Errorf("sort: computing the keys: %w", err)
	}
	fp.inside = "Sort"
	return fp, o, nil
}

func (s *Sort) Schema() *arrow.Schema { return s.out }

func (s *Sort) Open(ctx context.Context) error { return nameQuota("Sort", openChild(ctx, s.child)) }

// Stats reports what the operator did (spill counters included).
func (s *Sort) Stats() Stats { return s.stats }

func (s *Sort) Next(ctx context.Context) (_ arrow.Record, err error) {
	defer func() { err = nameQuota("Sort", err) }()
	if !s.done {
		if err := s.consume(ctx); err != nil {
			return nil, err
		}
		s.done = true
	}
	for len(s.pending) == 0 {
		var err error
		switch {
		case s.sorted != nil:
			s.pending, err = s.sorted.next(ctx, s.t.cores())
			if len(s.pending) == 0 && err == nil {
				s.sorted.release()
				s.sorted = nil
			}
		case s.merger != nil:
			var r arrow.Record
			if r, err = s.merger.next(); r != nil {
				s.pending = append(s.pending, r)
			}
		default:
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if len(s.pending) == 0 && s.sorted == nil && s.merger != nil && s.merger.exhausted() {
			return nil, nil
		}
	}
	return s.stats.emit(&s.pending), nil
}

// consume reads the whole input and leaves either one in-memory sorted
// record or spilled runs to merge.
func (s *Sort) consume(ctx context.Context) error {
	err := readInput(ctx, s.child, &s.stats, func(rec arrow.Record) error {
		s.held = append(s.held, rec)
		s.heldRows += int(rec.NumRows())
		if s.heldRows > 1<<30 || s.pressure() {
			return s.spillHeld(ctx, nil)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(s.runs) == 0 && len(s.held) == 0 {
		return nil
	}
	if len(s.runs) == 0 {
		sorted, err := s.sortHeld(ctx, s.held)
		if err == nil {
			s.releaseHeld()
			s.sorted = sorted
			return nil
		}
		if !isQuota(err) {
			return err
		}
		if s.t.Spill == nil {
			return QuotaExceeded("Sort", err, "no spill directory (the target has no spill manager)")
		}
		if err := s.spillHeld(ctx, err); err != nil {
			return err
		}
	} else if len(s.held) > 0 {
		if err := s.spillHeld(ctx, nil); err != nil {
			return err
		}
	}
	return s.startMerge()
}

// pressure reports a task account more than half full while spilling is
// possible: sorting then needs about as much again.
func (s *Sort) pressure() bool {
	a := s.t.Account
	return s.t.Spill != nil && a != nil && a.Limit() > 0 && a.InUse() > a.Limit()/2
}

// isQuota reports an allocation refused by a quota (or a device budget).
func isQuota(err error) bool {
	return errors.Is(err, hmem.ErrQuotaExceeded) || errors.Is(err, device.ErrNoMemory)
}

func (s *Sort) releaseHeld() {
	releaseRecords(s.held)
	s.held, s.heldRows = nil, 0
}

// sortHeld concatenates recs, sorts them on the device and prepares the
// gathering of the output.
func (s *Sort) sortHeld(ctx context.Context, recs []arrow.Record) (*sortedRecord, error) {
	return sortRecords(ctx, s.t, recs, s.order, 0, s.nOut, s.out)
}

// Reset releases the input held, the sorted result and the spill runs,
// and resets the child (see Resetter).
func (s *Sort) Reset(ctx context.Context) error {
	err := s.release()
	s.stats = Stats{}
	return errors.Join(err, Reset(ctx, s.child))
}

func (s *Sort) Close() error {
	err := s.release()
	if e := s.child.Close(); err == nil {
		err = e
	}
	return err
}

// release frees what a run holds: the input held, the batches not yet
// returned, the sorted record, the merge and the spill runs (removed).
func (s *Sort) release() error {
	s.releaseHeld()
	releaseRecords(s.pending)
	s.pending = nil
	if s.sorted != nil {
		s.sorted.release()
		s.sorted = nil
	}
	var err error
	if s.merger != nil {
		err = s.merger.close()
		s.merger = nil
	}
	for _, r := range s.runs {
		if e := r.Remove(); err == nil {
			err = e
		}
	}
	s.runs = nil
	s.done = false
	return err
}

// sortedRecord is a record with its device-sorted row numbers, emitted in
// gathered batches. It owns data, the row numbers and the gatherer.
type sortedRecord struct {
	data  arrow.Record
	g     *gatherer
	order *hmem.Buffer
	n     int // row numbers in order
	pos   int // first row number not yet emitted
}

// sortRecords sorts recs (concatenated) by o and prepares gathering the
// first nOut columns into schema out; limit > 0 keeps the best limit rows.
func sortRecords(ctx context.Context, t *Target, recs []arrow.Record, o sortOrder, limit, nOut int, out *arrow.Schema) (*sortedRecord, error) {
	data, err := ConcatRecords(t, recs)
	if err != nil {
		return nil, err
	}
	sr := &sortedRecord{data: data}
	if sr.order, sr.n, err = t.order(ctx, data, o, limit); err != nil {
		sr.release()
		return nil, err
	}
	cols := make([]arrow.Array, nOut)
	for i := range cols {
		cols[i] = data.Column(i)
	}
	outRec := array.NewRecord(arrow.NewSchema(data.Schema().Fields()[:nOut], nil), cols, data.NumRows())
	sr.g, err = t.newGatherer(ctx, outRec, out)
	outRec.Release()
	if err != nil {
		sr.release()
		return nil, err
	}
	return sr, nil
}

// next gathers up to k more batches of SortBatchRows rows, one op each,
// concurrently; none when every row was emitted.
func (sr *sortedRecord) next(ctx context.Context, k int) ([]arrow.Record, error) {
	var ranges [][2]int
	for i := 0; i < max(k, 1) && sr.pos < sr.n; i++ {
		hi := min(sr.pos+SortBatchRows, sr.n)
		ranges = append(ranges, [2]int{sr.pos, hi})
		sr.pos = hi
	}
	if len(ranges) == 0 {
		return nil, nil
	}
	return sr.g.batches(ctx, sr.order.Addr, ranges)
}

// slice gathers the rows [lo, hi) of the order into one record.
func (sr *sortedRecord) slice(ctx context.Context, lo, hi int) (arrow.Record, error) {
	if hi <= lo {
		return emptyRecord(sr.g.out, 0, nil), nil
	}
	recs, err := sr.g.batches(ctx, sr.order.Addr, [][2]int{{lo, hi}})
	if err != nil {
		return nil, err
	}
	return recs[0], nil
}

func (sr *sortedRecord) release() {
	if sr.g != nil {
		sr.g.close()
	}
	if sr.order != nil {
		sr.order.Free()
	}
	if sr.data != nil {
		sr.data.Release()
	}
}
