package tpchgen

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// NewTableReader streams one table as Arrow record batches of about
// opt.BatchRows rows (lineitem batches end on order boundaries). Only SF,
// Schema, Seed, BatchRows and Mem are used from opt.
//
// The caller owns the reader and must Release it; each batch returned by
// RecordBatch is owned by the reader and valid until the next call to Next
// or Release (Retain it to keep it longer). Next never fails: Err is
// always nil. A reader is not safe for concurrent use.
func NewTableReader(table string, opt Options) (array.RecordReader, error) {
	r, err := opt.resolve(false)
	if err != nil {
		return nil, err
	}
	t, err := lookupTable(table)
	if err != nil {
		return nil, err
	}
	g := newGen(r.Options)
	return newRangeReader(g, t, r.Mem, r.BatchRows, 0, t.units(g.card)), nil
}

// RowCount returns the number of rows Generate writes for table under opt
// (SF and Seed matter; lineitem's count depends on the seed).
func RowCount(table string, opt Options) (int64, error) {
	r, err := opt.resolve(false)
	if err != nil {
		return 0, err
	}
	t, err := lookupTable(table)
	if err != nil {
		return 0, err
	}
	g := newGen(r.Options)
	return t.rowCount(g, 0, t.units(g.card)), nil
}

// rangeReader generates units [next, end) of one table batch by batch. It
// owns its RecordBuilder and current batch (both allocated from the
// allocator given to newRangeReader) and frees them when its reference
// count drops to zero; whoever created it must Release it.
type rangeReader struct {
	refs          atomic.Int64
	g             *gen
	spec          *tableSpec
	schema        *arrow.Schema
	rb            *array.RecordBuilder
	cols          cols
	next, end     int64
	unitsPerBatch int64
	cur           arrow.RecordBatch
	// dataLen remembers each string column's byte length in the previous
	// batch, to reserve the next batch's data buffer in one allocation.
	dataLen []int
}

func newRangeReader(g *gen, t *tableSpec, mem memory.Allocator, batchRows int, lo, hi int64) *rangeReader {
	schema := TableDef{Name: t.name, Columns: t.cols}.ArrowSchema(g.schema)
	rr := &rangeReader{
		g: g, spec: t, schema: schema,
		next: lo, end: hi,
		unitsPerBatch: max(1, int64(batchRows)/t.rowsPerUnit),
	}
	rr.refs.Store(1)
	rr.rb = array.NewRecordBuilder(mem, schema)
	rr.cols = cols{rb: rr.rb, whole: g.schema == SparkTest}
	rr.dataLen = make([]int, len(t.cols))
	return rr
}

func (r *rangeReader) Retain() { r.refs.Add(1) }

func (r *rangeReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.releaseCur()
		r.rb.Release()
	}
}

func (r *rangeReader) releaseCur() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *rangeReader) Schema() *arrow.Schema { return r.schema }

func (r *rangeReader) Next() bool {
	r.releaseCur()
	if r.next >= r.end {
		return false
	}
	hi := min(r.end, r.next+r.unitsPerBatch)
	r.rb.Reserve(int((hi - r.next) * r.spec.rowsPerUnit))
	for i, f := range r.rb.Fields() {
		if s, ok := f.(*array.StringBuilder); ok && r.dataLen[i] > 0 {
			s.ReserveData(r.dataLen[i] + r.dataLen[i]/8)
		}
	}
	r.spec.fill(r.g, &r.cols, r.next, hi)
	for i, f := range r.rb.Fields() {
		if s, ok := f.(*array.StringBuilder); ok {
			r.dataLen[i] = s.DataLen()
		}
	}
	r.next = hi
	r.cur = r.rb.NewRecordBatch()
	return true
}

func (r *rangeReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *rangeReader) Record() arrow.RecordBatch { return r.cur }

func (r *rangeReader) Err() error { return nil }
