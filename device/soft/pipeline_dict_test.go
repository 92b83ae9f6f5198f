package soft_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hados-io/hados/device"
)

// Dictionary-encoded input columns (COLF_DICT with int32 / int8 / uint8 /
// int16 codes, of every fixed-width type and of utf8): the pipeline's
// COLUMN load gathers the values, so every result must be that of the same
// column stored plain. The differential reference is the Go values the
// column was built from.

var dictTypes = []device.VType{device.VTI32, device.VTI64, device.VTF64, device.VTI128, device.VTStr}

// dictValues draws n rows from a pool of card values of vt, nullRate null.
func dictValues(r *rand.Rand, vt device.VType, n, card int, nullRate float64) []val {
	g := defaultGen(vt)
	if vt == device.VTStr && card <= 7 { // one-byte strings (the interpreter lays them out in row order)
		g = genPool("A", "B", "C", "D", "E", "F", "G", "H")
	}
	pool := make([]val, card)
	for i := range pool {
		pool[i] = g(r)
	}
	vals := make([]val, n)
	for i := range vals {
		if r.Float64() < nullRate {
			vals[i] = nullV
		} else {
			vals[i] = pool[r.IntN(card)]
		}
	}
	return vals
}

// TestPipelineDictColumns: a dictionary column loaded after a FILTER
// (sparse or dense selection: the gather takes the selected rows or all),
// projected, against the plain values; sliced columns, nulls, every code
// width, dictionaries too large for narrow codes (int32 codes then).
func TestPipelineDictColumns(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		e := newEnv(t, "soft:memory=64MiB,mode="+mode, 32<<20)
		for _, vt := range dictTypes {
			for codes := 0; codes < 4; codes++ {
				for ci, card := range []int{1, 7, 200, 1000} {
					for _, keepOf10 := range []int{1, 9, 10} {
						name := fmt.Sprintf("%s/%s/codes%d/card%d/keep%d", mode, vt, codes, card, keepOf10)
						seed := uint64(codes*1000 + ci*10 + keepOf10)
						r := rand.New(rand.NewPCG(seed, uint64(vt)))
						rows := []int{1, 7, 2048, 5000}[(codes+ci)%4]
						nullRate := []float64{0, 0.1, 1}[(codes+keepOf10)%3]
						e.reset()
						vals := dictValues(r, vt, rows, card, nullRate)
						keep := make([]val, rows)
						for i := range keep {
							keep[i] = boolV(r.IntN(10) < keepOf10)
						}
						p := &device.Pipeline{
							RegTypes: []device.VType{device.VTBool, vt},
							Columns: []device.Column{
								e.putColumn(vcol{vt: device.VTBool, vals: keep}, colEnc{offset: codes}),
								e.putColumn(vcol{vt: vt, vals: vals}, colEnc{dict: true, fixed: true, codes: codes, offset: (ci + codes) % 5}),
							},
							Insns: []device.Insn{
								{Op: device.KColumn, VType: device.VTBool, Dst: 0, P1: 0},
								{Op: device.KFilter, A: 0},
								{Op: device.KColumn, VType: vt, Dst: 1, P1: 1},
							},
							Sink:    device.SinkProject,
							Project: []uint16{1},
						}
						out, err := e.project(p, rows, 64*rows+64)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						got, k := out[0].vals, 0
						for i := 0; i < rows; i++ {
							if keep[i].i == 0 {
								continue
							}
							if k >= len(got) {
								t.Fatalf("%s: %d rows out, want more", name, len(got))
							}
							if !sameVal(vt, got[k], vals[i]) {
								t.Fatalf("%s: row %d: got %v, want %v", name, i, got[k], vals[i])
							}
							k++
						}
						if k != len(got) {
							t.Fatalf("%s: %d rows out, want %d", name, len(got), k)
						}
					}
				}
			}
		}
	}
}

// TestPipelineDictRangeCount: a range filter on a dictionary column
// feeding a row count (the shape of the counting path, which reads plain
// columns only: a dictionary column must go through the vector loop).
func TestPipelineDictRangeCount(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 32<<20)
	for codes := 0; codes < 4; codes++ {
		for _, vt := range []device.VType{device.VTI32, device.VTI64} {
			e.reset()
			r := rand.New(rand.NewPCG(uint64(codes), 9))
			const rows = 10000
			vals := make([]val, rows)
			want := uint64(0)
			for i := range vals {
				if r.IntN(10) == 0 {
					vals[i] = nullV
					continue
				}
				vals[i] = val{i: int64(r.IntN(11))}
				if vals[i].i >= 5 && vals[i].i <= 7 {
					want++
				}
			}
			cst := device.ConstI64
			if vt == device.VTI32 {
				cst = func(v int64) device.Const { return device.ConstI32(int32(v)) }
			}
			p := &device.Pipeline{
				RegTypes: []device.VType{vt, device.VTBool, device.VTBool},
				Columns:  []device.Column{e.putColumn(vcol{vt: vt, vals: vals}, colEnc{fixed: true, codes: codes, offset: 2})},
				Consts:   []device.Const{cst(5), cst(7)},
				Insns: []device.Insn{
					{Op: device.KColumn, VType: vt, Dst: 0, P1: 0},
					{Op: device.KGe, VType: vt, Flags: device.IfBConst, Dst: 1, A: 0, B: 0},
					{Op: device.KFilter, A: 1},
					{Op: device.KLe, VType: vt, Flags: device.IfBConst, Dst: 2, A: 0, B: 1},
					{Op: device.KFilter, A: 2},
				},
				Sink: device.SinkCount,
			}
			got, err := e.runPipeline(p, 0, rows, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("codes %d %s: count %d, want %d", codes, vt, got, want)
			}
			// after a FILTER (a selection), the register also projected
			// (gathered), the range from the left: 5 <= x, x < 8
			keep := make([]val, rows)
			for i := range keep {
				keep[i] = boolV(i%3 != 0)
			}
			p.Columns = append(p.Columns, e.putColumn(vcol{vt: device.VTBool, vals: keep}, colEnc{offset: 1}))
			p.Consts = append(p.Consts, cst(8))
			p.RegTypes = append(p.RegTypes, device.VTBool)
			p.Insns = []device.Insn{
				{Op: device.KColumn, VType: device.VTBool, Dst: 3, P1: 1},
				{Op: device.KFilter, A: 3},
				{Op: device.KColumn, VType: vt, Dst: 0, P1: 0},
				{Op: device.KLe, VType: vt, Flags: device.IfAConst, Dst: 1, A: 0, B: 0},
				{Op: device.KFilter, A: 1},
				{Op: device.KLt, VType: vt, Flags: device.IfBConst, Dst: 2, A: 0, B: 2},
				{Op: device.KFilter, A: 2},
			}
			p.Sink, p.Project = device.SinkProject, []uint16{0}
			out, err := e.project(p, rows, 64)
			if err != nil {
				t.Fatal(err)
			}
			var wantv []int64
			for i, v := range vals {
				if i%3 != 0 && !v.null && v.i >= 5 && v.i < 8 {
					wantv = append(wantv, v.i)
				}
			}
			if len(out[0].vals) != len(wantv) {
				t.Fatalf("codes %d %s: %d rows projected, want %d", codes, vt, len(out[0].vals), len(wantv))
			}
			for k, w := range wantv {
				if out[0].vals[k].null || out[0].vals[k].i != w {
					t.Fatalf("codes %d %s: row %d: %v, want %d", codes, vt, k, out[0].vals[k], w)
				}
			}
		}
	}
}

// TestPipelineDictBadCodes: a valid row whose code lies outside the
// dictionary is E_INVALID naming the column and row (never a read outside
// the dictionary); the same code under a null row is ignored; malformed
// dictionary descriptors are E_INVALID / E_FAULT.
func TestPipelineDictBadCodes(t *testing.T) {
	e := newEnv(t, "soft:memory=16MiB,mode=host-visible", 4<<20)
	for _, vt := range dictTypes {
		for codes := 0; codes < 4; codes++ {
			e.reset()
			vals := make([]val, 300)
			for i := range vals {
				vals[i] = defaultGen(vt)(rand.New(rand.NewPCG(uint64(i%3), 1)))
			}
			vals[250] = nullV
			col := e.putColumn(vcol{vt: vt, vals: vals}, colEnc{dict: true, fixed: true, codes: codes})
			p := &device.Pipeline{
				RegTypes: []device.VType{vt},
				Columns:  []device.Column{col},
				Insns:    []device.Insn{{Op: device.KColumn, VType: vt, Dst: 0, P1: 0}},
				Sink:     device.SinkProject,
				Project:  []uint16{0},
			}
			if _, err := e.project(p, 300, 64*300); err != nil {
				t.Fatalf("%s codes %d: %v", vt, codes, err)
			}
			// the dictionary shrinks below the codes in use: row 1 (the
			// first with code 1) is out of range
			p.Columns[0].DictLength = 1
			if _, err := e.project(p, 300, 64*300); !errIs(err, device.ErrInvalid, "column 0 row 1: dictionary code 1 outside [0, 1)") {
				t.Errorf("%s codes %d: code out of range: %v", vt, codes, err)
			}
			// a count that only loads the column checks its codes too
			cp := *p
			cp.Sink, cp.Project = device.SinkCount, nil
			if _, err := e.runPipeline(&cp, 0, 300, 0); !errIs(err, device.ErrInvalid, "column 0 row 1: dictionary code 1 outside [0, 1)") {
				t.Errorf("%s codes %d: count over a code out of range: %v", vt, codes, err)
			}
			p.Columns[0].DictLength = 0
			if _, err := e.project(p, 300, 64*300); !errIs(err, device.ErrInvalid, "row 0: dictionary code 0 outside [0, 0)") {
				t.Errorf("%s codes %d: empty dictionary: %v", vt, codes, err)
			}
			// only the null row 250 reads past a one-entry dictionary
			p.Columns[0].DictLength = 3
			p.Columns[0].Offset, p.Columns[0].Length = 250, 1
			if _, err := e.project(p, 1, 64); err != nil {
				t.Errorf("%s codes %d: a null row's code must not be read: %v", vt, codes, err)
			}
			p.Columns[0].Offset, p.Columns[0].Length = 0, 300
		}
	}
	// negative codes (int8 0xff is -1; as uint8 it is 255)
	e.reset()
	vals := make([]val, 10)
	for i := range vals {
		vals[i] = val{i: int64(i)}
	}
	col := e.putColumn(vcol{vt: device.VTI64, vals: vals}, colEnc{fixed: true, codes: 1})
	e.write(col.Data+3, []byte{0xff})
	p := &device.Pipeline{
		RegTypes: []device.VType{device.VTI64},
		Columns:  []device.Column{col},
		Insns:    []device.Insn{{Op: device.KColumn, VType: device.VTI64, Dst: 0, P1: 0}},
		Sink:     device.SinkProject,
		Project:  []uint16{0},
	}
	if _, err := e.project(p, 10, 64); !errIs(err, device.ErrInvalid, "row 3: dictionary code -1 outside [0, 10)") {
		t.Errorf("negative int8 code: %v", err)
	}
	p.Columns[0].Flags = device.ColDict | device.ColIdxU8
	if _, err := e.project(p, 10, 64); !errIs(err, device.ErrInvalid, "row 3: dictionary code 255 outside [0, 10)") {
		t.Errorf("uint8 code 255: %v", err)
	}
	for _, c := range []struct {
		flags uint32
		vt    device.VType
		want  string
	}{
		{device.ColDict | device.ColIdx8 | device.ColIdx16, device.VTI64, "one code width flag"},
		{device.ColIdx8, device.VTI64, "flags 0x4 on a I64 column"},
		{device.ColDict | device.ColLarge, device.VTI64, "flags 0x3 on a I64 column"},
		{device.ColDict, device.VTBool, "flags 0x1 on a BOOL column"},
		{64, device.VTI64, "unknown flags 0x40"},
	} {
		q := *p
		q.Columns = []device.Column{col}
		q.Columns[0].Flags, q.Columns[0].VType = c.flags, c.vt
		q.RegTypes = []device.VType{c.vt}
		q.Insns = []device.Insn{{Op: device.KColumn, VType: c.vt, Dst: 0, P1: 0}}
		if _, err := e.project(&q, 10, 64); !errIs(err, device.ErrInvalid, c.want) {
			t.Errorf("flags 0x%x on %s: %v (want %q)", c.flags, c.vt, err, c.want)
		}
	}
	q := *p
	q.Columns = []device.Column{col}
	q.Columns[0].Flags = device.ColDict | device.ColIdx8
	q.Columns[0].DictData = 1 << 50
	if _, err := e.project(&q, 10, 64); !errIs(err, device.ErrFault, "dictionary values") {
		t.Errorf("dictionary outside memory: %v", err)
	}
}
