package soft

// Few-group sums (fold_few and its dense AVX-512 pass, few_dense) against
// the reference: 1–9 groups, dense and sparse selections, nulls, vector
// lengths that are not multiples of 8 or 64, and inputs on both sides of
// the bounds the fast paths rely on (|x| < 2^51 for I64, I128 values that
// fit 64 bits or not, high words near 2^114), plus decimal overflow to
// null of I64 and I128 buffers.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// fewRegime draws the inputs of one register of one vector.
type fewRegime int

const (
	fewSmall  fewRegime = iota // |x| <= 10^6
	fewEdge51                  // around ±2^51 (the dense path's bound)
	fewFits64                  // any int64 (I128: fits its low word)
	fewHuge                    // I128: high words up to and past 2^50; I64: near ±2^62
	fewRegimes
)

func fewInput(rng *rand.Rand, vt uint32, reg fewRegime, nullRate float64) aggVal {
	if rng.Float64() < nullRate {
		return aggVal{Null: true, I: 777, W: i128{Hi: 1 << 60, Lo: 1}}
	}
	var x int64
	hi := int64(0)
	switch reg {
	case fewSmall:
		x = int64(rng.IntN(2_000_001) - 1_000_000)
	case fewEdge51:
		x = []int64{1<<51 - 1, -1 << 51, 1 << 51, -1<<51 - 1, 1<<51 - 2, 0}[rng.IntN(6)]
	case fewFits64:
		x = int64(rng.Uint64())
		if rng.IntN(8) == 0 {
			x = []int64{math.MaxInt64, math.MinInt64}[rng.IntN(2)]
		}
	case fewHuge:
		if vt == vtI64 {
			x = []int64{1 << 62, -1 << 62, math.MaxInt64 / 3}[rng.IntN(3)]
		} else {
			x = int64(rng.Uint64())
			hi = []int64{1<<50 - 1, -1 << 50, 1 << 50, -1<<50 - 1, 1 << 61, -1 << 62}[rng.IntN(6)]
		}
	}
	switch vt {
	case vtI32:
		return aggVal{I: int64(int32(x))}
	case vtI64:
		return aggVal{I: x}
	}
	if reg != fewHuge {
		hi = x >> 63
	}
	return aggVal{W: i128{Hi: hi, Lo: uint64(x)}}
}

func TestAggFewGroupSums(t *testing.T) {
	d := aggDev(t, testMem)
	aggs := []hookAgg{
		{Func: aggCount, Arg: noReg, Out: vtI64},
		{Func: aggCount, In: vtI64, Arg: 1, Out: vtI64},
		{Func: aggSum, In: vtI64, Arg: 1, Out: vtI64},
		{Func: aggSum, In: vtI32, Arg: 2, Out: vtI64},
		{Func: aggSum, Flags: aggfDecimal, In: vtI64, Arg: 3, Out: vtI64},
		{Func: aggSum, Flags: aggfDecimal, In: vtI64, Arg: 4, Out: vtI128},
		{Func: aggSum, Flags: aggfDecimal, In: vtI128, Arg: 5, Out: vtI128},
		{Func: aggSum, Flags: aggfDecimal, In: vtI128, Arg: 6, Out: vtI128},
		{Func: aggSum, Flags: aggfDecimal, In: vtI64, Arg: 3, Out: vtI64},   // twin of 4 (avg)
		{Func: aggSum, Flags: aggfDecimal, In: vtI128, Arg: 5, Out: vtI128}, // twin of 6
		{Func: aggSum, Flags: aggfDecimal, In: vtI64, Arg: 3, Out: vtI128},  // the register of 4, a wide buffer
	}
	spec := hookSpec{Keys: []uint32{vtI32}, Aggs: aggs}
	for _, ng := range []int{1, 2, 3, 4, 5, 8, 9} {
		for _, nullRate := range []float64{0, 0.1, 1} {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("groups%d/nulls%g/seed%d", ng, nullRate, seed), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(seed, uint64(ng)*131+uint64(nullRate*10)))
					s := mustCreate(t, d, spec, 0)
					defer s.free()
					ref := newRef(spec)
					for v := range 12 {
						n := []int{2048, 2047, 69, 8, 1 + rng.IntN(2048)}[rng.IntN(5)]
						key := hookCol{VT: vtI32, Vals: make([]aggVal, n)}
						run := rng.IntN(3) == 0 // long runs of one group, as Q1's sorted input has
						g := 0
						for i := range n {
							if !run || rng.IntN(50) == 0 {
								g = rng.IntN(ng)
							}
							key.Vals[i] = aggVal{I: int64(g)}
						}
						regs := map[uint16]hookCol{}
						args := make([]hookCol, len(aggs))
						for j, a := range aggs {
							if a.Arg == noReg {
								continue
							}
							c, ok := regs[a.Arg]
							if !ok {
								reg := fewRegime(rng.IntN(int(fewRegimes)))
								if rng.IntN(2) == 0 {
									reg = fewSmall
								}
								c = hookCol{VT: a.In, Vals: make([]aggVal, n)}
								for i := range n {
									r := reg
									if reg != fewSmall && rng.IntN(4) != 0 {
										r = fewSmall // mostly small, some edge values
									}
									c.Vals[i] = fewInput(rng, a.In, r, nullRate)
								}
								regs[a.Arg] = c
							}
							args[j] = c
						}
						var sel []uint16
						switch rng.IntN(4) {
						case 1: // dense: the dense path takes >= 3/4 of the rows
							p := 0.75 + 0.25*rng.Float64()
							sel = []uint16{}
							for i := range n {
								if rng.Float64() < p {
									sel = append(sel, uint16(i))
								}
							}
						case 2: // sparse
							sel = []uint16{}
							for i := range n {
								if rng.IntN(3) == 0 {
									sel = append(sel, uint16(i))
								}
							}
						}
						if err := s.update([]hookCol{key}, args, nil, n, sel); err != nil {
							t.Fatalf("vector %d: update: %v", v, err)
						}
						ref.update([]hookCol{key}, args, nil, n, sel)
					}
					checkEmit(t, s, ref, nil)
				})
			}
		}
	}
}

// A selection that names rows twice (and out of order) folds each entry,
// as row by row does; the dense pass, which marks rows, must not take it.
func TestAggFewGroupSumsRepeatedRows(t *testing.T) {
	d := aggDev(t, testMem)
	spec := hookSpec{Keys: []uint32{vtI32}, Aggs: []hookAgg{
		{Func: aggCount, Arg: noReg, Out: vtI64},
		{Func: aggSum, In: vtI64, Arg: 1, Out: vtI64},
		{Func: aggSum, Flags: aggfDecimal, In: vtI128, Arg: 2, Out: vtI128},
	}}
	s := mustCreate(t, d, spec, 0)
	defer s.free()
	ref := newRef(spec)
	const n = 200
	key := hookCol{VT: vtI32, Vals: make([]aggVal, n)}
	a := hookCol{VT: vtI64, Vals: make([]aggVal, n)}
	w := hookCol{VT: vtI128, Vals: make([]aggVal, n)}
	for i := range n {
		key.Vals[i] = aggVal{I: int64(i % 3)}
		a.Vals[i] = aggVal{I: int64(i * 7)}
		w.Vals[i] = aggVal{W: i128{Lo: uint64(i * 11)}}
	}
	sel := []uint16{}
	for i := n - 1; i >= 0; i-- { // at most n entries, as the state requires
		if i%10 == 5 {
			continue
		}
		sel = append(sel, uint16(i))
		if i%10 == 0 {
			sel = append(sel, uint16(i))
		}
	}
	args := []hookCol{{}, a, w}
	if err := s.update([]hookCol{key}, args, nil, n, sel); err != nil {
		t.Fatal(err)
	}
	ref.update([]hookCol{key}, args, nil, n, sel)
	checkEmit(t, s, ref, nil)
}
