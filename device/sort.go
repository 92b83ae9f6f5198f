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

// Sort describes the key columns of a SORT or MERGE (hados_sort): every
// key column has Rows rows. SORT orders a range of rows (Args: first, end,
// limit) into int32 row numbers; MERGE merges two sorted runs of row
// numbers stably.
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
