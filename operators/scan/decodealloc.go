package scan

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	hmem "github.com/hados-io/hados/memory"
)

// Decoding into uninitialised memory.
//
// hados' allocators clear every buffer Allocate returns, as arrow expects;
// for a scan that is a pass over every byte it decodes (about an eighth of
// Q6's scan), only for pqarrow to overwrite it. So when Options.Alloc
// offers AllocateUninit (memory.Uninit), the allocator pqarrow decodes
// with takes fresh buffers uninitialised. That is safe because arrow-go
// (v18.8) writes every byte it later reads: value buffers are filled by the
// decoders (PLAIN, dictionary, delta, byte-stream-split), a nullable
// column's values spread out in place leaving its null slots holding
// whatever was there (Arrow gives null slots no value; hados' kernels never
// trust them, e.g. integer division tests the divisor of every slot),
// validity bitmaps are written a whole byte at a time
// (FirstTimeBitmapWriter), and arrow's builders clear the bitmaps and
// buffers they rely on themselves (memory.Set). Reallocate still clears
// what it adds, and the scan's own conversions (convert.go, constant
// partition columns) keep the clearing allocator. The expansion of
// dictionary-read string columns (dictread.go) allocates from this one too
// and writes every offset and value byte, and clears the validity bitmap
// before copying into it.
//
// Tests run with poisoning on (memory.AllocateUninit fills such buffers
// with 0xA5), so the scan's suite — the type matrix, nulls, interop with
// DuckDB and arrow-go files, missing columns, dictionaries — fails if any
// decoded value or bit comes from memory nobody wrote.
type decodeAlloc struct {
	memory.Allocator
	u hmem.Uninit
}

// decodeAllocator returns the allocator pqarrow decodes with: a itself
// when it cannot skip clearing.
func decodeAllocator(a memory.Allocator) memory.Allocator {
	if u, ok := a.(hmem.Uninit); ok && !clearDecodeBuffers {
		return decodeAlloc{Allocator: a, u: u}
	}
	return a
}

// clearDecodeBuffers makes the scan decode into cleared memory (tests
// compare both).
var clearDecodeBuffers = false

// Allocate returns size bytes nobody has written (poisoned in tests).
func (d decodeAlloc) Allocate(size int) []byte { return d.u.AllocateUninit(size) }
