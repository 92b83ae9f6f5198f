package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
)

// TopN is Spark's TakeOrderedAndProject: the first limit rows after offset
// of the input ordered by keys (stable: ties keep input order), then
// projected. It keeps only the best limit+offset rows: input batches are
// held until they add up to a few times that, then one device SORT with a
// limit (heap selection per core, then MERGE) picks their best rows, which
// are merged with the best so far the same way. Nothing but the best rows
// and the batches of one round are held at any time.
//
// TopN owns its child and what it holds; Close releases them.
type TopN struct {
	t             *Target
	child         Operator // the input, computed keys appended when needed
	order         sortOrder
	limit, offset int
	nIn           int // the child's columns
	inner         *arrow.Schema
	proj          []*expr.Expr
	names         []string
	out           *arrow.Schema

	best     arrow.Record // the best rows so far, in order (inner schema)
	held     []arrow.Record
	heldRows int
	result   []arrow.Record
	done     bool
	stats    Stats
}

// NewTopN builds the operator; proj nil keeps the child's columns.
func NewTopN(t *Target, child Operator, keys []SortKey, limit, offset int, proj []*expr.Expr, names []string) (*TopN, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if limit < 0 || offset < 0 {
		return nil, fmt.Errorf("%w: TopN with limit %d and offset %d", device.ErrInvalid, limit, offset)
	}
	if len(keys) == 0 || len(keys) > device.MaxSortKeys {
		return nil, fmt.Errorf("%w: TopN with %d keys (want 1..%d)", device.ErrInvalid, len(keys), device.MaxSortKeys)
	}
	in, order, err := sortInput(t, child, keys)
	if fp, ok := in.(*FilterProject); ok && in != child {
		fp.inside = "TopN"
	}
	if err != nil {
		return nil, err
	}
	n := &TopN{t: t, child: in, order: order, limit: limit, offset: offset, nIn: child.Schema().NumFields(),
		inner: gatherSchema(in.Schema(), false), proj: proj, names: names}
	if proj == nil {
		n.out = gatherSchema(child.Schema(), false)
		return n, nil
	}
	// The projection's schema, as FilterProject would make it.
	fp, err := NewFilterProject(t, NewRecordSource(n.inner), nil, proj, names)
	if err != nil {
		return nil, fmt.Errorf("TopN: projection: %w", err)
	}
	fp.inside = "TopN"
	n.out = fp.Schema()
	return n, fp.Close()
}

func (n *TopN) Schema() *arrow.Schema { return n.out }

func (n *TopN) Open(ctx context.Context) error { return nameQuota("TopN", openChild(ctx, n.child)) }

// Stats reports what the operator did.
func (n *TopN) Stats() Stats { return n.stats }

func (n *TopN) Next(ctx context.Context) (_ arrow.Record, err error) {
	defer func() { err = nameQuota("TopN", err) }()
	if !n.done {
		n.done = true
		if err := n.run(ctx); err != nil {
			return nil, err
		}
	}
	if len(n.result) == 0 {
		return nil, nil
	}
	return n.stats.emit(&n.result), nil
}

func (n *TopN) keep() int { return n.limit + n.offset }

func (n *TopN) run(ctx context.Context) error {
	k := n.keep()
	if k == 0 {
		return nil
	}
	round := max(4*k, 4*SortBatchRows)
	err := readInput(ctx, n.child, &n.stats, func(rec arrow.Record) error {
		n.held = append(n.held, rec)
		n.heldRows += int(rec.NumRows())
		if n.heldRows >= round {
			return n.compact(ctx)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := n.compact(ctx); err != nil {
		return err
	}
	if n.best == nil {
		return nil
	}
	lo, hi := min(n.offset, int(n.best.NumRows())), int(n.best.NumRows())
	cols := make([]arrow.Array, n.nIn)
	for i := range cols {
		cols[i] = array.NewSlice(n.best.Column(i), int64(lo), int64(hi))
		cols[i].NullN() // known null counts (see sliceRecord)
		defer cols[i].Release()
	}
	page := array.NewRecord(arrow.NewSchema(n.inner.Fields()[:n.nIn], nil), cols, int64(hi-lo))
	defer page.Release()
	if n.proj == nil {
		out := array.NewRecord(n.out, cols, int64(hi-lo))
		n.result = append(n.result, out)
		return nil
	}
	fp, err := NewFilterProject(n.t, NewRecordSource(page.Schema(), page), nil, n.proj, n.names)
	if err != nil {
		return err
	}
	fp.inside = "TopN"
	n.result, err = Collect(ctx, fp)
	return err
}

// compact replaces the held batches and the best rows so far by the best
// keep() rows of them all.
func (n *TopN) compact(ctx context.Context) error {
	if len(n.held) == 0 {
		return nil
	}
	top, err := n.topOf(ctx, n.held)
	releaseRecords(n.held)
	n.held, n.heldRows = nil, 0
	if err != nil {
		return err
	}
	if n.best != nil { // merge with the best so far (earlier input first: stable)
		merged, err := n.topOf(ctx, []arrow.Record{n.best, top})
		top.Release()
		if err != nil {
			return err
		}
		n.best.Release()
		top = merged
	}
	n.best = top
	return nil
}

// topOf sorts recs (one schema) with the device, keeping the best keep()
// rows, gathered into one record of the inner schema.
func (n *TopN) topOf(ctx context.Context, recs []arrow.Record) (arrow.Record, error) {
	sr, err := sortRecords(ctx, n.t, recs, n.order, n.keep(), int(recs[0].NumCols()), n.inner)
	if err != nil {
		return nil, wrapQuota("TopN", n.t, err)
	}
	defer sr.release()
	return sr.slice(ctx, 0, sr.n)
}

// wrapQuota turns a quota refusal of an operator that does not spill into
// QuotaExceeded.
func wrapQuota(op string, t *Target, err error) error {
	if isQuota(err) {
		return QuotaExceeded(op, err, op+" does not spill (it holds only its best rows)")
	}
	return err
}

// Reset releases the rows held and the result not yet returned, and
// resets the child (see Resetter).
func (n *TopN) Reset(ctx context.Context) error {
	n.release()
	n.stats = Stats{}
	return Reset(ctx, n.child)
}

func (n *TopN) Close() error {
	n.release()
	return n.child.Close()
}

// release frees what a run holds.
func (n *TopN) release() {
	releaseRecords(n.held)
	n.held, n.heldRows = nil, 0
	releaseRecords(n.result)
	n.result = nil
	if n.best != nil {
		n.best.Release()
		n.best = nil
	}
	n.done = false
}
