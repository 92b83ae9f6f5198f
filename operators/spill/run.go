package spill

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/exchange"
)

// Run is a finished sequence of records on disk. It can be read any number
// of times, by one reader at a time or several; Remove deletes its files
// (the manager's Close does it for runs not removed). Not safe for
// concurrent use with Remove.
type Run struct {
	m        *Manager
	operator string
	schema   *arrow.Schema
	segs     []exchange.MapOutput
	rows     int64
	bytes    int64
	removed  bool
}

// Rows is how many rows the run holds.
func (r *Run) Rows() int64 { return r.rows }

// Bytes is the run's size on disk (data and index files).
func (r *Run) Bytes() int64 { return r.bytes }

// Files is how many files the run occupies (a data and an index file per
// segment; none for an empty run).
func (r *Run) Files() int { return 2 * len(r.segs) }

// Schema is the run's schema.
func (r *Run) Schema() *arrow.Schema { return r.schema }

// Open returns a reader of the run's records in the order they were
// written; mem (nil: memory.DefaultAllocator) allocates them.
func (r *Run) Open(mem memory.Allocator) (*Reader, error) {
	if r.removed {
		return nil, fmt.Errorf("spill: %s: open of a removed run", r.operator)
	}
	rd, err := exchange.NewShuffleReader(r.segs, 0, r.schema, mem)
	if err != nil {
		return nil, fmt.Errorf("spill: %s: %w", r.operator, err)
	}
	return &Reader{run: r, rd: rd}, nil
}

// Remove deletes the run's files. It is idempotent.
func (r *Run) Remove() error {
	if r.removed {
		return nil
	}
	r.removed = true
	r.m.forgetRun(r)
	if err := removeSegments(r.segs); err != nil {
		return fmt.Errorf("spill: %s: remove run: %w", r.operator, err)
	}
	return nil
}

// Reader reads a run back. Every record Next returns is owned by the
// caller, who releases it; Close releases what the reader still holds and
// is idempotent. Not safe for concurrent use.
type Reader struct {
	run *Run
	rd  *exchange.ShuffleReader
}

// Next returns the next record, or nil and a nil error at the end. A
// damaged or truncated file gives an error matching exchange.ErrCorrupt
// that names the file and the byte offset of the damage.
func (rd *Reader) Next() (arrow.Record, error) {
	rec, err := rd.rd.Next()
	if err != nil {
		return nil, fmt.Errorf("spill: read %s run: %w", rd.run.operator, err)
	}
	return rec, nil
}

// Close releases the records not yet returned and closes the open file.
func (rd *Reader) Close() error {
	if err := rd.rd.Close(); err != nil {
		return fmt.Errorf("spill: %s: %w", rd.run.operator, err)
	}
	return nil
}
