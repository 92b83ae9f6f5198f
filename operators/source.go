package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// RecordSource is an operator over records already in memory (tests,
// benchmarks, inputs handed over through the C ABI).
//
// Ownership: it takes a reference on each record at construction and keeps
// it until Close, so that Reset can rewind it; Next hands the caller a
// reference of its own (the caller releases it). Close releases the
// source's references; records the caller still holds stay valid.
type RecordSource struct {
	schema *arrow.Schema
	recs   []arrow.Record
	next   int
}

// NewRecordSource returns a source of recs (all of the given schema).
func NewRecordSource(schema *arrow.Schema, recs ...arrow.Record) *RecordSource {
	own := make([]arrow.Record, len(recs))
	for i, r := range recs {
		r.Retain()
		own[i] = r
	}
	return &RecordSource{schema: schema, recs: own}
}

func (s *RecordSource) Schema() *arrow.Schema      { return s.schema }
func (s *RecordSource) Open(context.Context) error { return nil }
func (s *RecordSource) Next(context.Context) (arrow.Record, error) {
	if s.next >= len(s.recs) {
		return nil, nil
	}
	r := s.recs[s.next]
	s.next++
	r.Retain()
	return r, nil
}

// Reset rewinds the source: Next returns its records again from the first.
// After Close it has none.
func (s *RecordSource) Reset(context.Context) error {
	s.next = 0
	return nil
}

// Close releases the source's references to its records.
func (s *RecordSource) Close() error {
	releaseRecords(s.recs)
	s.recs, s.next = nil, 0
	return nil
}

// Collect opens an operator, drains it and closes it. The caller releases
// the records.
func Collect(ctx context.Context, op Operator) (recs []arrow.Record, err error) {
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
			recs = nil
		}
	}()
	if err = op.Open(ctx); err != nil {
		return nil, err
	}
	for {
		r, err := op.Next(ctx)
		if err != nil {
			return recs, err
		}
		if r == nil {
			return recs, nil
		}
		recs = append(recs, r)
	}
}
