package soft

import (
	"math/rand/v2"
	"testing"
	"time"
)

const benchRows = 6_000_000

// q1Spec is TPC-H Q1's partial aggregation: group by l_returnflag,
// l_linestatus (dictionary strings, 3 x 2 values, perfect hashing) of
// sum(qty), sum(price), sum(disc_price), sum(charge), avg(qty), avg(price),
// avg(disc), count(*): 8 aggregates, 11 Spark buffers, decimal sums in
// I128.
func q1Spec() hookSpec {
	dec := func(arg uint16, in uint32) hookAgg {
		return hookAgg{Func: aggSum, Flags: aggfDecimal, Arg: arg, In: in, Out: vtI128}
	}
	cnt := func(arg uint16) hookAgg { return hookAgg{Func: aggCount, Arg: arg, In: vtI64, Out: vtI64} }
	return hookSpec{
		Keys:    []uint32{vtStr, vtStr},
		KeyMin:  []int64{0, 0},
		KeyCard: []uint64{3, 2},
		Aggs: []hookAgg{
			dec(2, vtI64), dec(3, vtI64), dec(4, vtI128), dec(5, vtI128),
			dec(2, vtI64), cnt(2), dec(3, vtI64), cnt(3), dec(6, vtI64), cnt(6),
			{Func: aggCount, Arg: noReg, Out: vtI64},
		},
	}
}

func q1Vectors(nvec int) [][3][]hookCol {
	rng := rand.New(rand.NewPCG(1, 2))
	var vecs [][3][]hookCol
	const n = 2048
	for range nvec {
		col := func(vt uint32) hookCol { return hookCol{VT: vt, Vals: make([]aggVal, n), Intern: true} }
		rf, ls := col(vtStr), col(vtStr)
		qty, price, disc := col(vtI64), col(vtI64), col(vtI64)
		dp, ch := col(vtI128), col(vtI128)
		for i := range n {
			rf.Vals[i].S = []string{"A", "N", "R"}[rng.IntN(3)]
			ls.Vals[i].S = []string{"F", "O"}[rng.IntN(2)]
			q, p, d := int64(100+rng.IntN(5000)), int64(90000+rng.IntN(10_000_000)), int64(rng.IntN(11))
			qty.Vals[i].I, price.Vals[i].I, disc.Vals[i].I = q, p, d
			dp.Vals[i].W = i128{Lo: uint64(p * (100 - d))}
			ch.Vals[i].W = i128{Lo: uint64(p * (100 - d) * 105)}
		}
		args := []hookCol{qty, price, dp, ch, qty, qty, price, price, disc, disc, {}}
		vecs = append(vecs, [3][]hookCol{{rf, ls}, args, make([]hookCol, len(args))})
	}
	return vecs
}

// runBench reports ns/row of CPU time of the folding thread (wall time on
// a shared machine measures the other tenants) and, with generated keys,
// the share of key generation (keygen-ns/row, included in ns/row).
func runBench(b *testing.B, spec hookSpec, vecs [][3][]hookCol, distinct uint64) {
	d := aggDev(b, 1<<30)
	hb := prepareBench(2048, vecs)
	defer hb.free()
	vectors := uint64(benchRows / 2048)
	rows := float64(vectors * 2048)
	{ // warm-up: device pages are touched once, as on a long-running device
		s := mustCreate(b, d, spec, 0)
		if _, err := hb.run(s, vectors, distinct, false); err != nil {
			b.Fatal(err)
		}
		s.free()
	}
	var keygen time.Duration
	if distinct > 0 {
		s := mustCreate(b, d, spec, 0)
		cpu, err := hb.run(s, vectors, distinct, true)
		if err != nil {
			b.Fatal(err)
		}
		keygen = cpu
		s.free()
	}
	var total time.Duration
	for b.Loop() {
		s := mustCreate(b, d, spec, 0)
		cpu, err := hb.run(s, vectors, distinct, false)
		if err != nil {
			b.Fatal(err)
		}
		total += cpu
		s.free()
	}
	b.ReportMetric(float64(total.Nanoseconds())/rows/float64(b.N), "cpu-ns/row")
	if distinct > 0 {
		b.ReportMetric(float64(keygen.Nanoseconds())/rows, "keygen-ns/row")
	}
}

// BenchmarkAggQ1: 6M rows, 2 dictionary-string keys (6 groups, perfect
// hashing), 11 buffers, one core.
func BenchmarkAggQ1(b *testing.B) { runBench(b, q1Spec(), q1Vectors(32), 0) }

// BenchmarkAggHighCard: 6M rows, ~1.5M distinct I64 keys (hashing), count,
// sum, decimal sum and min; the keys are generated in C before each vector
// (keygen-ns/row, included in ns/row).
func BenchmarkAggHighCard(b *testing.B) {
	spec := hookSpec{Keys: []uint32{vtI64}, Aggs: []hookAgg{
		{Func: aggCount, Arg: noReg, Out: vtI64},
		{Func: aggSum, Arg: 1, In: vtI64, Out: vtI64},
		{Func: aggSum, Flags: aggfDecimal, Arg: 1, In: vtI64, Out: vtI128},
		{Func: aggMin, Arg: 2, In: vtF64, Out: vtF64},
	}}
	rng := rand.New(rand.NewPCG(3, 4))
	var vecs [][3][]hookCol
	for range 8 {
		key, v, f := hookCol{VT: vtI64, Vals: make([]aggVal, 2048)}, hookCol{VT: vtI64, Vals: make([]aggVal, 2048)},
			hookCol{VT: vtF64, Vals: make([]aggVal, 2048)}
		for i := range 2048 {
			v.Vals[i].I = int64(rng.IntN(1_000_000))
			f.Vals[i].F = rng.Float64()
		}
		vecs = append(vecs, [3][]hookCol{{key}, {{}, v, v, f}, make([]hookCol, 4)})
	}
	runBench(b, spec, vecs, 1_500_000)
}

// unhinted drops the key domains of spec: the host does not know them, so
// the state groups by hashing (the general path).
func unhinted(spec hookSpec) hookSpec {
	spec.KeyMin, spec.KeyCard = nil, nil
	return spec
}

// countOnly keeps spec's keys with count(*) as the only aggregate; vecs'
// aggregate inputs are trimmed to match.
func countOnly(spec hookSpec, vecs [][3][]hookCol) (hookSpec, [][3][]hookCol) {
	spec.Aggs = []hookAgg{{Func: aggCount, Arg: noReg, Out: vtI64}}
	out := make([][3][]hookCol, len(vecs))
	for i, v := range vecs {
		out[i] = [3][]hookCol{v[0], {{}}, {{}}}
	}
	return spec, out
}

// notInterned gives every row of vecs' string keys its own bytes, as the
// views of a plain (not dictionary-encoded) string column are.
func notInterned(vecs [][3][]hookCol) [][3][]hookCol {
	out := make([][3][]hookCol, len(vecs))
	for i, v := range vecs {
		keys := make([]hookCol, len(v[0]))
		for k, c := range v[0] {
			c.Intern = false
			keys[k] = c
		}
		out[i] = [3][]hookCol{keys, v[1], v[2]}
	}
	return out
}

// lowCardIntVectors: one I64 key of `groups` values (with 1% nulls) in
// random order.
func lowCardIntVectors(groups int) [][3][]hookCol {
	rng := rand.New(rand.NewPCG(5, 6))
	var vecs [][3][]hookCol
	for range 16 {
		key := hookCol{VT: vtI64, Vals: make([]aggVal, 2048)}
		for i := range 2048 {
			key.Vals[i].I = int64(1_000_000 + 7919*rng.IntN(groups))
			key.Vals[i].Null = rng.IntN(100) == 0
		}
		vecs = append(vecs, [3][]hookCol{{key}, {{}}, {{}}})
	}
	return vecs
}

var countStar = []hookAgg{{Func: aggCount, Arg: noReg, Out: vtI64}}

// BenchmarkAggQ1Unhinted: BenchmarkAggQ1 without key domains (hashing).
func BenchmarkAggQ1Unhinted(b *testing.B) { runBench(b, unhinted(q1Spec()), q1Vectors(32), 0) }

// BenchmarkAggQ1Count: Q1's keys with count(*) only, with and without key
// domains, with dictionary-like (shared) and plain (per-row) string bytes.
func BenchmarkAggQ1Count(b *testing.B) {
	spec, vecs := countOnly(q1Spec(), q1Vectors(32))
	b.Run("hinted", func(b *testing.B) { runBench(b, spec, vecs, 0) })
	b.Run("unhinted", func(b *testing.B) { runBench(b, unhinted(spec), vecs, 0) })
	b.Run("unhinted-plain", func(b *testing.B) { runBench(b, unhinted(spec), notInterned(vecs), 0) })
}

// BenchmarkAggLowCardInt: one unhinted I64 key of 4 values plus null,
// count(*).
func BenchmarkAggLowCardInt(b *testing.B) {
	runBench(b, hookSpec{Keys: []uint32{vtI64}, Aggs: countStar}, lowCardIntVectors(4), 0)
}
