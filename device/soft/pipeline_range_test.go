package soft_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hados-io/hados/device"
)

// The interpreter runs fused integer comparisons with a constant as range
// filters and merges two of them on one register in a row (BETWEEN, Q6's
// date range) into one pass. These cases chain two compare+FILTER pairs on
// one column (and, as a control, on two columns, which must not merge),
// with constants at the type's bounds, on either side, null constants,
// nulls in the column, dense vectors and selections, on every SIMD level,
// against plain Go evaluation.

type rangeCmp struct {
	op    device.Kernel
	c     int64
	left  bool // constant on the left: c op x
	null  bool // null constant
	other bool // compare the second column instead
}

// rangeHolds is c.op applied to x (constant side as in c); ok=false: null.
func rangeHolds(c rangeCmp, x int64) bool {
	a, b := x, c.c
	if c.left {
		a, b = b, a
	}
	switch c.op {
	case device.KEq:
		return a == b
	case device.KNe:
		return a != b
	case device.KLt:
		return a < b
	case device.KLe:
		return a <= b
	case device.KGt:
		return a > b
	}
	return a >= b
}

func runRangeCase(t *testing.T, e *env, vt device.VType, rows int, nullRate float64, lead bool, cmps []rangeCmp, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	e.reset()
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if vt == device.VTI32 {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	gen := func() val {
		if r.Float64() < nullRate {
			return nullV
		}
		switch r.IntN(6) {
		case 0:
			return val{i: pick(r, []int64{lo, lo + 1, hi - 1, hi, 0, -1, 1})}
		case 1:
			if vt == device.VTI32 {
				return val{i: int64(int32(r.Uint32()))}
			}
			return val{i: int64(r.Uint64())}
		}
		return val{i: int64(r.IntN(21)) - 10}
	}
	cols := make([][]val, 2)
	p := &device.Pipeline{Sink: device.SinkProject}
	for j := range cols {
		cols[j] = make([]val, rows)
		for i := range cols[j] {
			cols[j][i] = gen()
		}
		p.Columns = append(p.Columns, e.putColumn(vcol{vt: vt, vals: cols[j]}, colEnc{offset: int(seed % 3)}))
		p.RegTypes = append(p.RegTypes, vt)
		p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: vt, Dst: uint16(j), P1: int32(j)})
	}
	keep := make([]bool, rows)
	for i := range keep {
		keep[i] = true
	}
	if lead { // a FILTER in front, so the range filter runs on a selection
		fv := make([]val, rows)
		for i := range fv {
			keep[i] = r.IntN(3) > 0
			fv[i] = boolV(keep[i])
		}
		p.Columns = append(p.Columns, e.putColumn(vcol{vt: device.VTBool, vals: fv}, colEnc{}))
		p.RegTypes = append(p.RegTypes, device.VTBool)
		b := uint16(len(p.RegTypes) - 1)
		p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: device.VTBool, Dst: b, P1: int32(len(p.Columns) - 1)},
			device.Insn{Op: device.KFilter, A: b})
	}
	for _, c := range cmps {
		k := toConst(vt, val{i: c.c})
		if c.null {
			k = toConst(vt, nullV)
		}
		p.Consts = append(p.Consts, k)
		p.RegTypes = append(p.RegTypes, device.VTBool)
		d := uint16(len(p.RegTypes) - 1)
		in := device.Insn{Op: c.op, VType: vt, Dst: d}
		col := uint16(0)
		if c.other {
			col = 1
		}
		if c.left {
			in.Flags, in.A, in.B = device.IfAConst, uint16(len(p.Consts)-1), col
		} else {
			in.Flags, in.A, in.B = device.IfBConst, col, uint16(len(p.Consts)-1)
		}
		p.Insns = append(p.Insns, in, device.Insn{Op: device.KFilter, A: d})
	}
	p.Project = []uint16{0, 1}
	out, err := e.project(p, rows, 64)
	if err != nil {
		t.Fatalf("%v: %v", cmps, err)
	}
	var want []int
	for i := 0; i < rows; i++ {
		ok := keep[i]
		for _, c := range cmps {
			x := cols[0][i]
			if c.other {
				x = cols[1][i]
			}
			ok = ok && !c.null && !x.null && rangeHolds(c, x.i)
		}
		if ok {
			want = append(want, i)
		}
	}
	got := out[0].vals
	if len(got) != len(want) {
		t.Fatalf("%s %v rows %d lead %v: %d rows pass, want %d", vt, cmps, rows, lead, len(got), len(want))
	}
	for n, i := range want {
		if !sameVal(vt, got[n], cols[0][i]) || !sameVal(vt, out[1].vals[n], cols[1][i]) {
			t.Fatalf("%s %v: output row %d = (%v, %v), want input row %d (%v, %v)", vt, cmps, n, got[n], out[1].vals[n], i,
				cols[0][i], cols[1][i])
		}
	}
	checkRangeCount(t, e, p, rows, want, seed)
}

// checkRangeCount runs p's filters into a COUNT sink over a sub-range and
// into a global count(*) state over two ranges (without a lead FILTER both
// take the counting path: bit masks, no selection vector) and checks them
// against want, the rows that pass.
func checkRangeCount(t *testing.T, e *env, p *device.Pipeline, rows int, want []int, seed uint64) {
	t.Helper()
	cp := *p
	cp.Sink, cp.Project = device.SinkCount, nil
	rb, re := uint64(seed%5), uint64(rows)-uint64(seed%3)
	if rb > re {
		rb = re
	}
	n := uint64(0)
	for _, i := range want {
		if uint64(i) >= rb && uint64(i) < re {
			n++
		}
	}
	got, err := e.runPipeline(&cp, rb, re, 0)
	if err != nil || got != n {
		t.Fatalf("count sink, rows [%d, %d): %d, %v; want %d", rb, re, got, err, n)
	}
	ap := *p
	ap.Sink, ap.Project = device.SinkAgg, nil
	ap.Agg = &device.AggSpec{Aggs: []device.Agg{{Func: device.AggCount, Arg: device.NoReg, OutVType: device.VTI64}}}
	out := []device.Column{e.outColumn(device.VTI64, 1, 0)}
	mid := uint64(rows) / 3
	if g := aggRun(t, e, &ap, [][2]uint64{{0, mid}, {mid, uint64(rows)}}, out, 1); g != 1 {
		t.Fatalf("count(*) state: %d groups, want 1", g)
	}
	if c := e.readColumn(out[0], 1).vals[0]; c.null || c.i != int64(len(want)) {
		t.Fatalf("count(*) state: %v, want %d", c, len(want))
	}
}

func rangeCases(vt device.VType) [][]rangeCmp {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if vt == device.VTI32 {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	ops := []device.Kernel{device.KEq, device.KNe, device.KLt, device.KLe, device.KGt, device.KGe}
	var cs [][]rangeCmp
	for _, op := range ops {
		for _, c := range []int64{lo, hi, -3, 0, 4} {
			cs = append(cs, []rangeCmp{{op: op, c: c}}, []rangeCmp{{op: op, c: c, left: true}})
		}
		cs = append(cs, []rangeCmp{{op: op, null: true}}, []rangeCmp{{op: op, c: 2, left: true, null: true}})
	}
	// pairs: merged on one register, and on two (not merged)
	for _, a := range []rangeCmp{{op: device.KGe, c: -5}, {op: device.KGt, c: lo}, {op: device.KLe, c: -5, left: true},
		{op: device.KGt, c: hi}, {op: device.KEq, c: 3}, {op: device.KGe, c: 0, null: true}} {
		for _, b := range []rangeCmp{{op: device.KLt, c: 6}, {op: device.KLe, c: hi}, {op: device.KGt, c: 5, left: true},
			{op: device.KLt, c: lo}, {op: device.KNe, c: 3}, {op: device.KGe, c: -2}} {
			cs = append(cs, []rangeCmp{a, b})
			o := b
			o.other = true
			cs = append(cs, []rangeCmp{a, o})
		}
	}
	// three on one register: the first two merge, the third runs alone
	cs = append(cs, []rangeCmp{{op: device.KGe, c: -8}, {op: device.KLt, c: 8}, {op: device.KNe, c: 0}},
		[]rangeCmp{{op: device.KGe, c: -8}, {op: device.KLt, c: 8}, {op: device.KLe, c: 2}})
	return cs
}

func TestPipelineRangeFilter(t *testing.T) {
	for _, simd := range []string{"scalar", "avx2", "avx512"} {
		e := newEnv(t, "soft:memory=32MiB,mode=host-visible,simd="+simd, 8<<20)
		seed := uint64(1)
		for _, vt := range []device.VType{device.VTI32, device.VTI64} {
			t.Run(fmt.Sprintf("%s/%s", simd, vt), func(t *testing.T) {
				for _, cmps := range rangeCases(vt) {
					for _, c := range []struct {
						rows  int
						nulls float64
						lead  bool
					}{{2100, 0, false}, {2100, 0.1, false}, {37, 0, false}, {2100, 0, true}, {17000, 0.1, false}} {
						seed++
						runRangeCase(t, e, vt, c.rows, c.nulls, c.lead, cmps, seed)
					}
				}
			})
		}
	}
}
