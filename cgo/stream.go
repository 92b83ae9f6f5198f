package main

/*
#include <errno.h>
#include <stdlib.h>
#include "hados.h"
void hd_stream_init(struct ArrowArrayStream *s, uintptr_t h);
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/apache/arrow-go/v18/arrow/memory/mallocator"

	"github.com/hados-io/hados/internal/arrowsize"
)

// cAlloc places every buffer hados exports in malloc'd memory: no Go
// pointer reaches C, and the buffers outlive the task and the runtime.
// Its AllocatedBytes is what exported data still holds (0 once every
// stream and array is released).
var cAlloc = mallocator.NewMallocator()

// outStream is the Go side of an exported ArrowArrayStream: batches in C
// memory handed out one by one. The consumer owns it through the stream's
// release callback, which releases the batches not handed out; each array
// handed out is released by its own (idempotent) release callback.
type outStream struct {
	mu      sync.Mutex
	schema  *arrow.Schema
	recs    []arrow.Record
	next    int
	lastErr *C.char // C memory, valid until the next call on the stream
}

// recordsBytes sums the buffer bytes of records.
func recordsBytes(recs []arrow.Record) int64 {
	var n int64
	for _, r := range recs {
		n += arrowsize.Record(r)
	}
	return n
}

// exportStream fills *out with a stream over recs (C memory; the stream
// takes them over).
func exportStream(schema *arrow.Schema, recs []arrow.Record, out *C.struct_ArrowArrayStream) {
	h := newHandle(&outStream{schema: schema, recs: recs}, "ArrowArrayStream")
	C.hd_stream_init(out, C.uintptr_t(h))
}

// streamOf resolves a stream's private data; a stale one is an error.
func streamOf(h C.uintptr_t) (*outStream, error) {
	return lookup[*outStream](cgo.Handle(h), "ArrowArrayStream")
}

// guard runs a stream callback: a panic or error becomes an errno and the
// stream's last error.
func guard(s *outStream, fn func() error) (errno C.int) {
	defer func() {
		if r := recover(); r != nil {
			s.setErr(fmt.Sprintf("hados: internal error: %v", r))
			errno = C.EIO
		}
	}()
	if err := fn(); err != nil {
		s.setErr(err.Error())
		return C.EIO
	}
	return 0
}

func (s *outStream) setErr(msg string) {
	C.free(unsafe.Pointer(s.lastErr))
	s.lastErr = C.CString(msg)
}

//export hdgo_stream_schema
func hdgo_stream_schema(h C.uintptr_t, out *C.struct_ArrowSchema) C.int {
	s, err := streamOf(h)
	if err != nil {
		return C.EINVAL
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return guard(s, func() error {
		cdata.ExportArrowSchema(s.schema, (*cdata.CArrowSchema)(unsafe.Pointer(out)))
		return nil
	})
}

//export hdgo_stream_next
func hdgo_stream_next(h C.uintptr_t, out *C.struct_ArrowArray) C.int {
	s, err := streamOf(h)
	if err != nil {
		return C.EINVAL
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return guard(s, func() error {
		if s.next >= len(s.recs) {
			out.release = nil // the end of the stream: a released array
			return nil
		}
		rec := s.recs[s.next]
		s.recs[s.next] = nil
		s.next++
		// the array shares rec's C buffers and holds its own references
		cdata.ExportArrowRecordBatch(rec, (*cdata.CArrowArray)(unsafe.Pointer(out)), nil)
		rec.Release()
		return nil
	})
}

//export hdgo_stream_error
func hdgo_stream_error(h C.uintptr_t) *C.char {
	s, err := streamOf(h)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

//export hdgo_stream_release
func hdgo_stream_release(h C.uintptr_t) {
	defer func() { _ = recover() }() // a release callback has no way to report
	s, err := streamOf(h)
	if err != nil || !release(cgo.Handle(h)) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := s.next; i < len(s.recs); i++ {
		if s.recs[i] != nil {
			s.recs[i].Release()
		}
	}
	s.recs = nil
	C.free(unsafe.Pointer(s.lastErr))
	s.lastErr = nil
}

// newCStream allocates a zeroed ArrowArrayStream in C memory, for Go code
// standing in for a C caller (tests, benchmarks); freeCStream frees the
// struct (not the stream: release it first).
func newCStream() *C.struct_ArrowArrayStream {
	return (*C.struct_ArrowArrayStream)(C.calloc(1, C.sizeof_struct_ArrowArrayStream))
}

func freeCStream(s *C.struct_ArrowArrayStream) { C.free(unsafe.Pointer(s)) }
