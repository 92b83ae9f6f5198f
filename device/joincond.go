package device

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The Go side of hados_joincond.h: a hash join's extra condition (a
// conjunction of comparisons between columns of the probe and build
// sides) evaluated over candidate pairs of row numbers by one op,
// OpJoinCond, reading the operands in place. A test in device/soft checks
// the sizes against the C compiler's.

// OpJoinCond evaluates a JoinCond descriptor (Src, Len) over the pairs
// [Args[0], Args[1]): it writes Out[i] = 1 for a passing pair, 0 for the
// others, and its result is the number of passing pairs. Ops over
// disjoint pair ranges of one descriptor may run at once.
const OpJoinCond Opcode = 23

// Join condition constants of hados_joincond.h.
const (
	JoinCondMagic     = 0x444E4348 // "HCND"
	MaxJoinCondTerms  = 16
	SizeofJoinCondHdr = 72
	SizeofJoinTerm    = 8 + 2*SizeofColumn

	// JoinCondFirstPass: only whether some pair of a probe row passes
	// matters (semi, anti and existence joins probing their left side);
	// the op may write 0 for a row's pairs after one that passed.
	JoinCondFirstPass uint32 = 1
)

// JoinCmp is a comparison of a JoinTerm: A op B.
type JoinCmp uint32

const (
	JoinCmpEq JoinCmp = iota
	JoinCmpNe
	JoinCmpLt
	JoinCmpLe
	JoinCmpGt
	JoinCmpGe
)

var joinCmpNames = [...]string{"=", "<>", "<", "<=", ">", ">="}

func (c JoinCmp) String() string {
	if int(c) < len(joinCmpNames) {
		return joinCmpNames[c]
	}
	return fmt.Sprintf("JoinCmp(%d)", uint32(c))
}

// JoinTerm is one comparison of a condition: A Cmp B, each operand a
// column read at the pair's probe row or, when ABuild / BBuild, at its
// build row. Both have the same value type: VTI32, VTI64, VTF64 or VTI128.
type JoinTerm struct {
	Cmp            JoinCmp
	ABuild, BBuild bool
	A, B           Column
}

// JoinCond is a hados_join_cond descriptor: the terms (all must hold; a
// null operand rejects the pair), the pair arrays (int32 probe and build
// row numbers, build -1 for none), the output (one byte per pair) and the
// row counts every probe-side and build-side operand column has.
type JoinCond struct {
	Flags                uint32 // JoinCond*
	Pairs                uint64
	ProbeRows, BuildRows uint64
	ProbeIdx, BuildIdx   Addr // int32[Pairs]
	Out                  Addr // uint8[Pairs]
	Terms                []JoinTerm
}

// JoinCondTypeOK reports whether the op compares values of type vt.
func JoinCondTypeOK(vt VType) bool {
	return vt == VTI32 || vt == VTI64 || vt == VTF64 || vt == VTI128
}

// Encode serialises the descriptor; its error names what is wrong.
func (c *JoinCond) Encode() ([]byte, error) {
	bad := func(f string, a ...any) ([]byte, error) {
		return nil, fmt.Errorf("%w: join condition: "+f, append([]any{ErrInvalid}, a...)...)
	}
	if len(c.Terms) == 0 || len(c.Terms) > MaxJoinCondTerms {
		return bad("%d terms (1..%d)", len(c.Terms), MaxJoinCondTerms)
	}
	if c.Flags&^JoinCondFirstPass != 0 {
		return bad("unknown flags %#x", c.Flags)
	}
	if c.Pairs > math.MaxInt32 || c.ProbeRows > math.MaxInt32 || c.BuildRows > math.MaxInt32 {
		return bad("%d pairs over %d probe and %d build rows (row numbers are int32)", c.Pairs, c.ProbeRows, c.BuildRows)
	}
	for k, t := range c.Terms {
		if t.Cmp > JoinCmpGe {
			return bad("term %d: unknown comparison %d", k, t.Cmp)
		}
		if t.A.VType != t.B.VType || !JoinCondTypeOK(t.A.VType) {
			return bad("term %d compares %s with %s (want the same of i32, i64, f64, i128)", k, t.A.VType, t.B.VType)
		}
	}
	b := relDescriptor(JoinCondMagic, SizeofJoinCondHdr, SizeofJoinTerm, len(c.Terms))
	le := binary.LittleEndian
	le.PutUint32(b[16:], c.Flags)
	le.PutUint64(b[24:], c.Pairs)
	le.PutUint64(b[32:], c.ProbeRows)
	le.PutUint64(b[40:], c.BuildRows)
	le.PutUint64(b[48:], uint64(c.ProbeIdx))
	le.PutUint64(b[56:], uint64(c.BuildIdx))
	le.PutUint64(b[64:], uint64(c.Out))
	for k, t := range c.Terms {
		e := b[SizeofJoinCondHdr+SizeofJoinTerm*k:]
		var f uint32
		if t.ABuild {
			f |= 1
		}
		if t.BBuild {
			f |= 2
		}
		le.PutUint32(e, uint32(t.Cmp))
		le.PutUint32(e[4:], f)
		putColumn(e[8:], &t.A)
		putColumn(e[8+SizeofColumn:], &t.B)
	}
	return b, nil
}
