package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/device"
)

// Limit passes on the first limit rows of its input after skipping offset
// rows: Spark's LocalLimit (per partition), GlobalLimit (over the single
// partition it runs on, with Spark 3.4's offset) and CollectLimit. limit <
// 0 means no limit (OFFSET alone). It stops pulling its child as soon as
// the limit is reached, and slices batches without copying.
//
// Limit owns its child; Close closes it.
type Limit struct {
	child         Operator
	limit, offset int
	skipped, sent int
	stats         Stats
}

// NewLimit builds the operator.
func NewLimit(t *Target, child Operator, limit, offset int) (*Limit, error) {
	if offset < 0 {
		return nil, fmt.Errorf("%w: limit with offset %d", device.ErrInvalid, offset)
	}
	return &Limit{child: child, limit: limit, offset: offset}, nil
}

func (l *Limit) Schema() *arrow.Schema { return l.child.Schema() }

func (l *Limit) Open(ctx context.Context) error { return l.child.Open(ctx) }

// Stats reports what the operator did.
func (l *Limit) Stats() Stats { return l.stats }

func (l *Limit) satisfied() bool { return l.limit >= 0 && l.sent >= l.limit }

func (l *Limit) Next(ctx context.Context) (arrow.Record, error) {
	for !l.satisfied() {
		rec, err := l.child.Next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		n := int(rec.NumRows())
		l.stats.RowsIn += int64(n)
		lo := min(n, l.offset-l.skipped)
		l.skipped += lo
		hi := n
		if l.limit >= 0 {
			hi = min(n, lo+l.limit-l.sent)
		}
		if lo >= hi {
			rec.Release()
			continue
		}
		l.sent += hi - lo
		l.stats.RowsOut += int64(hi - lo)
		l.stats.Batches++
		if lo == 0 && hi == n {
			return rec, nil
		}
		out := sliceRecord(rec, int64(lo), int64(hi))
		rec.Release()
		return out, nil
	}
	return nil, nil
}

// Reset forgets the rows skipped and sent and resets the child (see
// Resetter).
func (l *Limit) Reset(ctx context.Context) error {
	l.skipped, l.sent, l.stats = 0, 0, Stats{}
	return Reset(ctx, l.child)
}

func (l *Limit) Close() error { return l.child.Close() }

// sliceRecord is rec's rows [lo, hi) without copying, with every column's
// null count computed: a slice's Data() otherwise reports an unknown
// count (-1), which readers of ArrayData.NullN take for "no nulls".
func sliceRecord(rec arrow.Record, lo, hi int64) arrow.Record {
	out := rec.NewSlice(lo, hi)
	for _, c := range out.Columns() {
		c.NullN()
	}
	return out
}
