package soft_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hados-io/hados/device"
)

// Narrow decimal registers: an I128 result that provably fits 64 bits for a
// vector is kept as int64 storage (soft_reg.narrow) and widened only for a
// consumer that reads 128 bits. These tests chain producers (DEC_MUL,
// DEC_ADD/SUB, DEC_RESCALE into I128), narrow-aware consumers (the decimal
// kernels and DEC_CHECK, with either or both operands narrow, a register
// multiplied by itself, a register overwritten by its own product) and
// consumers that need the widening (a comparison, SINK_PROJECT, SINK_AGG), and
// compare every register with the big-integer reference on random data with
// nulls, filters keeping about half or ~90% of the rows (the interpreter's
// dense mode), and rare values around 2^31, 2^63 and sqrt(2^63) that send
// a vector to the 128-bit path.

// genPrice makes Q1-like unscaled decimals (|x| < 10^7) with rare extremes.
func genPrice(extremes []int64) gen {
	return func(r *rand.Rand) val {
		if r.IntN(3000) == 0 {
			return val{i: pick(r, extremes)}
		}
		return val{i: r.Int64N(20_000_001) - 10_000_000}
	}
}

// genFactor makes Q1's (1 - discount), (1 + tax) (0..110) with rare extremes.
func genFactor(extremes []int64) gen {
	return func(r *rand.Rand) val {
		if r.IntN(3000) == 0 {
			return val{i: pick(r, extremes)}
		}
		return val{i: r.Int64N(111)}
	}
}

var narrowExtremes = []int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1 << 31, -(1 << 31), 1 << 40, -(1 << 40),
	3037000499, -3037000499, 3037000500, -3037000500, 1<<62 - 1, -(1 << 62)}

// narrowChain is the instruction chain over columns a, b, c (I64 registers
// 0, 1, 2) and a BOOL filter (register 3); refs computes the registers the
// chain writes, in order, from a row's a, b, c.
type narrowStep struct {
	in   device.Insn
	args []int // registers read, for the reference
	ref  func([]val) val
}

func narrowSteps() []narrowStep {
	I64, I128 := device.VTI64, device.VTI128
	dec := func(op device.Kernel, vt device.VType, dst, a, b uint16, p1 int32, ta, tb device.VType, imm uint64) narrowStep {
		in := device.Insn{Op: op, VType: vt, Dst: dst, A: a, B: b, P1: p1, P2: int32(ta), P3: int32(tb), Imm: imm}
		args := []int{int(a), int(b)}
		if op == device.KDecCheck || op == device.KDecRescale {
			args = args[:1]
		}
		return narrowStep{in: in, args: args, ref: refDec(in)}
	}
	gt := device.Insn{Op: device.KGt, VType: I128, Dst: 13, A: 5, B: 9}
	return []narrowStep{
		dec(device.KDecMul, I128, 4, 0, 1, 0, I64, I64, 0),             // a * b: narrow producer
		dec(device.KDecMul, I128, 5, 4, 2, 0, I128, I64, 0),            // (a * b) * c: narrow operand and result
		dec(device.KDecAdd, I128, 6, 5, 4, 0, I128, I128, 1),           // both operands narrow, rescaled
		dec(device.KDecCheck, I128, 14, 5, 0, 38, 0, 0, 0),             // 38 digits of a narrow register: a narrow copy
		dec(device.KDecCheck, I128, 15, 4, 0, 19, 0, 0, 0),             // 19 digits: still a copy (every int64 fits)
		dec(device.KDecCheck, I128, 7, 5, 0, 12, 0, 0, 0),              // 12 digits: read narrow, written in 128 bits
		dec(device.KDecRescale, I64, 8, 6, 0, -2, I128, 0, 0),          // narrow to I64, rounding
		dec(device.KDecMul, I128, 9, 4, 4, 3, I128, I128, 0),           // a register times itself, rounding
		dec(device.KDecSub, I128, 10, 0, 2, 0, I64, I64, 2),            // DEC_SUB into I128: narrow producer
		dec(device.KDecRescale, I128, 11, 1, 0, 5, I64, 0, 0),          // I64 -> I128 rescale: narrow producer
		dec(device.KDecMul, I128, 12, 11, 10, 0, I128, I128, 0),        // both narrow
		{in: gt, args: []int{5, 9}, ref: refCompare(device.KGt, I128)}, // comparison: widened
		dec(device.KDecMul, I128, 4, 4, 1, 0, I128, I64, 0),            // r4 = r4 * b: dst is its own operand
	}
}

// narrowPipeline builds the chain over the columns (sink set by the caller).
func narrowPipeline(e *env, cols [4]vcol, seed uint64) *device.Pipeline {
	p := &device.Pipeline{}
	for j, c := range cols {
		enc := colEnc{offset: int(seed % 3)}
		if c.vt != device.VTBool && seed%3 == 1 {
			enc.fixed, enc.codes = true, 0 // dictionary-encoded, int32 codes
		}
		p.Columns = append(p.Columns, e.putColumn(c, enc))
		p.RegTypes = append(p.RegTypes, c.vt)
		p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: c.vt, Dst: uint16(j), P1: int32(j)})
	}
	p.Insns = append(p.Insns, device.Insn{Op: device.KFilter, A: 3})
	// registers 4..15
	p.RegTypes = append(p.RegTypes, device.VTI128, device.VTI128, device.VTI128, device.VTI128, device.VTI64, device.VTI128,
		device.VTI128, device.VTI128, device.VTI128, device.VTBool, device.VTI128, device.VTI128)
	for _, s := range narrowSteps() {
		p.Insns = append(p.Insns, s.in)
	}
	return p
}

// narrowInputs makes a, b, c and the filter for n rows; keep reports the
// rows the filter keeps.
func narrowInputs(r *rand.Rand, n int, nullRate float64, keepOf10 int, ext []int64) (cols [4]vcol, keep []bool) {
	gens := []gen{genPrice(ext), genFactor(ext), genFactor(ext)}
	for j := 0; j < 3; j++ {
		cols[j] = vcol{vt: device.VTI64, vals: make([]val, n)}
		for i := range cols[j].vals {
			if r.Float64() < nullRate {
				cols[j].vals[i] = nullV
			} else {
				cols[j].vals[i] = gens[j](r)
			}
		}
	}
	cols[3] = vcol{vt: device.VTBool, vals: make([]val, n)}
	keep = make([]bool, n)
	for i := range keep {
		keep[i] = r.IntN(10) < keepOf10
		cols[3].vals[i] = boolV(keep[i])
	}
	return cols, keep
}

// narrowRef runs the reference chain over row i: the value of every register.
func narrowRef(cols [4]vcol, i int) []val {
	regs := make([]val, 16)
	for j := 0; j < 3; j++ {
		regs[j] = cols[j].vals[i]
	}
	for _, s := range narrowSteps() {
		args := make([]val, len(s.args))
		for k, a := range s.args {
			args[k] = regs[a]
		}
		regs[s.in.Dst] = s.ref(args)
	}
	return regs
}

var narrowProj = []uint16{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

func TestPipelineNarrowDecimals(t *testing.T) {
	for _, simd := range []string{"scalar", "avx2", "avx512"} {
		e := newEnv(t, "soft:memory=64MiB,mode=host-visible,simd="+simd, 32<<20)
		seed := uint64(7)
		for _, rows := range []int{1, 7, 2048, 5000} {
			for _, nr := range []float64{0, 0.1, 1} {
				for _, keepOf10 := range []int{5, 9, 10} {
					seed++
					name := fmt.Sprintf("%s/rows=%d/nulls=%v/keep=%d", simd, rows, nr, keepOf10)
					r := rand.New(rand.NewPCG(seed, 99))
					cols, keep := narrowInputs(r, rows, nr, keepOf10, narrowExtremes)
					e.reset()
					p := narrowPipeline(e, cols, seed)
					p.Sink = device.SinkProject
					p.Project = narrowProj
					out, err := e.project(p, rows, 64)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					n, bad := 0, 0
					for i := 0; i < rows; i++ {
						if !keep[i] {
							continue
						}
						want := narrowRef(cols, i)
						for j, reg := range narrowProj {
							if n >= len(out[j].vals) {
								t.Fatalf("%s: %d rows out, want more", name, len(out[j].vals))
							}
							if got := out[j].vals[n]; !sameVal(p.RegTypes[reg], got, want[reg]) {
								if bad++; bad <= 5 {
									t.Errorf("%s: row %d register %d (a %v b %v c %v): got %v, want %v", name, i, reg,
										cols[0].vals[i], cols[1].vals[i], cols[2].vals[i], got, want[reg])
								}
							}
						}
						n++
					}
					if n != len(out[0].vals) {
						t.Errorf("%s: %d rows out, want %d", name, len(out[0].vals), n)
					}
				}
			}
		}
	}
}

// TestPipelineNarrowAgg sums narrow registers in SINK_AGG against
// big-integer sums: one group, four (the aggregation's dense few-group
// path, which reads narrow registers as int64 storage; nine sums, more
// than its cache holds, one register summed twice) and 70 (the row paths,
// which get them widened), with a MIN, a MAX and a COUNT of narrow
// registers too (widened before any path reads them).
func TestPipelineNarrowAgg(t *testing.T) {
	// extremes whose sums stay far below 10^38: some vectors still fail
	// the 64-bit bound and take the 128-bit path
	ext := []int64{1 << 31, -(1 << 31), 1 << 40, -(1 << 40), 3037000500, -3037000500}
	for _, simd := range []string{"scalar", "avx2", "avx512"} {
		e := newEnv(t, "soft:memory=64MiB,mode=host-visible,simd="+simd, 32<<20)
		for seed, keepOf10 := range []int{5, 9, 10, 5, 9, 10, 9} {
			ng := []int{4, 4, 4, 1, 1, 70, 70}[seed]
			r := rand.New(rand.NewPCG(uint64(seed), 3))
			const n = 9000
			cols, keep := narrowInputs(r, n, 0.05, keepOf10, ext)
			e.reset()
			p := narrowPipeline(e, cols, uint64(seed))
			keys := vcol{vt: device.VTI32, vals: make([]val, n)}
			for i := range keys.vals {
				keys.vals[i] = val{i: int64(r.IntN(ng))}
			}
			p.Columns = append(p.Columns, e.putColumn(keys, colEnc{}))
			p.RegTypes = append(p.RegTypes, device.VTI32)
			p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: device.VTI32, Dst: 16, P1: int32(len(p.Columns) - 1)})
			p.Sink = device.SinkAgg
			summed := []uint16{4, 5, 6, 9, 10, 11, 12, 14, 4}
			spec := &device.AggSpec{KeyRegs: []uint16{16}, KeyVTypes: []device.VType{device.VTI32}}
			cols2 := []device.Column{e.outColumn(device.VTI32, 80, 0)}
			for _, reg := range summed {
				spec.Aggs = append(spec.Aggs, device.Agg{Func: device.AggSum, Flags: device.AggDecimal, Arg: reg,
					InVType: device.VTI128, OutVType: device.VTI128})
				cols2 = append(cols2, e.outColumn(device.VTI128, 80, 0), e.outColumn(device.VTBool, 80, 0))
			}
			// min(register 4), max(register 9), count(register 10)
			spec.Aggs = append(spec.Aggs, device.Agg{Func: device.AggMin, Arg: 4, Arg2: device.NoReg, InVType: device.VTI128, OutVType: device.VTI128},
				device.Agg{Func: device.AggMax, Arg: 9, Arg2: device.NoReg, InVType: device.VTI128, OutVType: device.VTI128},
				device.Agg{Func: device.AggCount, Arg: 10, Arg2: device.NoReg, InVType: device.VTI128, OutVType: device.VTI64})
			cols2 = append(cols2, e.outColumn(device.VTI128, 80, 0), e.outColumn(device.VTI128, 80, 0), e.outColumn(device.VTI64, 80, 0))
			p.Agg = spec
			mins, maxs, counts := map[int64]*big.Int{}, map[int64]*big.Int{}, map[int64]int64{}
			var order []int64
			sums := map[int64][]*big.Int{}
			for i := 0; i < n; i++ {
				if !keep[i] {
					continue
				}
				k := keys.vals[i].i
				if sums[k] == nil {
					order = append(order, k)
					sums[k] = make([]*big.Int, len(summed))
					for j := range sums[k] {
						sums[k][j] = new(big.Int)
					}
				}
				want := narrowRef(cols, i)
				for j, reg := range summed {
					if w := want[reg]; !w.null {
						sums[k][j].Add(sums[k][j], bigOf(w, device.VTI128))
					}
				}
				if w := want[4]; !w.null && (mins[k] == nil || bigOf(w, device.VTI128).Cmp(mins[k]) < 0) {
					mins[k] = bigOf(w, device.VTI128)
				}
				if w := want[9]; !w.null && (maxs[k] == nil || bigOf(w, device.VTI128).Cmp(maxs[k]) > 0) {
					maxs[k] = bigOf(w, device.VTI128)
				}
				if !want[10].null {
					counts[k]++
				}
			}
			g := aggRun(t, e, p, [][2]uint64{{0, 3000}, {3000, 3001}, {3001, n}}, cols2, 80)
			if int(g) != len(order) {
				t.Fatalf("%s keep %d: %d groups, want %d", simd, keepOf10, g, len(order))
			}
			ks := e.readColumn(cols2[0], int(g))
			for gi, k := range order {
				if ks.vals[gi].i != k {
					t.Fatalf("%s keep %d: group %d key %v, want %d", simd, keepOf10, gi, ks.vals[gi], k)
				}
				for j, reg := range summed {
					got := e.readColumn(cols2[1+2*j], int(g)).vals[gi]
					if got.null || got.x.Cmp(sums[k][j]) != 0 {
						t.Errorf("%s keep %d: group %d sum of register %d: got %v, want %v", simd, keepOf10, k, reg, got, sums[k][j])
					}
				}
				nc := len(cols2)
				for j, want := range []*big.Int{mins[k], maxs[k]} {
					got := e.readColumn(cols2[nc-3+j], int(g)).vals[gi]
					if got.null != (want == nil) || want != nil && got.x.Cmp(want) != 0 {
						t.Errorf("%s keep %d: group %d %s: got %v, want %v", simd, keepOf10, k, []string{"min", "max"}[j], got, want)
					}
				}
				if got := e.readColumn(cols2[nc-1], int(g)).vals[gi]; got.null || got.i != counts[k] {
					t.Errorf("%s keep %d: group %d count: got %v, want %d", simd, keepOf10, k, got, counts[k])
				}
			}
		}
	}
}

// TestPipelineNarrowBoundary runs the chain on one-row vectors whose
// operands sit on the 64-bit bound (products just below and above 2^63,
// magnitudes of 31, 32 and 62 bits, the int64 extremes): the bound check
// alone decides, per vector, between the narrow and the 128-bit path.
func TestPipelineNarrowBoundary(t *testing.T) {
	vs := []int64{0, 1, -1, 110, 3037000499, -3037000499, 3037000500, -3037000500, 1 << 31, -(1 << 31), 1<<31 - 1, 1<<32 - 1,
		1 << 32, math.MaxInt64, math.MinInt64, 1 << 62, -(1 << 62), 1<<62 - 1,
		46116860184273, 46116860184274, -92233720368548, 92233720368548} // around 2^62 / 10^5 and 2^63 / 10^5 (DEC_RESCALE by 10^5)
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 32<<20)
	for ai, a := range vs {
		for bi, b := range vs {
			c := vs[(ai+bi)%len(vs)]
			var cols [4]vcol
			for j, x := range []int64{a, b, c} {
				cols[j] = vcol{vt: device.VTI64, vals: []val{{i: x}}}
			}
			cols[3] = vcol{vt: device.VTBool, vals: []val{boolV(true)}}
			e.reset()
			p := narrowPipeline(e, cols, 0)
			p.Sink = device.SinkProject
			p.Project = narrowProj
			out, err := e.project(p, 1, 64)
			if err != nil {
				t.Fatalf("a %d b %d c %d: %v", a, b, c, err)
			}
			want := narrowRef(cols, 0)
			for j, reg := range narrowProj {
				if got := out[j].vals[0]; !sameVal(p.RegTypes[reg], got, want[reg]) {
					t.Errorf("a %d b %d c %d: register %d: got %v, want %v", a, b, c, reg, got, want[reg])
				}
			}
		}
	}
}
