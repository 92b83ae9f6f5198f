package device

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The Go side of hados_pipeline.h: the encoding of fused query pipelines
// as device programs. The constants and layouts mirror the header; a test
// in device/soft checks the sizes against the C compiler's.

// Pipeline ops (hados_op opcodes).
const (
	OpPipeline  Opcode = 12 // Src = descriptor, Len = its size; Args: first row, end row, sink state
	OpAggCreate Opcode = 13 // Src = descriptor; Args[0] = byte budget; Args[1] bit 0: runs hint (hados_pipeline.h); Dst = where the state address goes
	OpAggMerge  Opcode = 14 // Dst = state, Src = state
	OpAggEmit   Opcode = 15 // Src = state, Dst = hados_agg_out
	OpAggFree   Opcode = 16 // Src = state
)

// PipelineVersion, PipelineMagic and the limits of hados_pipeline.h.
const (
	PipelineVersion = 1
	PipelineMagic   = 0x4C505948
	VectorSize      = 2048
	MaxRegisters    = 64
	MaxColumns      = 256
	MaxInsns        = 4096
	MaxAggKeys      = 16
	MaxAggs         = 64
)

// VType is a physical value type of registers and columns (HADOS_VT_*).
type VType uint8

const (
	VTBool VType = 1
	VTI32  VType = 2
	VTI64  VType = 3
	VTF64  VType = 4
	VTI128 VType = 5
	VTStr  VType = 6
)

var vtypeNames = [...]string{"", "bool", "i32", "i64", "f64", "i128", "str"}

func (v VType) String() string {
	if int(v) < len(vtypeNames) && v > 0 {
		return vtypeNames[v]
	}
	return fmt.Sprintf("vtype(%d)", uint8(v))
}

// Width is the byte width of a fixed-width value type (0 for strings).
func (v VType) Width() int {
	switch v {
	case VTBool:
		return 1
	case VTI32:
		return 4
	case VTI64, VTF64:
		return 8
	case VTI128:
		return 16
	}
	return 0
}

// Column flags (HADOS_COLF_*). A dictionary-encoded column (ColDict) has
// one code per row in Data (int32, or the width of one ColIdx* flag) and
// its dictionary in DictData (utf8: DictOffsets too) with DictLength
// entries; fixed-width dictionaries (VType I32, I64, F64, I128) and the
// narrow code widths are read by pipeline ops only.
const (
	ColDict   uint32 = 1
	ColLarge  uint32 = 2
	ColIdx8   uint32 = 4  // int8 codes
	ColIdxU8  uint32 = 8  // uint8 codes
	ColIdx16  uint32 = 16 // int16 codes
	ColIdxAny        = ColIdx8 | ColIdxU8 | ColIdx16
)

// Column is an Arrow-layout column in device memory (hados_column).
type Column struct {
	VType       VType
	Flags       uint32
	Length      uint64
	Offset      uint64
	NullCount   uint64
	Validity    Addr
	Data        Addr
	Offsets     Addr
	DictData    Addr
	DictOffsets Addr
	DictLength  uint64
	Capacity    uint64
}

// Const is a pipeline constant. Str holds a string constant's bytes.
type Const struct {
	VType VType
	Null  bool
	Lo    uint64
	Hi    uint64
	Str   []byte
}

// ConstI64 and friends build constants.
func ConstI64(v int64) Const   { return Const{VType: VTI64, Lo: uint64(v)} }
func ConstI32(v int32) Const   { return Const{VType: VTI32, Lo: uint64(int64(v))} }
func ConstF64(v float64) Const { return Const{VType: VTF64, Lo: math.Float64bits(v)} }
func ConstBool(v bool) Const {
	c := Const{VType: VTBool}
	if v {
		c.Lo = 1
	}
	return c
}
func ConstStr(s string) Const       { return Const{VType: VTStr, Str: []byte(s)} }
func ConstI128(lo, hi uint64) Const { return Const{VType: VTI128, Lo: lo, Hi: hi} }
func ConstNull(vt VType) Const      { return Const{VType: vt, Null: true} }

// Kernel is an instruction's kernel (HADOS_K_*).
type Kernel uint16

const (
	KNop          Kernel = 0
	KColumn       Kernel = 1
	KConst        Kernel = 2
	KEq           Kernel = 3
	KNe           Kernel = 4
	KLt           Kernel = 5
	KLe           Kernel = 6
	KGt           Kernel = 7
	KGe           Kernel = 8
	KEqNullSafe   Kernel = 9
	KAnd          Kernel = 10
	KOr           Kernel = 11
	KNot          Kernel = 12
	KIsNull       Kernel = 13
	KIsNotNull    Kernel = 14
	KIn           Kernel = 15
	KFilter       Kernel = 16
	KSelect       Kernel = 17
	KAdd          Kernel = 20
	KSub          Kernel = 21
	KMul          Kernel = 22
	KDiv          Kernel = 23
	KMod          Kernel = 24
	KNeg          Kernel = 25
	KDecAdd       Kernel = 26
	KDecSub       Kernel = 27
	KDecMul       Kernel = 28
	KDecDiv       Kernel = 29
	KDecMod       Kernel = 30
	KDecCheck     Kernel = 31
	KDecRescale   Kernel = 32
	KCastI32I64   Kernel = 40
	KCastI64I32   Kernel = 41
	KCastToF64    Kernel = 42
	KCastF64ToDec Kernel = 43
	KCastDecToInt Kernel = 44
	KCastIntToDec Kernel = 45
	KCastF64ToInt Kernel = 46
	KCastStrDate  Kernel = 47
	KCastDateStr  Kernel = 48
	KCastStrInt   Kernel = 49
	KCastStrF64   Kernel = 50
	KCastIntStr   Kernel = 51
	KCastStrDec   Kernel = 52
	KCastTSDate   Kernel = 53
	KCastDateTS   Kernel = 54
	KYear         Kernel = 60
	KMonth        Kernel = 61
	KDay          Kernel = 62
	KDateAdd      Kernel = 63
	KStartsWith   Kernel = 70
	KEndsWith     Kernel = 71
	KContains     Kernel = 72
	KLike         Kernel = 73
	KSubstr       Kernel = 74
	KLength       Kernel = 75
	kernelCount   Kernel = 76
)

// Instruction flags.
const (
	IfBConst uint8 = 1
	IfAConst uint8 = 2
)

// Insn is one instruction (hados_insn).
type Insn struct {
	Op         Kernel
	VType      VType
	Flags      uint8
	Dst        uint16
	A, B, C    uint16
	P1, P2, P3 int32
	Imm        uint64
}

// Sinks.
type Sink uint32

const (
	SinkCount   Sink = 1
	SinkProject Sink = 2
	SinkAgg     Sink = 3
)

// Aggregate functions and flags (HADOS_AGG_*, HADOS_AGGF_*).
const (
	AggSum   uint16 = 1
	AggCount uint16 = 2
	AggMin   uint16 = 3
	AggMax   uint16 = 4
	AggFirst uint16 = 5

	AggDecimal     uint16 = 1
	AggIgnoreNulls uint16 = 2
	AggMerge       uint16 = 4

	NoReg uint16 = 0xffff
)

// Agg is one aggregate of a SINK_AGG (hados_agg).
type Agg struct {
	Func, Flags uint16
	Arg, Arg2   uint16
	InVType     VType
	OutVType    VType
}

// AggSpec is a SINK_AGG's keys and aggregates (hados_agg_spec).
type AggSpec struct {
	KeyRegs   []uint16
	KeyVTypes []VType
	KeyMin    []int64  // optional dense domain, see the header
	KeyCard   []uint64 // 0: unknown
	Aggs      []Agg
}

// Pipeline is a fused pipeline before encoding.
type Pipeline struct {
	RegTypes []VType
	Columns  []Column
	Consts   []Const
	Insns    []Insn
	Sink     Sink
	Project  []uint16 // SinkProject: the registers written, in output column order
	Agg      *AggSpec // SinkAgg
}

// Encoded sizes of the header's structures.
const (
	SizeofPipelineHeader = 80
	SizeofColumn         = 88
	SizeofConst          = 24
	SizeofInsn           = 32
	SizeofAgg            = 16
	SizeofAggSpec        = 8 + 2*MaxAggKeys + 4*MaxAggKeys + 8*MaxAggKeys + 8*MaxAggKeys + SizeofAgg*MaxAggs
)

func align8(n int) int { return (n + 7) &^ 7 }

// Validate checks the limits and the register and constant references.
func (p *Pipeline) Validate() error {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("%w: pipeline: "+f, append([]any{ErrInvalid}, a...)...)
	}
	switch {
	case len(p.RegTypes) > MaxRegisters:
		return bad("%d registers, at most %d", len(p.RegTypes), MaxRegisters)
	case len(p.Columns) > MaxColumns:
		return bad("%d columns, at most %d", len(p.Columns), MaxColumns)
	case len(p.Insns) > MaxInsns:
		return bad("%d instructions, at most %d", len(p.Insns), MaxInsns)
	}
	reg := func(r uint16, what string, i int) error {
		if int(r) >= len(p.RegTypes) {
			return bad("instruction %d: %s register %d of %d", i, what, r, len(p.RegTypes))
		}
		return nil
	}
	for i, in := range p.Insns {
		if in.Op >= kernelCount {
			return bad("instruction %d: unknown kernel %d", i, in.Op)
		}
		if in.Op != KFilter && in.Op != KNop {
			if err := reg(in.Dst, "destination", i); err != nil {
				return err
			}
		}
	}
	switch p.Sink {
	case SinkCount:
	case SinkProject:
		for _, r := range p.Project {
			if err := reg(r, "projected", len(p.Insns)); err != nil {
				return err
			}
		}
	case SinkAgg:
		a := p.Agg
		if a == nil {
			return bad("aggregate sink without a spec")
		}
		if len(a.KeyRegs) > MaxAggKeys || len(a.Aggs) > MaxAggs || len(a.KeyVTypes) != len(a.KeyRegs) {
			return bad("aggregate spec with %d keys (%d types) and %d aggregates", len(a.KeyRegs), len(a.KeyVTypes), len(a.Aggs))
		}
		if (len(a.KeyMin) != 0 && len(a.KeyMin) != len(a.KeyRegs)) || (len(a.KeyCard) != 0 && len(a.KeyCard) != len(a.KeyRegs)) {
			return bad("aggregate key domain for %d of %d keys", len(a.KeyMin), len(a.KeyRegs))
		}
	default:
		return bad("unknown sink %d", p.Sink)
	}
	return nil
}

// Encode serialises the pipeline into the descriptor the device reads.
func (p *Pipeline) Encode() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	off := SizeofPipelineHeader
	regOff := off
	off = align8(off + len(p.RegTypes))
	colOff := off
	off += SizeofColumn * len(p.Columns)
	constOff := off
	off += SizeofConst * len(p.Consts)
	insnOff := off
	off += SizeofInsn * len(p.Insns)
	sinkOff := off
	switch p.Sink {
	case SinkProject:
		off = align8(off + 2 + 2*len(p.Project))
	case SinkAgg:
		off += SizeofAggSpec
	}
	strOff := off
	strLen := 0
	for _, c := range p.Consts {
		strLen += len(c.Str)
	}
	size := align8(off + strLen)
	if size > math.MaxUint32 {
		return nil, fmt.Errorf("%w: pipeline of %d bytes", ErrInvalid, size)
	}
	b := make([]byte, size)
	le := binary.LittleEndian
	for i, v := range []uint32{PipelineMagic, PipelineVersion, uint32(size), uint32(len(p.RegTypes)), uint32(regOff),
		uint32(len(p.Columns)), uint32(colOff), uint32(len(p.Consts)), uint32(constOff), uint32(len(p.Insns)),
		uint32(insnOff), uint32(p.Sink), uint32(sinkOff), uint32(strOff), uint32(strLen)} {
		le.PutUint32(b[4*i:], v)
	}
	for i, t := range p.RegTypes {
		b[regOff+i] = byte(t)
	}
	for i := range p.Columns {
		putColumn(b[colOff+SizeofColumn*i:], &p.Columns[i])
	}
	s := strOff
	for i, c := range p.Consts {
		e := b[constOff+SizeofConst*i:]
		le.PutUint32(e, uint32(c.VType))
		if c.Null {
			le.PutUint32(e[4:], 1)
		}
		lo, hi := c.Lo, c.Hi
		if c.VType == VTStr {
			lo, hi = uint64(s), uint64(len(c.Str))
			s += copy(b[s:], c.Str)
		}
		le.PutUint64(e[8:], lo)
		le.PutUint64(e[16:], hi)
	}
	for i, in := range p.Insns {
		e := b[insnOff+SizeofInsn*i:]
		le.PutUint16(e, uint16(in.Op))
		e[2], e[3] = byte(in.VType), in.Flags
		le.PutUint16(e[4:], in.Dst)
		le.PutUint16(e[6:], in.A)
		le.PutUint16(e[8:], in.B)
		le.PutUint16(e[10:], in.C)
		le.PutUint32(e[12:], uint32(in.P1))
		le.PutUint32(e[16:], uint32(in.P2))
		le.PutUint32(e[20:], uint32(in.P3))
		le.PutUint64(e[24:], in.Imm)
	}
	switch p.Sink {
	case SinkProject:
		le.PutUint16(b[sinkOff:], uint16(len(p.Project)))
		for i, r := range p.Project {
			le.PutUint16(b[sinkOff+2+2*i:], r)
		}
	case SinkAgg:
		putAggSpec(b[sinkOff:], p.Agg)
	}
	return b, nil
}

func putAggSpec(e []byte, a *AggSpec) {
	le := binary.LittleEndian
	le.PutUint32(e, uint32(len(a.KeyRegs)))
	le.PutUint32(e[4:], uint32(len(a.Aggs)))
	for i, r := range a.KeyRegs {
		le.PutUint16(e[8+2*i:], r)
		le.PutUint32(e[40+4*i:], uint32(a.KeyVTypes[i]))
	}
	for i, m := range a.KeyMin {
		le.PutUint64(e[104+8*i:], uint64(m))
	}
	for i, c := range a.KeyCard {
		le.PutUint64(e[232+8*i:], c)
	}
	for i, g := range a.Aggs {
		f := e[360+SizeofAgg*i:]
		le.PutUint16(f, g.Func)
		le.PutUint16(f[2:], g.Flags)
		le.PutUint16(f[4:], g.Arg)
		le.PutUint16(f[6:], g.Arg2)
		le.PutUint32(f[8:], uint32(g.InVType))
		le.PutUint32(f[12:], uint32(g.OutVType))
	}
}

func putColumn(e []byte, c *Column) {
	le := binary.LittleEndian
	le.PutUint32(e, uint32(c.VType))
	le.PutUint32(e[4:], c.Flags)
	for i, v := range []uint64{c.Length, c.Offset, c.NullCount, uint64(c.Validity), uint64(c.Data), uint64(c.Offsets),
		uint64(c.DictData), uint64(c.DictOffsets), c.DictLength, c.Capacity} {
		le.PutUint64(e[8+8*i:], v)
	}
}

// EncodeColumns serialises a hados_project_out / hados_agg_out: the output
// columns (buffers preallocated by the host) for capacity rows.
func EncodeColumns(cols []Column, capacity uint64) []byte {
	b := make([]byte, 16+SizeofColumn*len(cols))
	binary.LittleEndian.PutUint64(b, uint64(len(cols)))
	binary.LittleEndian.PutUint64(b[8:], capacity)
	for i := range cols {
		putColumn(b[16+SizeofColumn*i:], &cols[i])
	}
	return b
}
