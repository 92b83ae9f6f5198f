package device

import (
	"encoding/binary"
	"fmt"
)

// Sort key flags (HADOS_SKEY_*).
const (
	SortDesc       uint32 = 1 // descending
	SortNullsFirst uint32 = 2 // nulls before values
)

// SortKey is one key of a SORT / MERGE (hados_sort_key).
type SortKey struct {
	Column Column
	Flags  uint32 // SortDesc, SortNullsFirst
}

// SortBounds (bit 63 of a SORT's Args[3]) makes the SORT keep only the
// rows between two rows of the order by the keys then the row number:
// Args[3] = SortBounds | hi<<32 | lo, lo included (0xffffffff: unbounded),
// hi excluded (0x7fffffff: unbounded); the limit must be 0 and the output
// hold end-first rows; the result is the rows kept.
const SortBounds uint64 = 1 << 63

// Sort describes the key columns of a SORT or MERGE (hados_sort): every
// key column has Rows rows. SORT orders a range of rows (Args: first, end,
// limit, bounds) into int32 row numbers; MERGE merges two sorted runs of
// row numbers stably.
type Sort struct {
	Rows uint64
	Keys []SortKey
}

// Encode serialises the descriptor.
func (s *Sort) Encode() ([]byte, error) {
	if len(s.Keys) == 0 || len(s.Keys) > MaxSortKeys {
		return nil, fmt.Errorf("%w: sort with %d keys (want 1..%d)", ErrInvalid, len(s.Keys), MaxSortKeys)
	}
	b := relHeader(SortMagic, SizeofSortKey, len(s.Keys), s.Rows)
	for i := range s.Keys {
		e := b[SizeofRelHeader+SizeofSortKey*i:]
		putColumn(e, &s.Keys[i].Column)
		binary.LittleEndian.PutUint32(e[SizeofColumn:], s.Keys[i].Flags)
	}
	return b, nil
}
