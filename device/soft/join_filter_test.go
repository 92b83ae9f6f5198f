package soft_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hados-io/hados/device"
)

// A slot table keeps a filter of its keys that a probe tests before the
// slot lookup (soft_join.c, "The filter"), and a probe turns it off for
// the rest of an op when almost every row passes it. These cases probe
// with keys that mostly miss (the TPC-H shape: a small or filtered build
// side, a large probe side), and with hits first and misses after (the
// filter is switched off mid-op): joinCases includes them, so the
// reference tests of the plain and the conditional probe run them with
// every flag and output capacity.

// missSides draws the build side's keys of vts from a domain of buildCard
// values and the probe side's from one of probeCard (so with probeCard >>
// buildCard most probe rows miss); hitsFirst probe rows first copy the
// keys of random build rows (every one of them matches).
func missSides(vts []device.VType, build, probe, buildCard, probeCard, hitsFirst int, nullRate float64) func(r *rand.Rand) (b, p joinSide) {
	return func(r *rand.Rand) (b, p joinSide) {
		b, p = joinSide{rows: build}, joinSide{rows: probe}
		for _, vt := range vts {
			bc, pc := vcol{vt: vt}, vcol{vt: vt}
			for range build {
				bc.vals = append(bc.vals, joinKeyGen(r, vt, buildCard, nullRate))
			}
			for range probe {
				pc.vals = append(pc.vals, joinKeyGen(r, vt, probeCard, nullRate))
			}
			b.cols, p.cols = append(b.cols, bc), append(p.cols, pc)
		}
		for i := 0; i < hitsFirst && build > 0; i++ {
			j := r.IntN(build)
			for k := range vts {
				p.cols[k].vals[i] = b.cols[k].vals[j]
			}
		}
		return b, p
	}
}

// missCases are joinCases' probes that mostly miss. A build of a few
// hundred rows from a domain of a thousand values is no dense table
// (DENSE_SPREAD), so every case probes a slot table.
func missCases() []joinCase {
	one := func(vt device.VType) []device.VType { return []device.VType{vt} }
	return []joinCase{
		{name: "misses I64", vts: one(device.VTI64), sides: missSides(one(device.VTI64), 188, 3000, 1000, 200000, 0, 0.05)},
		{name: "misses I32", vts: one(device.VTI32), sides: missSides(one(device.VTI32), 300, 2500, 1500, 100000, 0, 0.1)},
		{name: "misses F64", vts: one(device.VTF64), sides: missSides(one(device.VTF64), 250, 2500, 1200, 60000, 0, 0.05)},
		{name: "misses I128", vts: one(device.VTI128), sides: missSides(one(device.VTI128), 250, 2500, 1200, 60000, 0, 0.05)},
		{name: "misses STR", vts: one(device.VTStr), encs: []colEnc{{dict: true, offset: 1}},
			sides: missSides(one(device.VTStr), 250, 2500, 1200, 60000, 0, 0.05)},
		{name: "misses STR+I64", vts: []device.VType{device.VTStr, device.VTI64},
			sides: missSides([]device.VType{device.VTStr, device.VTI64}, 300, 2500, 40, 400, 0, 0.05)},
		{name: "misses null-safe I64", vts: one(device.VTI64), nullSafe: []bool{true},
			sides: missSides(one(device.VTI64), 200, 2500, 1000, 100000, 0, 0.1)},
		{name: "misses duplicated keys", vts: one(device.VTI64), sides: missSides(one(device.VTI64), 400, 2500, 60, 20000, 0, 0.05)},
		{name: "hits then misses I64", vts: one(device.VTI64), sides: missSides(one(device.VTI64), 300, 4000, 2000, 1000000, 1500, 0.02)},
		{name: "hits then misses STR", vts: one(device.VTStr), sides: missSides(one(device.VTStr), 300, 3000, 2000, 1000000, 1400, 0)},
		{name: "misses large build", vts: one(device.VTI64), sides: missSides(one(device.VTI64), 5000, 6000, 100000, 10000000, 300, 0.01)},
	}
}

// TestJoinMissCasesProbeSlotTables checks the premise of missCases: their
// builds make slot tables (a dense table has no filter), and most of
// their probe rows miss.
func TestJoinMissCasesProbeSlotTables(t *testing.T) {
	for i, c := range missCases() {
		b, p := c.sides(rand.New(rand.NewPCG(uint64(i), 1)))
		ref := refPairs(c, b, p)
		hits := 0
		for _, m := range ref {
			if len(m) > 0 {
				hits++
			}
		}
		if hits*2 > p.rows {
			t.Errorf("%s: %d of %d probe rows match", c.name, hits, p.rows)
		}
		if len(c.vts) == 1 && (c.vts[0] == device.VTI32 || c.vts[0] == device.VTI64) {
			lo, hi, n, seen := int64(1<<62), int64(-1<<62), 0, map[int64]bool{}
			unique := true
			for _, v := range b.cols[0].vals {
				if !v.null {
					lo, hi, n = min(lo, v.i), max(hi, v.i), n+1
					unique = unique && !seen[v.i]
					seen[v.i] = true
				}
			}
			if unique && hi-lo < 4*int64(n) {
				t.Errorf("%s: build keys in [%d, %d] for %d rows: a dense table", c.name, lo, hi, n)
			}
		}
	}
}

// A probe op that runs over many blocks with the filter on, then off
// (hits first), then on again in the next op, with an output that fills
// up inside the rows: every op's pairs are the reference's.
func TestJoinFilterAcrossOps(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,cores=2,mode=host-visible", 16<<20)
	c := joinCase{vts: []device.VType{device.VTI64}}
	r := rand.New(rand.NewPCG(11, 12))
	// hits for 1200 rows, misses for 3000, hits again, misses again
	b, p := missSides(c.vts, 400, 9000, 3000, 1<<30, 0, 0.01)(r)
	for _, span := range [][2]int{{0, 1200}, {4200, 5400}} {
		for i := span[0]; i < span[1]; i++ {
			p.cols[0].vals[i] = b.cols[0].vals[r.IntN(b.rows)]
		}
	}
	ref := refPairs(c, b, p)
	state, err := e.build(e.putJoin(b, nil, nil, false), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.free(state)
	pdesc := e.putJoin(p, nil, nil, true)
	for _, flags := range []uint32{0, device.ProbeUnmatched, device.ProbeFirstMatch} {
		for _, capacity := range []int{97, 1000, 1 << 16} {
			got, err := e.probeAll(e.q, state, pdesc, 0, p.rows, capacity, flags)
			if err != nil {
				t.Fatal(err)
			}
			samePairs(t, fmt.Sprintf("flags %d capacity %d", flags, capacity), got, expectPairs(ref, 0, p.rows, flags))
		}
	}
}
