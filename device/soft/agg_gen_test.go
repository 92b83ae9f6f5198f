package soft

// Random specs and vectors for the aggregation tests.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// aggCase describes a family of random inputs.
type aggCase struct {
	name     string
	keyVTs   []uint32 // nil: 1..4 keys of random types; empty: global aggregation
	card     int      // distinct values per key
	domain   bool     // give key_min/key_card for keys that allow it
	outOfDom float64  // rate of values outside the given domain
	nullRate float64  // of keys and aggregate inputs
	sel      bool     // vectors with a selection
	small    bool     // no huge integer inputs (sums cannot overflow)
	twins    bool     // sums that share their input register (withTwins)
	vectors  int
}

// aggTemplates is every aggregate form the state implements.
func aggTemplates() []hookAgg {
	aggs := []hookAgg{
		{Func: aggCount, Arg: noReg, Out: vtI64},
		{Func: aggCount, In: vtStr, Out: vtI64},
		{Func: aggCount, In: vtF64, Out: vtI64},
		{Func: aggCount, Flags: aggfMerge, In: vtI64, Out: vtI64},
		{Func: aggSum, In: vtI64, Out: vtI64},
		{Func: aggSum, In: vtI32, Out: vtI64},
		{Func: aggSum, In: vtF64, Out: vtF64},
		{Func: aggSum, Flags: aggfMerge, In: vtI64, Out: vtI64},
		{Func: aggSum, Flags: aggfDecimal, In: vtI64, Out: vtI64},
		{Func: aggSum, Flags: aggfDecimal, In: vtI64, Out: vtI128},
		{Func: aggSum, Flags: aggfDecimal, In: vtI128, Out: vtI128},
		{Func: aggSum, Flags: aggfDecimal | aggfMerge, In: vtI128, Out: vtI128},
		{Func: aggSum, Flags: aggfDecimal | aggfMerge, In: vtI64, Out: vtI64},
	}
	for _, vt := range []uint32{vtBool, vtI32, vtI64, vtF64, vtI128, vtStr} {
		aggs = append(aggs, hookAgg{Func: aggMin, In: vt, Out: vt}, hookAgg{Func: aggMax, In: vt, Out: vt},
			hookAgg{Func: aggFirst, In: vt, Out: vt})
	}
	for _, vt := range []uint32{vtI64, vtF64, vtStr} {
		aggs = append(aggs, hookAgg{Func: aggFirst, Flags: aggfIgnoreNulls, In: vt, Out: vt})
	}
	for _, vt := range []uint32{vtI64, vtStr} {
		aggs = append(aggs, hookAgg{Func: aggFirst, Flags: aggfMerge, In: vt, Out: vt})
	}
	for j := range aggs {
		if aggs[j].Arg != noReg {
			aggs[j].Arg = uint16(j % 60)
		}
		if aggs[j].Flags&aggfMerge != 0 {
			aggs[j].Arg2 = uint16(j%60 + 1)
		}
	}
	return aggs
}

// withTwins adds aggregates reading the register of an earlier sum (Q1
// sums a column for sum() and again for avg()): the state may compute such
// sums once per update, also for a buffer of another width.
func withTwins(aggs []hookAgg) []hookAgg {
	for _, j := range []int{4, 8, 9, 10} {
		aggs = append(aggs, aggs[j])
	}
	wide := aggs[9]
	wide.Arg = aggs[8].Arg
	return append(aggs, wide)
}

// needsArg2 says whether aggregate a reads a second (BOOL) register.
func needsArg2(a hookAgg) bool {
	return a.Flags&aggfMerge != 0 && (a.Func == aggFirst || a.Func == aggSum && a.Flags&aggfDecimal != 0)
}

type aggGen struct {
	rng    *rand.Rand
	c      aggCase
	spec   hookSpec
	pools  [][]aggVal
	strSet []string
}

var keyTypes = []uint32{vtBool, vtI32, vtI64, vtF64, vtI128, vtStr}

func newAggGen(c aggCase, seed uint64) *aggGen {
	g := &aggGen{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), c: c}
	keys := c.keyVTs
	if keys == nil {
		keys = make([]uint32, 1+g.rng.IntN(4))
		for k := range keys {
			keys[k] = keyTypes[g.rng.IntN(len(keyTypes))]
		}
	}
	g.spec.Keys = keys
	g.spec.KeyMin = make([]int64, len(keys))
	g.spec.KeyCard = make([]uint64, len(keys))
	for k, vt := range keys {
		pool, lo := g.keyPool(vt, max(c.card, 1))
		g.pools = append(g.pools, pool)
		if c.domain && vt != vtF64 && vt != vtI128 {
			g.spec.KeyMin[k], g.spec.KeyCard[k] = lo, uint64(len(pool))
		}
	}
	g.spec.Aggs = aggTemplates()
	if c.twins {
		g.spec.Aggs = withTwins(g.spec.Aggs)
	}
	return g
}

func (g *aggGen) str(maxLen int) string {
	b := make([]byte, g.rng.IntN(maxLen+1))
	for i := range b {
		b[i] = "abcz\x00\xff"[g.rng.IntN(6)]
	}
	return string(b)
}

// keyPool returns card distinct values of vt (fewer for BOOL) and, for
// integer keys, their minimum.
func (g *aggGen) keyPool(vt uint32, card int) ([]aggVal, int64) {
	var pool []aggVal
	switch vt {
	case vtBool:
		return []aggVal{{I: 0}, {I: 1}}[:min(card, 2)], 0
	case vtI32, vtI64:
		lo := int64(g.rng.IntN(2000) - 1000)
		if vt == vtI64 && !g.c.domain {
			lo = int64(g.rng.Uint64())
		}
		for i := range card {
			pool = append(pool, aggVal{I: lo + int64(i)})
		}
		return pool, lo
	case vtF64:
		special := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 1.5}
		for i := range card {
			if i < len(special) {
				pool = append(pool, aggVal{F: special[i]})
			} else {
				pool = append(pool, aggVal{F: g.rng.NormFloat64() * 1e6})
			}
		}
	case vtI128:
		for range card {
			pool = append(pool, aggVal{W: i128{Hi: int64(g.rng.Uint64()) >> g.rng.IntN(64), Lo: g.rng.Uint64()}})
		}
	case vtStr:
		seen := map[string]bool{}
		for len(pool) < card {
			s := g.str(3 + card/50)
			if g.rng.IntN(4) == 0 {
				s += g.str(20)
			}
			if !seen[s] {
				seen[s] = true
				pool = append(pool, aggVal{S: s})
			}
		}
	}
	return pool, 0
}

func (g *aggGen) keyVal(k int) aggVal {
	if g.rng.Float64() < g.c.nullRate {
		return aggVal{Null: true, I: int64(g.rng.Uint64())}
	}
	pool := g.pools[k]
	if g.c.outOfDom > 0 && g.rng.Float64() < g.c.outOfDom {
		switch g.spec.Keys[k] {
		case vtI32, vtI64:
			if g.rng.IntN(2) == 0 {
				return aggVal{I: pool[0].I - 1 - int64(g.rng.IntN(3))}
			}
			return aggVal{I: pool[len(pool)-1].I + 1 + int64(g.rng.IntN(3))}
		case vtStr:
			return aggVal{S: "out-of-domain-" + g.str(2)}
		}
	}
	return pool[g.rng.IntN(len(pool))]
}

func (g *aggGen) inputVal(vt uint32, a hookAgg) aggVal {
	if g.rng.Float64() < g.c.nullRate {
		return aggVal{Null: true, I: 12345}
	}
	big := g.rng.IntN(50) == 0 && !(g.c.small && (vt == vtI64 || vt == vtI128))
	switch vt {
	case vtBool:
		return aggVal{I: int64(g.rng.IntN(2))}
	case vtI32:
		if big {
			return aggVal{I: int64([]int32{math.MaxInt32, math.MinInt32}[g.rng.IntN(2)])}
		}
		return aggVal{I: int64(g.rng.IntN(2001) - 1000)}
	case vtI64:
		if a.Func == aggCount {
			return aggVal{I: int64(g.rng.IntN(100))}
		}
		if big {
			return aggVal{I: int64(g.rng.Uint64()) >> 1}
		}
		return aggVal{I: int64(g.rng.IntN(2_000_001) - 1_000_000)}
	case vtF64:
		if big {
			return aggVal{F: []float64{math.NaN(), math.Inf(1), math.Copysign(0, -1), 0}[g.rng.IntN(4)]}
		}
		return aggVal{F: float64(g.rng.IntN(2001)-1000) / 8}
	case vtI128:
		if big {
			return aggVal{W: i128{Hi: int64(g.rng.Uint64()) >> 2, Lo: g.rng.Uint64()}}
		}
		v := int64(g.rng.IntN(2_000_001) - 1_000_000)
		return aggVal{W: i128{Hi: v >> 63, Lo: uint64(v)}}
	case vtStr:
		return aggVal{S: g.str(12)}
	}
	panic("bad type")
}

// vector returns one vector: its registers, rows and selection.
func (g *aggGen) vector() (keys, args, args2 []hookCol, n int, sel []uint16) {
	switch g.rng.IntN(5) {
	case 0:
		n = 1
	case 1:
		n = 2048
	default:
		n = 1 + g.rng.IntN(2048)
	}
	intern := g.rng.IntN(2) == 0
	for k, vt := range g.spec.Keys {
		c := hookCol{VT: vt, Vals: make([]aggVal, n), Intern: intern}
		for i := range n {
			c.Vals[i] = g.keyVal(k)
		}
		keys = append(keys, c)
	}
	type regKey struct {
		arg uint16
		vt  uint32
	}
	shared := map[regKey]hookCol{} // one register read by several aggregates
	for _, a := range g.spec.Aggs {
		c := hookCol{}
		if a.Arg != noReg {
			if sc, ok := shared[regKey{a.Arg, a.In}]; ok && a.Flags&aggfMerge == 0 {
				c = sc
			} else {
				c = hookCol{VT: a.In, Vals: make([]aggVal, n)}
				for i := range n {
					c.Vals[i] = g.inputVal(a.In, a)
				}
				shared[regKey{a.Arg, a.In}] = c
			}
		}
		args = append(args, c)
		c2 := hookCol{}
		if needsArg2(a) {
			c2 = hookCol{VT: vtBool, Vals: make([]aggVal, n)}
			for i := range n {
				c2.Vals[i] = aggVal{I: int64(g.rng.IntN(2)), Null: g.rng.Float64() < g.c.nullRate/2}
			}
		}
		args2 = append(args2, c2)
	}
	if g.c.sel {
		sel = []uint16{}
		p := g.rng.Float64()
		for i := range n {
			if g.rng.Float64() < p {
				sel = append(sel, uint16(i))
			}
		}
	}
	return keys, args, args2, n, sel
}

// aggDev opens a device for a test and checks at the end that every byte
// of device memory was given back.
func aggDev(t testing.TB, mem uint64) *hookDev {
	t.Helper()
	d, err := hookOpen(mem)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	base := d.heapUsed()
	t.Cleanup(func() {
		if u := d.heapUsed(); u != base {
			t.Errorf("device heap: %d bytes in use after the test, %d before (leak)", u, base)
		}
		d.close()
	})
	return d
}

func mustCreate(t testing.TB, d *hookDev, spec hookSpec, budget uint64) *hookState {
	t.Helper()
	s, err := d.create(spec, budget)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return s
}

// strBytes is the string bytes each STR output column needs (the max).
func strBytes(cols []hookCol) uint64 {
	var most uint64
	for _, c := range cols {
		var n uint64
		for _, v := range c.Vals {
			if !v.Null {
				n += uint64(len(v.S))
			}
		}
		most = max(most, n)
	}
	return most
}

// checkEmit emits s and compares it with the reference.
func checkEmit(t testing.TB, s *hookState, ref *refState, skip func(col int) bool) {
	t.Helper()
	want := ref.columns()
	got, n, err := s.emit(outVTs(ref.spec), uint64(len(ref.groups)), strBytes(want))
	if err != nil {
		t.Fatalf("emit: %v", err)
	}
	if n != uint64(len(ref.groups)) {
		t.Fatalf("emit: %d groups, reference has %d", n, len(ref.groups))
	}
	for c := range want {
		if skip != nil && skip(c) {
			continue
		}
		for g := range want[c].Vals {
			if !sameVal(want[c].VT, want[c].Vals[g], got[c].Vals[g]) {
				t.Fatalf("column %d (%s) %s, group %d (keys %v): got %+v, want %+v", c, vtNames[want[c].VT],
					describeCol(ref.spec, c), g, ref.groups[g].keys, got[c].Vals[g], want[c].Vals[g])
			}
		}
	}
}

// describeCol names output column c of spec.
func describeCol(spec hookSpec, c int) string {
	if c < len(spec.Keys) {
		return fmt.Sprintf("key %d", c)
	}
	c -= len(spec.Keys)
	for j, a := range spec.Aggs {
		if c == 0 {
			return fmt.Sprintf("aggregate %d %+v", j, a)
		}
		c--
		if slices.Contains([]uint16{aggFirst}, a.Func) || a.Func == aggSum && a.Flags&aggfDecimal != 0 {
			if c == 0 {
				return fmt.Sprintf("aggregate %d %+v flag column", j, a)
			}
			c--
		}
	}
	return "?"
}
