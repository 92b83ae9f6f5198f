package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/internal/arrowsize"
)

// toC copies records into C memory (cAlloc), as exec does for a task's
// result (exec.Env.ResultAllocator), and releases the originals; it
// returns the copies and their bytes.
func toC(recs []arrow.Record) (out []arrow.Record, bytes int64, err error) {
	defer func() {
		for _, r := range recs {
			r.Release()
		}
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			out = nil
		}
	}()
	for _, r := range recs {
		cols := make([]arrow.Array, r.NumCols())
		for i, c := range r.Columns() {
			if cols[i], err = array.Concatenate([]arrow.Array{c}, cAlloc); err != nil {
				releaseAll(cols)
				return out, 0, fmt.Errorf("copying column %s to C memory: %w", r.ColumnName(i), err)
			}
			bytes += arrowsize.Data(cols[i].Data())
		}
		out = append(out, array.NewRecord(r.Schema(), cols, r.NumRows()))
		releaseAll(cols)
	}
	return out, bytes, nil
}

func releaseAll(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}
