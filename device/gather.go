package device

import (
	"encoding/binary"
	"fmt"
)

// The Go side of hados_relational.h's descriptors: GATHER (this file) and
// SORT / MERGE (sort.go). A test in device/soft checks the sizes against
// the C compiler's.

// The magics and limits of hados_relational.h (RelationalVersion is in
// join.go).
const (
	SortMagic   = 0x54525348
	GatherMagic = 0x52544748
	MaxSortKeys = 32
)

// Encoded sizes of hados_relational.h's structures.
const (
	SizeofRelHeader = 24               // hados_sort / hados_gather header
	SizeofSortKey   = SizeofColumn + 8 // hados_sort_key
)

// Gather describes the input columns of a GATHER (hados_gather): every
// column has Rows rows; GATHER writes the rows named by an int32 array
// (-1 = a row of nulls) into hados_project_out columns of the same value
// types (strings come out as utf8).
type Gather struct {
	Rows    uint64
	Columns []Column
}

// Encode serialises the descriptor.
func (g *Gather) Encode() ([]byte, error) {
	if len(g.Columns) == 0 || len(g.Columns) > MaxColumns {
		return nil, fmt.Errorf("%w: gather of %d columns (want 1..%d)", ErrInvalid, len(g.Columns), MaxColumns)
	}
	b := relHeader(GatherMagic, SizeofColumn, len(g.Columns), g.Rows)
	for i := range g.Columns {
		putColumn(b[SizeofRelHeader+SizeofColumn*i:], &g.Columns[i])
	}
	return b, nil
}

// relHeader allocates a descriptor of n elements of elem bytes after the
// common header, and fills the header.
func relHeader(magic uint32, elem, n int, rows uint64) []byte {
	b := relDescriptor(magic, SizeofRelHeader, elem, n)
	binary.LittleEndian.PutUint64(b[16:], rows)
	return b
}

// relDescriptor allocates a descriptor of a hdr-byte header and n
// elements of elem bytes, and fills the first 16 bytes every relational
// descriptor starts with: magic, version, size, element count.
func relDescriptor(magic uint32, hdr, elem, n int) []byte {
	size := hdr + elem*n
	b := make([]byte, size)
	le := binary.LittleEndian
	le.PutUint32(b, magic)
	le.PutUint32(b[4:], RelationalVersion)
	le.PutUint32(b[8:], uint32(size))
	le.PutUint32(b[12:], uint32(n))
	return b
}
