package device

import (
	"fmt"
	"time"
)

// Opcode names an op of a device program (hados_driver.h, enum hados_opcode).
type Opcode uint32

const (
	OpNop          Opcode = 0
	OpCopyH2D      Opcode = 1  // Dst device ← Host
	OpCopyD2H      Opcode = 2  // Host ← Src device
	OpCopyD2D      Opcode = 3  // Dst ← Src, both device
	OpFill         Opcode = 4  // Dst, Len; Args[0] = 64-bit pattern
	OpChecksum     Opcode = 5  // Src, Len; result = checksum (see soft.Checksum)
	OpCompare      Opcode = 6  // Dst vs Src, Len; ErrMismatch with result = first differing offset
	OpPatternWrite Opcode = 7  // Dst, Len; Args[0] = Pattern, Args[1] = seed
	OpPatternCheck Opcode = 8  // Src, Len; as written; result = first bad offset
	OpCompress     Opcode = 9  // Dst ← codec(Src); Len; Args[0] = Codec, Args[1] = Dst capacity
	OpDecompress   Opcode = 10 // Dst ← decodec(Src); Len compressed; Args[0] = Codec, Args[1] = Dst capacity
	OpSleep        Opcode = 11 // Args[0] = nanoseconds
)

var opcodeNames = [...]string{"nop", "copy_h2d", "copy_d2h", "copy_d2d", "fill", "checksum", "compare",
	"pattern_write", "pattern_check", "compress", "decompress", "sleep",
	"pipeline", "agg_create", "agg_merge", "agg_emit", "agg_free", // hados_pipeline.h
	"sort", "merge", "gather", "join_build", "join_probe", "join_free", // hados_relational.h
	"join_cond"} // hados_joincond.h

func (o Opcode) String() string {
	if int(o) < len(opcodeNames) {
		return opcodeNames[o]
	}
	return fmt.Sprintf("opcode(%d)", uint32(o))
}

// Op flags.
const (
	// FlagLenFromPrev makes an op use the previous op's result as its length
	// (a D2H copy of what a compress op produced).
	FlagLenFromPrev uint32 = 1
)

// Pattern kinds of OpPatternWrite / OpPatternCheck.
const (
	PatternWalkingOnes uint64 = 0
	PatternRandom      uint64 = 1
	PatternAddress     uint64 = 2
)

// Codec identifies a block compression format of OpCompress / OpDecompress.
type Codec uint64

const (
	CodecNone   Codec = 0
	CodecLZ4    Codec = 1
	CodecSnappy Codec = 2
)

func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecLZ4:
		return "lz4"
	case CodecSnappy:
		return "snappy"
	}
	return fmt.Sprintf("codec(%d)", uint64(c))
}

// ParseCodec parses "none", "lz4" or "snappy".
func ParseCodec(s string) (Codec, error) {
	switch s {
	case "", "none":
		return CodecNone, nil
	case "lz4":
		return CodecLZ4, nil
	case "snappy":
		return CodecSnappy, nil
	}
	return CodecNone, fmt.Errorf("%w: codec %q: want none, lz4 or snappy", ErrInvalid, s)
}

// Op is one step of a device program. For OpCopyH2D the source and for
// OpCopyD2H the destination is Host (Len bytes of it); every other address is
// a device address.
type Op struct {
	Code  Opcode
	Flags uint32
	Dst   Addr
	Src   Addr
	Len   uint64
	Args  [4]uint64
	Host  []byte
}

// Program is an ordered list of ops executed on one engine core. Tag is
// returned in the program's Completion.
type Program struct {
	Ops []Op
	Tag uint64
}

// Completion reports a finished program.
type Completion struct {
	Tag      uint64
	Err      error    // nil, or the first failing op's error (wrapping a sentinel)
	FailedOp int      // index of that op, len(Ops) if none failed
	Results  []uint64 // one result per op (bytes copied, checksum, compressed size…)
	Queued   time.Duration
	Exec     time.Duration
}
