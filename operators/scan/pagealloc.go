package scan

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	hmem "github.com/hados-io/hados/memory"
)

// pageAlloc is the allocator of pqarrow's page reading scratch (the
// ReaderProperties allocator): the buffer a page is read into and the one
// it is decompressed into, one of each per column chunk, grown to the
// largest page. With arrow's default Go allocator every column chunk of
// every row group allocated (and the runtime cleared) them afresh, about a
// tenth of Q6's scan with the garbage collection it caused; pageAlloc
// recycles them through the scratch cache of inflate.go, uncleared: arrow
// reads a page, or decompresses one, into the buffer before it reads the
// buffer, and gives the buffers back when the column chunk's reader is
// done. Safe for concurrent use.
//
// In tests (memory.Poisoning) buffers are poisoned when handed out and when
// given back, so a read of bytes nobody wrote, or of a page after its
// buffer went back, shows up in the scan's suite.
type pageAlloc struct{}

var _ memory.Allocator = pageAlloc{}

// plainPageBuffers makes the scan read pages with arrow's default
// allocator instead (for same-run comparisons).
var plainPageBuffers = false

// pageReadAlloc is the allocator page readers get.
func pageReadAlloc() memory.Allocator {
	if plainPageBuffers {
		return nil // arrow's Go allocator
	}
	return pageAlloc{}
}

func (pageAlloc) Allocate(size int) []byte {
	if size <= 0 {
		return nil
	}
	b := *getBuf(size)
	if hmem.Poisoning() {
		hmem.Poison(b[:cap(b)])
	}
	return b
}

func (a pageAlloc) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (pageAlloc) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	b = b[:cap(b)]
	if hmem.Poisoning() {
		hmem.Poison(b)
	}
	putBuf(&b) // only power-of-two capacities (getBuf's) are kept
}
