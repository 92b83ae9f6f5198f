package main

/*
#include "hados.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/arrio"
	"github.com/apache/arrow-go/v18/arrow/cdata"
)

// streamInput is a host input handed over as an Arrow C stream, read as an
// operator (the executor's RowToColumnar reads it). It owns the imported
// stream: Close releases it, calling the producer's release callback once;
// the task closes it when it ends, whether or not the executor read it.
// Records it returns reference the producer's buffers (no copy) and are
// released by the caller, as for every operator.
type streamInput struct {
	rdr     arrio.Reader
	schema  *arrow.Schema
	rows    atomic.Int64
	batches atomic.Int64
	mu      sync.Mutex
	closed  bool
}

// importStream moves the C stream in into a streamInput; *in is left
// released. The stream's schema must import (the error names why not).
func importStream(in *C.struct_ArrowArrayStream) (*streamInput, error) {
	if in == nil {
		return nil, invalidf("the input stream is NULL")
	}
	if in.release == nil {
		return nil, invalidf("the input stream is released (its release callback is NULL)")
	}
	if in.get_schema == nil || in.get_next == nil || in.get_last_error == nil {
		return nil, invalidf("the input stream lacks a callback (get_schema, get_next and get_last_error are required)")
	}
	rdr, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(in)), nil)
	if err != nil {
		return nil, invalidf("the input stream's schema: %v", err)
	}
	sr, ok := rdr.(interface{ Schema() *arrow.Schema })
	if !ok {
		return nil, fmt.Errorf("the imported stream reader has no schema (arrow-go's cdata changed)")
	}
	return &streamInput{rdr: rdr, schema: sr.Schema()}, nil
}

func (s *streamInput) Schema() *arrow.Schema      { return s.schema }
func (s *streamInput) Open(context.Context) error { return nil }

// Next returns the stream's next batch (nil at its end); the caller
// releases it.
func (s *streamInput) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("input stream: read after close")
	}
	rec, err := s.rdr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("input stream: %w", err)
	}
	rec.Retain() // the reader releases its current record on the next Read
	s.rows.Add(rec.NumRows())
	s.batches.Add(1)
	return rec, nil
}

// Close releases the stream (the producer's release runs once).
func (s *streamInput) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if r, ok := s.rdr.(interface{ Release() }); ok {
		r.Release()
	}
	return nil
}
