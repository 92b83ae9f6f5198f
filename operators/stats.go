package operators

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators/spill"
)

// Stats counts what an operator did. The Spill counters add up the runs it
// wrote to disk when its memory quota ran out (files, on-disk bytes, rows).
type Stats struct {
	RowsIn     int64 `json:"rows_in"`
	RowsOut    int64 `json:"rows_out"`
	Batches    int64 `json:"batches"`
	SpillFiles int64 `json:"spill_files,omitempty"`
	SpillBytes int64 `json:"spill_bytes,omitempty"`
	SpillRows  int64 `json:"spill_rows,omitempty"`
}

// addSpill counts a finished spill run.
func (s *Stats) addSpill(r *spill.Run) {
	s.SpillFiles += int64(r.Files())
	s.SpillBytes += r.Bytes()
	s.SpillRows += r.Rows()
}

// emit takes the first record off the non-empty queue *q and counts it as
// one output batch; the caller hands it on (ownership with it).
func (s *Stats) emit(q *[]arrow.Record) arrow.Record {
	r := (*q)[0]
	*q = (*q)[1:]
	s.RowsOut += r.NumRows()
	s.Batches++
	return r
}
