package scan

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/arrowsize"
	hmem "github.com/hados-io/hados/memory"
)

// Prefetch bounded in bytes.
//
// The consumer reads splits in order, so a worker on a later split than the
// one being read can only queue its records. With a queue of a few records
// per split (the old rule) that worker soon stalls and its core idles until
// the consumer reaches its split; with the queue bounded in bytes for the
// whole scan it keeps decoding while the decoded bytes fit the budget
// (Options.PrefetchBytes). The worker on the split being read is never held
// by the budget beyond Options.Prefetch records of its own (its records are
// counted in the budget all the same), so the scan always makes progress:
// the records holding the budget belong to later splits, which the consumer
// reaches once the current split ends.
type prefetch struct {
	mu      sync.Mutex
	cond    *sync.Cond
	used    int64 // bytes of records queued and not yet taken by Next
	limit   int64
	waiting int // workers waiting for room (they do not count as busy)
}

// Budget bounds for the default of Options.PrefetchBytes (see
// prefetchDefault).
const (
	minPrefetchBytes = 8 << 20
	maxPrefetchBytes = 256 << 20
)

// prefetchDefault is Options.PrefetchBytes when unset: two splits'
// decoded bytes per worker beyond the first (splitBytes of the largest
// split), so that a worker can decode a whole split ahead of the consumer
// while the consumer still holds records of the split before, between minPrefetchBytes and maxPrefetchBytes; and at most a quarter of
// the memory quota of the allocator's account when it has one (a task's
// share of a device), so prefetch cannot take the memory the operators
// above the scan need.
func (s *Scanner) prefetchDefault() int64 {
	var largest int64
	for _, sp := range s.splits {
		largest = max(largest, s.splitBytes(sp))
	}
	b := min(max(2*largest*int64(max(1, s.opt.Parallelism-1)), minPrefetchBytes), maxPrefetchBytes)
	if l := quotaOf(s.opt.Alloc); l > 0 {
		b = min(b, l/4)
	}
	return max(b, 1)
}

// splitBytes estimates the bytes of the records a split decodes to: the
// width of each fixed-width output column (dictionary-encoded chunks are
// far smaller than what they decode to), or the chunk's uncompressed
// size plus offsets for the others, and a validity bitmap.
func (s *Scanner) splitBytes(sp *split) int64 {
	var n int64
	for _, rg := range sp.rgs {
		rgm := sp.file.md.RowGroup(rg)
		rows := rgm.NumRows()
		for _, c := range s.out {
			n += rows / 8
			if fw, ok := c.arrow.(arrow.FixedWidthDataType); ok {
				n += rows * int64(max(fw.BitWidth(), 1)) / 8
				continue
			}
			n += 4 * rows
			if fc := sp.file.schema.lookup(c.Name); !c.Partition && fc != nil && fc.leaf >= 0 {
				if cc, err := rgm.ColumnChunk(fc.leaf); err == nil {
					n += max(cc.TotalUncompressedSize(), 0)
				}
			}
		}
	}
	return n
}

// quotaOf is the memory limit of a hados allocator's account (0: none or
// unknown).
func quotaOf(a memory.Allocator) int64 {
	if ha, ok := a.(*hmem.Allocator); ok && ha.Account() != nil {
		return int64(min(ha.Account().Limit(), 1<<62))
	}
	return 0
}

// prefetchByBytes: the prefetch budget of this file; false (for A/B
// measurements) holds each split to Prefetch records, with no budget, as
// before.
var prefetchByBytes = true

func (s *Scanner) startPrefetch(ctx context.Context) {
	s.pf.limit = s.opt.PrefetchBytes
	if !prefetchByBytes {
		s.pf.limit = 1 << 62
	} else if s.pf.limit <= 0 {
		s.pf.limit = s.prefetchDefault()
	}
	s.pf.cond = sync.NewCond(&s.pf.mu)
	context.AfterFunc(ctx, func() {
		s.pf.mu.Lock()
		s.pf.cond.Broadcast()
		s.pf.mu.Unlock()
	})
}

// reserve waits until a record of n bytes of split sp may be queued and
// counts it; false when the scan was cancelled.
func (s *Scanner) reserve(sp *split, n int64) bool {
	p := &s.pf
	p.mu.Lock()
	defer p.mu.Unlock()
	waited := false
	for !(p.used == 0 || p.used+n <= p.limit || (sp.idx == int(s.reading.Load()) && len(sp.ch) < s.opt.Prefetch)) {
		if s.ctx.Err() != nil {
			break
		}
		if !waited {
			waited = true
			p.waiting++
			s.busy.Add(-1)
		}
		p.cond.Wait()
	}
	if waited {
		p.waiting--
		s.busy.Add(1)
	}
	if s.ctx.Err() != nil {
		return false
	}
	p.used += n
	return true
}

// unreserve gives back the bytes of a record Next took (or a worker could
// not queue).
func (s *Scanner) unreserve(n int64) {
	p := &s.pf
	p.mu.Lock()
	p.used -= n
	if p.waiting > 0 {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
}

// advanced wakes the workers after the consumer moved to the next split:
// the one on it may now pass the budget.
func (s *Scanner) advanced() {
	p := &s.pf
	p.mu.Lock()
	if p.waiting > 0 {
		p.cond.Broadcast()
	}
	p.mu.Unlock()
}

// recordBytes is what a record counts against the prefetch budget: the
// lengths of its buffers (all of them, also for a slice of a larger
// record, which keeps them alive).
func recordBytes(rec arrow.RecordBatch) int64 { return arrowsize.Record(rec) }
