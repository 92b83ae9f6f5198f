package soft_test

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/hados-io/hados/device"
)

// TestPipelineOneByteStringsRead: a column of one-byte strings loads as
// its bytes with one view (soft_reg.str1_lazy); a kernel reading the
// register (EQ with a constant) and the project sink still see every
// row's string. Plain and dictionary layouts, Arrow offsets 0 and 3, no
// nulls and nulls whose rows keep a byte (so the vector stays one-byte),
// behind a filter that drops some rows, against a Go reference.
func TestPipelineOneByteStringsRead(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 16<<20)
	const n = 7000
	for _, enc := range []colEnc{{}, {offset: 3}, {dict: true, codes: 2}, {dict: true, offset: 3}} {
		for _, nullRate := range []float64{0, 0.1} {
			e.reset()
			r := rand.New(rand.NewPCG(uint64(enc.offset), uint64(nullRate*100)))
			sc := vcol{vt: device.VTStr, vals: make([]val, n)}
			for i := range sc.vals {
				sc.vals[i] = val{s: string("ABC"[r.IntN(3)]), null: r.Float64() < nullRate}
			}
			vals := randI64Col(r, n, 0, 1000)
			p := &device.Pipeline{
				RegTypes: []device.VType{device.VTI64, device.VTBool, device.VTStr, device.VTBool},
				Columns:  []device.Column{e.putColumn(vals, colEnc{}), e.putColumn(sc, enc)},
				Consts:   []device.Const{device.ConstI64(-300), device.ConstStr("B")},
				Insns: []device.Insn{
					{Op: device.KColumn, VType: device.VTI64, Dst: 0, P1: 0},
					{Op: device.KGt, VType: device.VTI64, Flags: device.IfBConst, Dst: 1, A: 0, B: 0},
					{Op: device.KFilter, A: 1},
					{Op: device.KColumn, VType: device.VTStr, Dst: 2, P1: 1},
					{Op: device.KEq, VType: device.VTStr, Flags: device.IfBConst, Dst: 3, A: 2, B: 1},
				},
				Sink:    device.SinkProject,
				Project: []uint16{2, 3},
			}
			out, err := e.project(p, n, n)
			if err != nil {
				t.Fatalf("%+v nulls %v: %v", enc, nullRate, err)
			}
			k := 0
			for i := 0; i < n; i++ {
				if vals.vals[i].i <= -300 {
					continue
				}
				ws, wb := val{s: sc.vals[i].s}, boolV(sc.vals[i].s == "B")
				if sc.vals[i].null {
					ws, wb = nullV, nullV
				}
				if k >= len(out[0].vals) {
					t.Fatalf("%+v nulls %v: %d rows, want more", enc, nullRate, k)
				}
				if !sameVal(device.VTStr, out[0].vals[k], ws) || !sameVal(device.VTBool, out[1].vals[k], wb) {
					t.Fatalf("%+v nulls %v: output row %d (input %d): %v %v, want %v %v", enc, nullRate, k, i, out[0].vals[k], out[1].vals[k], ws, wb)
				}
				k++
			}
			if k != len(out[0].vals) {
				t.Fatalf("%+v nulls %v: %d rows, want %d", enc, nullRate, len(out[0].vals), k)
			}
		}
	}
}

// TestPipelineStringOffsetsPerVector: a plain string column's offsets are
// checked as each vector loads them (offsets_lazy). A decrease in a later
// vector is an error naming the entry, as the check at bind gave; a
// vector no row of which reaches the load is not read; offsets that rise
// above the range's last one in a loaded vector (the decrease lying in a
// vector never loaded) are an error naming the first decrease.
func TestPipelineStringOffsetsPerVector(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 16<<20)
	const n = 10000 // vectors [0, 2048), ..., [8192, 10000)
	le := binary.LittleEndian
	for _, tc := range []struct {
		name string
		skip []int               // vectors whose rows the filter drops
		mut  func(offs []uint32) // breaks the offsets
		msg  string              // "" = no error
	}{
		{"good", nil, func([]uint32) {}, ""},
		{"decrease in vector 2", nil, func(o []uint32) { o[5000] = o[4999] - 1 }, "string offsets decrease at entry 5000"},
		{"decrease in a skipped vector", []int{2}, func(o []uint32) { o[5000] = o[4999] - 1 }, ""},
		{"above the end", []int{4}, func(o []uint32) {
			for i := 6144; i <= 8193; i++ {
				o[i] += 1 << 20
			}
		}, "string offsets decrease at entry 8194"},
	} {
		e.reset()
		offs := make([]uint32, n+1)
		data := make([]byte, 0, 3*n)
		for i := 0; i < n; i++ {
			data = append(data, "xyz"[:1+i%3]...)
			offs[i+1] = uint32(len(data))
		}
		tc.mut(offs)
		ob := make([]byte, 4*(n+1))
		for i, o := range offs {
			le.PutUint32(ob[4*i:], o)
		}
		sc := device.Column{VType: device.VTStr, Length: n, Offsets: e.put(ob), Data: e.put(append(data, 0))}
		vals := vcol{vt: device.VTI64, vals: make([]val, n)}
		want := 0
		for i := range vals.vals {
			vals.vals[i] = val{i: 1}
			for _, s := range tc.skip {
				if i/2048 == s {
					vals.vals[i] = val{i: -1}
				}
			}
			if vals.vals[i].i > 0 {
				want++
			}
		}
		p := &device.Pipeline{
			RegTypes: []device.VType{device.VTI64, device.VTBool, device.VTStr, device.VTI32},
			Columns:  []device.Column{e.putColumn(vals, colEnc{}), sc},
			Consts:   []device.Const{device.ConstI64(0)},
			Insns: []device.Insn{
				{Op: device.KColumn, VType: device.VTI64, Dst: 0, P1: 0},
				{Op: device.KGt, VType: device.VTI64, Flags: device.IfBConst, Dst: 1, A: 0, B: 0},
				{Op: device.KFilter, A: 1},
				{Op: device.KColumn, VType: device.VTStr, Dst: 2, P1: 1},
				{Op: device.KLength, VType: device.VTI32, Dst: 3, A: 2},
			},
			Sink: device.SinkCount,
		}
		got, err := e.runPipeline(p, 0, n, 0)
		if tc.msg == "" {
			if err != nil || got != uint64(want) {
				t.Errorf("%s: %d rows, %v; want %d", tc.name, got, err, want)
			}
			continue
		}
		if !errIs(err, device.ErrInvalid, tc.msg) || !errIs(err, device.ErrInvalid, "column 1") {
			t.Errorf("%s: %v, want an error naming column 1 and %q", tc.name, err, tc.msg)
		}
	}
}
