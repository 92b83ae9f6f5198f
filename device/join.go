package device

import (
	"encoding/binary"
	"fmt"
)

// The Go side of the hash join ops of hados_relational.h: the hados_join
// descriptor (the key columns of one side) and the hados_join_out probe
// output and cursor. A test in device/soft checks the sizes and offsets
// against the C compiler's.

// Join constants of hados_relational.h.
const (
	RelationalVersion = 1
	JoinMagic         = 0x4E4A4A48 // "HJJN"
	MaxJoinKeys       = 16

	// JoinKeyNullSafe makes null match null on a key (Spark's <=>).
	JoinKeyNullSafe uint32 = 1

	// ProbeFirstMatch writes at most one pair per probe row.
	ProbeFirstMatch uint32 = 1
	// ProbeUnmatched also writes (probe row, -1) for rows without a match.
	ProbeUnmatched uint32 = 2
	// ProbeCond (with ProbeFirstMatch only) makes a build row a match only
	// when a join condition passes for the pair: the op's Args[2] is a
	// JoinCond descriptor (its ProbeRows and BuildRows the probe's and the
	// build's rows; its pair fields unused) and Args[3] its length. The
	// pair written is a probe row's first passing match; with
	// ProbeUnmatched, (row, -1) when none passes.
	ProbeCond uint32 = 4

	SizeofJoinHeader = 24 + 4*MaxJoinKeys // magic .. key_flags; the key columns follow
	SizeofJoinOut    = 56
)

// Join is a hados_join descriptor: the key columns of one side of a join
// (the build side for OpJoinBuild, the probe side for OpJoinProbe), all
// Rows long; NullSafe[k] marks key k null-safe (nil: none).
type Join struct {
	Rows     uint64
	Keys     []Column
	NullSafe []bool
}

// Encode serialises the descriptor; its error names what is wrong.
func (j *Join) Encode() ([]byte, error) {
	if len(j.Keys) == 0 || len(j.Keys) > MaxJoinKeys {
		return nil, fmt.Errorf("%w: join descriptor with %d keys (1..%d)", ErrInvalid, len(j.Keys), MaxJoinKeys)
	}
	if j.NullSafe != nil && len(j.NullSafe) != len(j.Keys) {
		return nil, fmt.Errorf("%w: join descriptor: %d null-safe flags for %d keys", ErrInvalid, len(j.NullSafe), len(j.Keys))
	}
	b := relDescriptor(JoinMagic, SizeofJoinHeader, SizeofColumn, len(j.Keys))
	le := binary.LittleEndian
	le.PutUint64(b[16:], j.Rows)
	for k := range j.Keys {
		if j.NullSafe != nil && j.NullSafe[k] {
			le.PutUint32(b[24+4*k:], JoinKeyNullSafe)
		}
		putColumn(b[SizeofJoinHeader+SizeofColumn*k:], &j.Keys[k])
	}
	return b, nil
}

// JoinOut is a hados_join_out: where a probe writes its pairs and its
// resumable cursor over probe rows [NextRow, EndRow).
type JoinOut struct {
	ProbeRows, BuildRows Addr // int32[Capacity] each
	Capacity             uint64
	Flags                uint32 // Probe*
	EndRow               uint64
	NextRow              uint64
	NextMatch            uint64
}

// Encode serialises the structure.
func (o *JoinOut) Encode() []byte {
	b := make([]byte, SizeofJoinOut)
	o.Put(b)
	return b
}

// Put writes the structure into b (at least SizeofJoinOut bytes).
func (o *JoinOut) Put(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b, uint64(o.ProbeRows))
	le.PutUint64(b[8:], uint64(o.BuildRows))
	le.PutUint64(b[16:], o.Capacity)
	le.PutUint32(b[24:], o.Flags)
	le.PutUint32(b[28:], 0)
	le.PutUint64(b[32:], o.EndRow)
	le.PutUint64(b[40:], o.NextRow)
	le.PutUint64(b[48:], o.NextMatch)
}

// DecodeJoinOut reads a structure a probe updated.
func DecodeJoinOut(b []byte) (JoinOut, error) {
	if len(b) < SizeofJoinOut {
		return JoinOut{}, fmt.Errorf("%w: hados_join_out of %d bytes, want %d", ErrInvalid, len(b), SizeofJoinOut)
	}
	le := binary.LittleEndian
	return JoinOut{
		ProbeRows: Addr(le.Uint64(b)), BuildRows: Addr(le.Uint64(b[8:])), Capacity: le.Uint64(b[16:]),
		Flags: le.Uint32(b[24:]), EndRow: le.Uint64(b[32:]), NextRow: le.Uint64(b[40:]), NextMatch: le.Uint64(b[48:]),
	}, nil
}
