package exchange

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Partition splits rec by partition id: the result has n entries, entry p
// holding the rows whose ids[i] == p in their original order, or nil when
// there are none. Rows are gathered once, in partition order, into buffers
// from mem; the per-partition records are zero-copy slices of that one
// gathered record, so they share buffers. The caller owns the returned
// records and releases each non-nil one; the shared buffers go back to mem
// when the last is released.
func Partition(rec arrow.RecordBatch, ids []int32, n int, mem memory.Allocator) ([]arrow.RecordBatch, error) {
	if err := checkIDs(rec, ids); err != nil {
		return nil, err
	}
	if err := checkN(n); err != nil {
		return nil, err
	}
	// Counting sort of row numbers by partition (stable).
	start := make([]int, n+1)
	for i, p := range ids {
		if p < 0 || int(p) >= n {
			return nil, fmt.Errorf("exchange: row %d has partition id %d, want [0,%d)", i, p, n)
		}
		start[p+1]++
	}
	for p := 0; p < n; p++ {
		start[p+1] += start[p]
	}
	perm := make([]int32, len(ids))
	next := append([]int(nil), start[:n]...)
	for i, p := range ids {
		perm[next[p]] = int32(i)
		next[p]++
	}
	gathered, err := takeRecord(rec, perm, mem)
	if err != nil {
		return nil, err
	}
	defer gathered.Release()
	out := make([]arrow.RecordBatch, n)
	for p := 0; p < n; p++ {
		if start[p+1] > start[p] {
			out[p] = gathered.NewSlice(int64(start[p]), int64(start[p+1]))
		}
	}
	return out, nil
}

// Concat concatenates records of one schema into a new record allocated
// from mem (the caller releases it). A single record is returned retained
// rather than copied.
func Concat(recs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("exchange: concat of no records")
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	schema := recs[0].Schema()
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	var rows int64
	parts := make([]arrow.Array, len(recs))
	for _, r := range recs {
		rows += r.NumRows()
	}
	for c := range cols {
		for k, r := range recs {
			parts[k] = r.Column(c)
		}
		col, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, fmt.Errorf("exchange: concatenate column %d: %w", c, err)
		}
		cols[c] = col
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}
