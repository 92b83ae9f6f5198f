package conformance

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ErrIPC is wrapped by ReadIPC's errors about malformed input.
var ErrIPC = errors.New("not a readable Arrow IPC stream")

// ReadIPC reads a result written as an Arrow IPC stream (what `hados bench`
// hands to duckbench) into a Table. name names the source in errors. A
// malformed stream is an error wrapping ErrIPC, never a panic.
func ReadIPC(name string, r io.Reader) (t *Table, err error) {
	defer func() {
		// arrow-go's IPC reader trusts the buffers' lengths and offsets
		// and can panic on a corrupt stream; turn that into an error.
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("conformance: %s: %w: %v", name, ErrIPC, p)
		}
	}()
	rd, err := ipc.NewReader(r, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, fmt.Errorf("conformance: %s: %w: %v", name, ErrIPC, err)
	}
	defer rd.Release()
	var recs []arrow.Record
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	for rd.Next() {
		rec := rd.Record()
		if err := validate(rec); err != nil {
			return nil, fmt.Errorf("conformance: %s: record %d: %w: %v", name, len(recs)+1, ErrIPC, err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("conformance: %s: %w: %v", name, ErrIPC, err)
	}
	t, err = FromArrow(rd.Schema(), recs)
	if err != nil {
		return nil, fmt.Errorf("conformance: %s: %w", name, err)
	}
	return t, nil
}

// validate checks a decoded record's arrays before their values are read.
func validate(rec arrow.Record) error {
	for i, c := range rec.Columns() {
		if c.Len() != int(rec.NumRows()) {
			return fmt.Errorf("column %d has %d values, the record %d rows", i, c.Len(), rec.NumRows())
		}
		if v, ok := c.(interface{ ValidateFull() error }); ok {
			if err := v.ValidateFull(); err != nil {
				return fmt.Errorf("column %d: %w", i, err)
			}
		}
	}
	return nil
}

// ReadIPCFile is ReadIPC over a file.
func ReadIPCFile(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	defer f.Close()
	return ReadIPC(path, f)
}
