package soft_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// Malformed descriptors: every field the interpreter decodes, mutated in a
// valid encoded descriptor, must give a clear error (never a crash), and a
// fuzz target mutates descriptors at random.

const errRows = 100

// errBase builds a valid pipeline over errRows rows: I64 > const, FILTER,
// a utf8 column with LIKE, a dictionary column, projected.
func errBase(e *env) (*device.Pipeline, device.Addr) {
	i64 := vcol{vt: device.VTI64}
	str := vcol{vt: device.VTStr}
	for i := 0; i < errRows; i++ {
		i64.vals = append(i64.vals, val{i: int64(i)})
		str.vals = append(str.vals, val{s: strings.Repeat("ab", i%4)})
	}
	p := &device.Pipeline{
		RegTypes: []device.VType{device.VTI64, device.VTBool, device.VTStr, device.VTBool, device.VTStr},
		Columns:  []device.Column{e.putColumn(i64, colEnc{}), e.putColumn(str, colEnc{}), e.putColumn(str, colEnc{dict: true})},
		Consts:   []device.Const{device.ConstI64(10), device.ConstStr("a%")},
		Insns: []device.Insn{
			{Op: device.KColumn, VType: device.VTI64, Dst: 0, P1: 0},
			{Op: device.KGt, VType: device.VTI64, Flags: device.IfBConst, Dst: 1, A: 0, B: 0},
			{Op: device.KFilter, A: 1},
			{Op: device.KColumn, VType: device.VTStr, Dst: 2, P1: 1},
			{Op: device.KLike, VType: device.VTStr, Flags: device.IfBConst, Dst: 3, A: 2, B: 1},
			{Op: device.KColumn, VType: device.VTStr, Dst: 4, P1: 2},
		},
		Sink:    device.SinkProject,
		Project: []uint16{0, 2, 4},
	}
	var cols []device.Column
	for _, r := range p.Project {
		cols = append(cols, e.outColumn(p.RegTypes[r], errRows, 64*errRows))
	}
	return p, e.put(device.EncodeColumns(cols, errRows))
}

// Field offsets of the encoded header, instructions and columns.
const (
	hSize, hNRegs, hColOff, hConstOff, hNInsns, hInsnOff, hSink, hSinkOff = 8, 12, 24, 32, 36, 40, 44, 48
	iOp, iVType, iFlags, iDst, iA, iB, iP1                                = 0, 2, 3, 4, 6, 8, 12
	cVType, cLength, cData, cOffsets, cDictLen                            = 0, 8, 40, 48, 72
)

func TestPipelineMalformed(t *testing.T) {
	e := newEnv(t, "soft:memory=16MiB,mode=host-visible", 4<<20)
	p, out := errBase(e)
	base, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := e.runDescriptor(base, 0, errRows, out); err != nil || n != errRows-11 {
		t.Fatalf("base pipeline: %d rows, %v", n, err)
	}
	le := binary.LittleEndian
	insn := func(i int) int { return int(le.Uint32(base[hInsnOff:])) + 32*i }
	col := func(j int) int { return int(le.Uint32(base[hColOff:])) + 88*j }
	p32 := func(off int, v uint32) func([]byte) { return func(b []byte) { le.PutUint32(b[off:], v) } }
	p16 := func(off int, v uint16) func([]byte) { return func(b []byte) { le.PutUint16(b[off:], v) } }
	p64 := func(off int, v uint64) func([]byte) { return func(b []byte) { le.PutUint64(b[off:], v) } }
	p8 := func(off int, v byte) func([]byte) { return func(b []byte) { b[off] = v } }
	// Decreasing string offsets and an out-of-range dictionary code, in
	// columns of their own.
	badOffs := make([]byte, 4*(errRows+1))
	for i := 0; i <= errRows; i++ {
		le.PutUint32(badOffs[4*i:], uint32(i))
	}
	le.PutUint32(badOffs[4*50:], 3)
	badOffsAddr := e.put(badOffs)
	codes := make([]byte, 4*errRows)
	le.PutUint32(codes[4*60:], 99)
	codesAddr := e.put(codes)
	var golden strings.Builder
	for _, tc := range []struct {
		name   string
		mut    func([]byte)
		rb, re uint64
		want   error
		msg    string
	}{
		{"magic", p32(0, 0x1234), 0, errRows, device.ErrInvalid, "bad magic"},
		{"version", p32(4, 2), 0, errRows, device.ErrInvalid, "unsupported version 2"},
		{"size", p32(hSize, 1<<20), 0, errRows, device.ErrInvalid, "size field"},
		{"n_regs", p32(hNRegs, 65), 0, errRows, device.ErrInvalid, "n_regs 65"},
		{"columns_off", p32(hColOff, 1<<16), 0, errRows, device.ErrInvalid, "columns section"},
		{"consts_off", p32(hConstOff, 81), 0, errRows, device.ErrInvalid, "not 8-byte aligned"},
		{"n_insns", p32(hNInsns, 5000), 0, errRows, device.ErrInvalid, "n_insns 5000"},
		{"kernel", p16(insn(1)+iOp, 18), 0, errRows, device.ErrInvalid, "instruction 1 (k18): unknown kernel 18"},
		{"dst", p16(insn(1)+iDst, 40), 0, errRows, device.ErrInvalid, "destination register 40"},
		{"dst type", p16(insn(1)+iDst, 0), 0, errRows, device.ErrInvalid, "destination register 0 is I64"},
		{"read before write", p16(insn(1)+iA, 2), 0, errRows, device.ErrInvalid, "reads register 2 before"},
		{"operand type", p8(insn(1)+iVType, 4), 0, errRows, device.ErrInvalid, "operand a register 0 is I64, the kernel needs F64"},
		{"const index", p16(insn(1)+iB, 9), 0, errRows, device.ErrInvalid, "constant operand b = 9"},
		{"flags", p8(insn(1)+iFlags, 0x81), 0, errRows, device.ErrInvalid, "unknown flags 0x81"},
		{"column index", p32(insn(0)+iP1, 7), 0, errRows, device.ErrInvalid, "column 7"},
		{"like const", p8(insn(4)+iFlags, 0), 0, errRows, device.ErrInvalid, "must be a constant"},
		{"column vtype", p32(col(0)+cVType, 9), 0, errRows, device.ErrInvalid, "column 0 has unknown value type 9"},
		{"column data", p64(col(0)+cData, 0x7fffffffffff0000), 0, errRows, device.ErrFault, "column 0: values: [0x7fffffffffff0000, +800) is outside device memory"},
		{"column length", p64(col(0)+cLength, 50), 0, errRows, device.ErrInvalid, "beyond its length 50"},
		{"string offsets", p64(col(1)+cOffsets, uint64(badOffsAddr)), 0, errRows, device.ErrInvalid, "offsets decrease at entry 50"},
		{"dict codes", p64(col(2)+cData, uint64(codesAddr)), 0, errRows, device.ErrInvalid, "dictionary code 99"},
		{"dict length", p64(col(2)+cDictLen, 1<<40), 0, errRows, device.ErrInvalid, "dictionary of"},
		{"sink", p32(hSink, 9), 0, errRows, device.ErrInvalid, "unknown sink 9"},
		{"sink off", p32(hSinkOff, 1<<20), 0, errRows, device.ErrInvalid, "project sink section"},
		{"reversed rows", nil, 50, 10, device.ErrInvalid, "reversed"},
		{"rows beyond", nil, 0, errRows + 1, device.ErrInvalid, "beyond its length"},
		{"agg state", p32(hSink, 3), 0, errRows, device.ErrInvalid, "aggregation"},
	} {
		b := append([]byte(nil), base...)
		if tc.mut != nil {
			tc.mut(b)
		}
		_, err := e.runDescriptor(b, tc.rb, tc.re, out)
		if !errIs(err, tc.want, tc.msg) {
			t.Errorf("%s: %v, want %v mentioning %q", tc.name, err, tc.want, tc.msg)
		}
		if err != nil {
			fmt.Fprintf(&golden, "%s: %v\n", tc.name, err)
		}
	}
	checkGolden(t, "pipeline_malformed.golden", golden.String())
	// A project sink whose projected register is never written.
	p.Project = []uint16{3, 1}
	p.RegTypes = append(p.RegTypes, device.VTI32)
	p.Project = []uint16{5}
	if _, err := e.runPipeline(p, 0, errRows, out); !errIs(err, device.ErrInvalid, "which no instruction writes") {
		t.Errorf("unwritten projection: %v", err)
	}
	// A descriptor outside device memory.
	c := run(t, e.q, device.Op{Code: device.OpPipeline, Src: 1 << 50, Len: 80})
	if !errors.Is(c.Err, device.ErrFault) {
		t.Errorf("descriptor outside memory: %v", c.Err)
	}
}

// FuzzPipelineDescriptor runs mutated descriptors over real columns: any
// error is fine, a crash or hang is not.
func FuzzPipelineDescriptor(f *testing.F) {
	e := newEnv(f, "soft:memory=16MiB,mode=host-visible", 8<<20)
	p, out := errBase(e)
	seed, err := p.Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed, uint8(0))
	f.Add(seed, uint8(0x80|50))
	p.Sink, p.Project = device.SinkCount, nil
	if seed, err = p.Encode(); err != nil {
		f.Fatal(err)
	}
	f.Add(seed, uint8(0x80|3))
	// dictionary columns of fixed-width values with narrow codes, one
	// filtered on its codes (a range filter), one gathered and projected
	p, _ = errBase(e)
	i64 := vcol{vt: device.VTI64}
	for i := 0; i < errRows; i++ {
		i64.vals = append(i64.vals, val{i: int64(i % 7)})
	}
	p.Columns = append(p.Columns, e.putColumn(i64, colEnc{fixed: true, codes: 1}), e.putColumn(i64, colEnc{fixed: true, codes: 3, offset: 2}))
	p.RegTypes = append(p.RegTypes, device.VTI64, device.VTBool)
	p.Consts = append(p.Consts, device.ConstI64(2))
	p.Insns = append(p.Insns,
		device.Insn{Op: device.KColumn, VType: device.VTI64, Dst: 5, P1: 3},
		device.Insn{Op: device.KGe, VType: device.VTI64, Flags: device.IfBConst, Dst: 6, A: 5, B: 2},
		device.Insn{Op: device.KFilter, A: 6},
		device.Insn{Op: device.KColumn, VType: device.VTI64, Dst: 0, P1: 4})
	if seed, err = p.Encode(); err != nil {
		f.Fatal(err)
	}
	f.Add(seed, uint8(0x80|50))
	f.Add(seed, uint8(0))
	// predicates on a string dictionary column that nothing else reads
	// (run on the dictionary; the column only checks its codes), one
	// fused with its FILTER, one into a register no one reads
	p, _ = errBase(e)
	p.RegTypes = append(p.RegTypes, device.VTStr, device.VTBool, device.VTBool)
	p.Consts = append(p.Consts, device.ConstStr("ab"), device.ConstStr(""))
	p.Insns = append(p.Insns,
		device.Insn{Op: device.KColumn, VType: device.VTStr, Dst: 5, P1: 2},
		device.Insn{Op: device.KIn, VType: device.VTStr, Dst: 6, A: 5, P1: 2, P2: 2},
		device.Insn{Op: device.KFilter, A: 6},
		device.Insn{Op: device.KNe, VType: device.VTStr, Flags: device.IfBConst, Dst: 7, A: 5, B: 3})
	if seed, err = p.Encode(); err != nil {
		f.Fatal(err)
	}
	f.Add(seed, uint8(0x80|50))
	f.Add(seed, uint8(0))
	mark := e.next
	f.Fuzz(func(t *testing.T, desc []byte, rows uint8) {
		if len(desc) > 1<<16 {
			return
		}
		e.t = t
		e.next = mark
		if rows&0x80 != 0 && len(desc) >= device.SizeofPipelineHeader {
			// keep the header's identity valid so mutations reach the sections
			desc = append([]byte(nil), desc...)
			binary.LittleEndian.PutUint32(desc, device.PipelineMagic)
			binary.LittleEndian.PutUint32(desc[4:], device.PipelineVersion)
			binary.LittleEndian.PutUint32(desc[8:], uint32(len(desc)))
		}
		_, _ = e.runDescriptor(desc, 0, uint64(rows&0x7f)%(errRows+2), out)
	})
}

// checkGolden compares got with testdata/name; HADOS_UPDATE_GOLDEN=1
// rewrites the file.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("HADOS_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with HADOS_UPDATE_GOLDEN=1 to create it)", err)
	}
	if string(want) != got {
		t.Errorf("messages differ from %s (HADOS_UPDATE_GOLDEN=1 rewrites it):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
