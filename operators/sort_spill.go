package operators

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/spill"
)

// The spilling side of Sort: sorted runs written to the task's spill
// manager, and the host k-way merge that reads them back.

// spillHeld sorts the held input and writes it as sorted runs, as few as
// the quota allows: all of it at once, else halves, quarters… down to one
// batch per run (which must fit). cause is the quota error that started
// it (nil when memory pressure did).
func (s *Sort) spillHeld(ctx context.Context, cause error) error {
	if s.t.Spill == nil {
		if cause == nil {
			cause = fmt.Errorf("%d rows held", s.heldRows)
		}
		return QuotaExceeded("Sort", cause, "no spill directory (the target has no spill manager)")
	}
	group := len(s.held)
	for len(s.held) > 0 {
		g := min(group, len(s.held))
		err := s.spillGroup(ctx, s.held[:g])
		if err == nil {
			for _, r := range s.held[:g] {
				s.heldRows -= int(r.NumRows())
				r.Release()
			}
			s.held = s.held[g:]
			continue
		}
		if !isQuota(err) {
			return err
		}
		if g == 1 {
			return QuotaExceeded("Sort", err, fmt.Sprintf("one input batch of %d rows does not fit the quota even alone", s.held[0].NumRows()))
		}
		group = g / 2
	}
	s.held = nil
	return nil
}

// spillGroup sorts recs and writes them, every column (computed keys
// included), as one sorted run.
func (s *Sort) spillGroup(ctx context.Context, recs []arrow.Record) error {
	in := recs[0].Schema()
	runSchema := gatherSchema(in, false)
	sr, err := sortRecords(ctx, s.t, recs, s.order, 0, in.NumFields(), runSchema)
	if err != nil {
		return err
	}
	defer sr.release()
	w, err := s.t.Spill.Create("Sort", runSchema)
	if err != nil {
		return err
	}
	for {
		batches, err := sr.next(ctx, s.t.cores())
		for i, b := range batches {
			if err == nil {
				err = w.Write(b)
			}
			batches[i].Release()
		}
		if err != nil {
			w.Abort()
			return err
		}
		if len(batches) == 0 {
			break
		}
	}
	run, err := w.Finish()
	if err != nil {
		return err
	}
	s.stats.addSpill(run)
	s.runs = append(s.runs, run)
	return nil
}

// startMerge opens every run for the k-way merge.
func (s *Sort) startMerge() error {
	if len(s.runs) == 0 {
		return nil
	}
	rs := s.runs[0].Schema()
	if err := checkHostTypes(rs); err != nil {
		return err
	}
	m := &runMerger{out: s.out, nOut: s.nOut, mem: memory.DefaultAllocator}
	for i, c := range s.order.cols {
		k, err := newHostKey(c, rs.Field(c).Type, s.order.flags[i]&1 != 0, s.order.flags[i]&2 != 0)
		if err != nil {
			return err
		}
		m.keys = append(m.keys, k)
	}
	s.merger = m
	for i, r := range s.runs {
		rd, err := r.Open(m.mem)
		if err != nil {
			return err
		}
		c := &runCursor{idx: i, rd: rd, row: -1}
		m.cursors = append(m.cursors, c)
		if err := c.advance(); err != nil {
			return err
		}
		if c.rec != nil {
			m.h.c = append(m.h.c, c)
		}
	}
	m.h.keys = m.keys
	heap.Init(&m.h)
	return nil
}

// runCursor is the read position in one run: its current record and row.
type runCursor struct {
	idx int
	rd  *spill.Reader
	rec arrow.Record
	row int
}

// advance moves to the next row, reading the next record when needed;
// rec is nil at the end of the run.
func (c *runCursor) advance() error {
	c.row++
	for c.rec == nil || c.row >= int(c.rec.NumRows()) {
		if c.rec != nil {
			c.rec.Release()
			c.rec = nil
		}
		r, err := c.rd.Next()
		if err != nil || r == nil {
			return err
		}
		c.rec, c.row = r, 0
	}
	return nil
}

// runMerger merges sorted runs on the host, stably (on ties the earlier
// run, holding earlier input, comes first). Its records are Go memory
// (outside the device quota: spilled data is host data).
type runMerger struct {
	out     *arrow.Schema
	nOut    int
	keys    []hostKey
	mem     memory.Allocator
	cursors []*runCursor
	h       cursorHeap
}

type cursorHeap struct {
	c    []*runCursor
	keys []hostKey
}

func (m *runMerger) exhausted() bool { return len(m.h.c) == 0 }

// next emits the next batch of up to SortBatchRows merged rows (nil at the
// end).
func (m *runMerger) next() (arrow.Record, error) {
	if len(m.h.c) == 0 {
		return nil, nil
	}
	bs := make([]array.Builder, m.nOut)
	for i := range bs {
		bs[i] = array.NewBuilder(m.mem, m.out.Field(i).Type)
		defer bs[i].Release()
	}
	n := 0
	for n < SortBatchRows && len(m.h.c) > 0 {
		c := m.h.c[0]
		for i, b := range bs {
			appendRow(b, c.rec.Column(i), c.row)
		}
		n++
		if err := c.advance(); err != nil {
			return nil, err
		}
		if c.rec == nil {
			heap.Pop(&m.h)
		} else {
			heap.Fix(&m.h, 0)
		}
	}
	cols := make([]arrow.Array, len(bs))
	for i, b := range bs {
		cols[i] = b.NewArray()
		defer cols[i].Release()
	}
	return array.NewRecord(m.out, cols, int64(n)), nil
}

func (m *runMerger) close() error {
	var err error
	for _, c := range m.cursors {
		if c.rec != nil {
			c.rec.Release()
			c.rec = nil
		}
		if e := c.rd.Close(); err == nil {
			err = e
		}
	}
	m.cursors, m.h.c = nil, nil
	return err
}

func (h cursorHeap) Len() int { return len(h.c) }
func (h cursorHeap) Less(i, j int) bool {
	a, b := h.c[i], h.c[j]
	if r := cmpHostRows(h.keys, a.rec, a.row, b.rec, b.row); r != 0 {
		return r < 0
	}
	return a.idx < b.idx
}
func (h cursorHeap) Swap(i, j int) { h.c[i], h.c[j] = h.c[j], h.c[i] }
func (h *cursorHeap) Push(x any)   { h.c = append(h.c, x.(*runCursor)) }
func (h *cursorHeap) Pop() any {
	x := h.c[len(h.c)-1]
	h.c = h.c[:len(h.c)-1]
	return x
}
