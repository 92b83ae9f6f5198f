package spill

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/internal/arrowsize"
	"github.com/hados-io/hados/internal/probe"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/exchange"
)

// segmentBytes is how many bytes of records a writer gathers in Go memory
// before it commits them as one segment (a data and an index file) of the
// run: the bound on the host memory a writer holds.
var segmentBytes int64 = 8 << 20

// tierDisk is the Spill probe's tier of a run on disk.
const tierDisk = 2

// Writer writes one run: a sequence of records of one schema. Write copies
// each record (which may live in device memory) into Go memory and, every
// few MiB, onto disk as one segment in the exchange's block format (one
// partition, compressed with the manager's codec), so the caller may free
// its records, and the device memory behind them, as soon as Write
// returns. A writer ends with Finish, which returns the Run, or Abort,
// which removes what it wrote; after a failed Write only Abort is allowed.
// Not safe for concurrent use.
type Writer struct {
	m        *Manager
	operator string
	schema   *arrow.Schema
	num      int    // the run's number in the manager
	prefix   string // path prefix of the run's files

	sw      *exchange.ShuffleWriter // the open segment, nil between segments
	pending int64                   // bytes of records in the open segment
	segs    []exchange.MapOutput    // committed segments
	rows    int64
	bytes   int64
	failed  error
	done    bool

	acct    *hmem.Account // charged for the records held in Go memory (ChargeTo), or nil
	charged uint64        // what acct holds for the open segment
}

// ChargeTo makes the writer charge the records it holds in Go memory (at
// most segmentBytes, until they go to disk) to a, e.g. the task's account,
// so that the host side of a spill counts against the task's quota. When
// a refuses, the writer commits what it holds to disk and tries again;
// if a still refuses, it writes the record uncharged and commits it at
// once, so it never holds more than one uncharged record. Call it before
// the first Write.
func (w *Writer) ChargeTo(a *hmem.Account) { w.acct = a }

// charge reserves n bytes of held records in the account, committing the
// open segment first when the account refuses; false: not charged.
func (w *Writer) charge(n int64) (bool, error) {
	if w.acct == nil {
		return true, nil
	}
	if w.acct.Reserve(uint64(n)) == nil {
		w.charged += uint64(n)
		return true, nil
	}
	if w.sw != nil && w.pending > 0 {
		if err := w.commit(); err != nil {
			return false, err
		}
		if w.acct.Reserve(uint64(n)) == nil {
			w.charged += uint64(n)
			return true, nil
		}
	}
	return false, nil
}

// uncharge releases what the account holds for the open segment.
func (w *Writer) uncharge() {
	if w.acct != nil && w.charged > 0 {
		w.acct.Release(w.charged)
	}
	w.charged = 0
}

// Write appends a copy of rec to the run; rec stays the caller's. Its
// columns must have the run's types (names and nullability may differ).
func (w *Writer) Write(rec arrow.Record) error {
	switch {
	case w.done:
		return fmt.Errorf("spill: %s: write to a finished or aborted run", w.operator)
	case w.failed != nil:
		return fmt.Errorf("spill: %s: write after a failed write: %w", w.operator, w.failed)
	case rec == nil || rec.NumRows() == 0:
		return nil
	}
	rec, err := conform(w.schema, rec)
	if err != nil {
		return w.fail(fmt.Errorf("spill: %s: %w", w.operator, err))
	}
	defer rec.Release()
	size := arrowsize.Record(rec)
	charged, err := w.charge(size)
	if err != nil {
		return err
	}
	if w.sw == nil {
		w.sw, err = exchange.NewShuffleWriter(exchange.Single{}, exchange.WriterOptions{Dir: w.m.dir,
			ShuffleID: w.num, MapID: len(w.segs), Codec: w.m.codec, MemoryLimit: math.MaxInt64})
		if err != nil {
			return w.fail(fmt.Errorf("spill: %s: %w", w.operator, err))
		}
	}
	if err := w.sw.Write(rec); err != nil {
		return w.fail(fmt.Errorf("spill: %s: %w", w.operator, err))
	}
	w.rows += rec.NumRows()
	w.pending += size
	if w.pending >= segmentBytes || !charged {
		return w.commit()
	}
	return nil
}

func (w *Writer) fail(err error) error {
	w.failed = err
	return err
}

// conform returns rec (retained) under the run's schema, or an error if
// a column's type differs.
func conform(schema *arrow.Schema, rec arrow.Record) (arrow.Record, error) {
	if rec.Schema() == schema {
		rec.Retain()
		return rec, nil
	}
	if int(rec.NumCols()) != schema.NumFields() {
		return nil, fmt.Errorf("record has %d columns, the run %d", rec.NumCols(), schema.NumFields())
	}
	for i, f := range schema.Fields() {
		if got := rec.Column(i).DataType(); !arrow.TypeEqual(got, f.Type) {
			return nil, fmt.Errorf("column %d (%s) is %s, the run's is %s", i, f.Name, got, f.Type)
		}
	}
	return array.NewRecordBatch(schema, rec.Columns(), rec.NumRows()), nil
}

// commit closes the open segment and renames its files after the run.
func (w *Writer) commit() error {
	sw := w.sw
	w.sw, w.pending = nil, 0
	defer w.uncharge()
	out, err := sw.Close()
	if err != nil {
		return w.fail(fmt.Errorf("spill: %s: %w", w.operator, err))
	}
	seg := exchange.MapOutput{DataPath: fmt.Sprintf("%s-%04d.data", w.prefix, len(w.segs)),
		IndexPath: fmt.Sprintf("%s-%04d.index", w.prefix, len(w.segs)), PartitionLengths: out.PartitionLengths}
	if err := errors.Join(os.Rename(out.DataPath, seg.DataPath), os.Rename(out.IndexPath, seg.IndexPath)); err != nil {
		os.Remove(out.DataPath)
		os.Remove(out.IndexPath)
		os.Remove(seg.DataPath)
		return w.fail(fmt.Errorf("spill: %s: commit segment: %w", w.operator, err))
	}
	w.segs = append(w.segs, seg)
	w.bytes += sw.Stats().FileBytes
	return nil
}

// Finish commits what was written and returns the run, which the manager
// also records (its Close removes the run's files if Remove did not). It
// reports the run to the Spill probe. After an error the writer is
// aborted.
func (w *Writer) Finish() (*Run, error) {
	if w.done {
		return nil, fmt.Errorf("spill: %s: finish of a finished or aborted run", w.operator)
	}
	if w.failed != nil {
		err := w.failed
		w.Abort()
		return nil, fmt.Errorf("spill: %s: finish after a failed write: %w", w.operator, err)
	}
	if w.sw != nil {
		if err := w.commit(); err != nil {
			w.Abort()
			return nil, err
		}
	}
	w.done = true
	r := &Run{m: w.m, operator: w.operator, schema: w.schema, segs: w.segs, rows: w.rows, bytes: w.bytes}
	w.m.finished(w, r)
	probe.Spill(w.m.device(), uint64(w.bytes), tierDisk, 0, 0)
	return r, nil
}

// Abort discards the run: buffered records are released and its files
// removed. It is idempotent and does nothing after Finish.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.sw != nil {
		w.sw.Abort()
		w.sw = nil
	}
	w.uncharge()
	removeSegments(w.segs)
	w.segs = nil
	w.m.forgetWriter(w)
}

// removeSegments removes the files of segs, ignoring those already gone.
func removeSegments(segs []exchange.MapOutput) error {
	var errs []error
	for _, s := range segs {
		for _, p := range []string{s.DataPath, s.IndexPath} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
