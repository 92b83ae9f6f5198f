package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// Bounded output batches
//
// One probe batch may match many build rows each: with a high fan-out its
// pairs are far more rows than the batch. The join therefore keeps the
// output of a batch as row numbers (joinRows, 8 bytes a pair) and gathers
// it lazily, at most max(joinBatchRows, the probe batch's rows) rows per
// output record, one record per Next call: only one output batch is ever
// materialised at a time, so a high fan-out join streams. Under a quota
// the batch is smaller still when what the task's account has left calls
// for it (HashJoin.outputRows): the rows a probe batch matched beyond it
// wait as row numbers for the next Next call, so a join whose build side
// fits (or spills) finishes however many rows its keys match.

// joinBatchRows is the least number of rows per output batch a hash join
// aims for; a probe batch larger than it bounds the batches instead.
var joinBatchRows = 1 << 16

// joinWork is output not yet gathered: rows of a probe batch (data, its
// own columns, retained until the work is done; an empty record for the
// build rows emitted at the end), from row off on.
type joinWork struct {
	data arrow.Record
	rows joinRows
	off  int
	cap  int // the rows of a batch the quota refused halved (0: none yet): the most the next batches gather
}

// len is how many output rows jr holds.
func (jr joinRows) len() int { return max(len(jr.probe), len(jr.build)) }

// slice is rows [lo, hi) of jr (a nil side stays nil: a side of nulls).
func (jr joinRows) slice(lo, hi int) joinRows {
	var out joinRows
	if jr.probe != nil {
		out.probe = jr.probe[lo:hi]
	}
	if jr.build != nil {
		out.build = jr.build[lo:hi]
	}
	if jr.exists != nil {
		out.exists = jr.exists[lo:hi]
	}
	return out
}

// queue adds output rows of data to h.incoming; it takes data over.
func (h *HashJoin) queue(data arrow.Record, jr joinRows) {
	if jr.len() == 0 {
		data.Release()
		return
	}
	h.incoming = append(h.incoming, joinWork{data: data, rows: jr})
}

// emitNext gathers the next output batch of the oldest work.
func (h *HashJoin) emitNext(ctx context.Context) (arrow.Record, error) {
	w := &h.work[0]
	n := w.rows.len()
	want := h.outputRows(w.data)
	if w.cap > 0 {
		want = min(want, w.cap)
	}
	var hi int
	var rec arrow.Record
	for {
		hi = min(n, w.off+want)
		var err error
		rec, err = h.emit(ctx, w.data, w.rows.slice(w.off, hi))
		if err == nil {
			break
		}
		// a batch the quota refuses although outputRows sized it is
		// halved (emit gave back what it had allocated)
		if !isQuota(err) || !h.quotaLimited() || hi-w.off <= minJoinOutputRows {
			return nil, err
		}
		want = max((hi-w.off)/2, minJoinOutputRows)
		w.cap = want
	}
	w.off = hi
	if hi == n {
		w.data.Release()
		h.work[0] = joinWork{}
		h.work = h.work[1:]
	}
	return rec, nil
}
