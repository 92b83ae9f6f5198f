package soft_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// The probe with a condition (device.ProbeCond): every join case of
// TestJoinOpsAgainstReference (every key type, duplicates, nulls,
// null-safe keys, dense tables) probed with a random condition of one or
// two terms over columns of both sides (nulls included); each probe row's
// pair must be its first build row, in build order, that matches the key
// and passes the reference condition (joinCondRef), or (row, -1) under
// ProbeUnmatched when none does.

// probeAllCond is probeAll with the condition descriptor cond (len bytes).
func (e *env) probeAllCond(state, desc, cond device.Addr, condLen, lo, hi, capacity int, flags uint32) ([][2]int32, error) {
	return e.probeLoop(e.q, state, desc, cond, condLen, lo, hi, capacity, flags)
}

// randCond is a random condition of nterms terms over probeRows and
// buildRows rows, its columns written to the device, and their values.
func (e *env) randCond(r *rand.Rand, probeRows, buildRows, nterms int, nullRate float64) ([]device.JoinTerm, [][2]vcol) {
	vts := []device.VType{device.VTI32, device.VTI64, device.VTF64, device.VTI128}
	var terms []device.JoinTerm
	var cols [][2]vcol
	for k := range nterms {
		t := device.JoinTerm{Cmp: device.JoinCmp(r.IntN(6)), ABuild: r.IntN(2) == 0, BBuild: r.IntN(2) == 0}
		t, c := e.putTerm(r, t, k, func() device.VType { return vts[r.IntN(len(vts))] }, probeRows, buildRows, nullRate)
		terms = append(terms, t)
		cols = append(cols, c)
	}
	return terms, cols
}

// putTerm gives term k its operands: columns of the type pick gives (after
// the sides are drawn) over the sides it reads (the first term mostly
// probe vs build), drawn from a small domain so that equal values are
// common, written to the device in a random layout.
func (e *env) putTerm(r *rand.Rand, t device.JoinTerm, k int, pick func() device.VType, probeRows, buildRows int, nullRate float64) (device.JoinTerm, [2]vcol) {
	if k == 0 && r.IntN(4) != 0 {
		t.ABuild, t.BBuild = false, true
	}
	vt := pick()
	rowsOf := func(build bool) int {
		if build {
			return buildRows
		}
		return probeRows
	}
	a, b := smallCol(r, vt, rowsOf(t.ABuild), nullRate), smallCol(r, vt, rowsOf(t.BBuild), nullRate)
	encs := encodingsOf(vt)
	t.A, t.B = e.putColumn(a, encs[r.IntN(len(encs))]), e.putColumn(b, encs[r.IntN(len(encs))])
	return t, [2]vcol{a, b}
}

func TestJoinProbeCondAgainstReference(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		for ci, c := range joinCases() {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				e := newEnv(t, "soft:memory=64MiB,cores=2,mode="+mode, 16<<20)
				r := rand.New(rand.NewPCG(uint64(ci), 31))
				b, p, ref, state, pdesc := e.buildCase(r, c)
				for round := range 4 {
					nterms := 1 + round%2
					terms, cols := e.randCond(r, p.rows, b.rows, nterms, []float64{0, 0.2}[round/2])
					enc, err := (&device.JoinCond{ProbeRows: uint64(p.rows), BuildRows: uint64(b.rows), Terms: terms}).Encode()
					if err != nil {
						t.Fatal(err)
					}
					cond := e.put(enc)
					// the reference: per probe row, its first key match passing the condition
					passing := make([][]int32, p.rows)
					for i, ms := range ref {
						for _, m := range ms {
							if joinCondRef(terms, cols, int32(i), m) {
								passing[i] = []int32{m}
								break
							}
						}
					}
					for _, flags := range []uint32{device.ProbeFirstMatch, device.ProbeFirstMatch | device.ProbeUnmatched} {
						flags |= device.ProbeCond
						for _, capacity := range []int{1, 7, 100000} {
							lo, hi := 0, p.rows
							if capacity == 7 && p.rows > 10 {
								lo, hi = 3, p.rows-5
							}
							got, err := e.probeAllCond(state, pdesc, cond, len(enc), lo, hi, capacity, flags)
							if err != nil {
								t.Fatal(err)
							}
							samePairs(t, fmt.Sprintf("round %d flags %d capacity %d", round, flags, capacity), got, expectPairs(passing, lo, hi, flags))
						}
					}
				}
			})
		}
	}
}

// TestJoinProbeCondErrors: a probe with a bad condition fails with a
// message, never a crash.
func TestJoinProbeCondErrors(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,cores=1,mode=host-visible", 16<<20)
	r := rand.New(rand.NewPCG(3, 4))
	c := joinCase{vts: []device.VType{device.VTI64}, card: 5, build: 20, pr: 30}
	b, p := genSide(r, c, c.build), genSide(r, c, c.pr)
	state, err := e.build(e.putJoin(b, nil, nil, false), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.free(state)
	pdesc := e.putJoin(p, nil, nil, false)
	terms, _ := e.randCond(r, p.rows, b.rows, 1, 0.1)
	encode := func(probeRows, buildRows int) []byte {
		enc, err := (&device.JoinCond{ProbeRows: uint64(probeRows), BuildRows: uint64(buildRows), Terms: terms}).Encode()
		if err != nil {
			t.Fatal(err)
		}
		return enc
	}
	good := encode(p.rows, b.rows)
	badMagic := append([]byte{}, good...)
	badMagic[0] ^= 1
	for _, tc := range []struct {
		name  string
		enc   []byte
		len   int
		flags uint32
		want  string
	}{
		{"no first match", good, len(good), device.ProbeCond, "needs FIRST_MATCH"},
		{"probe rows", encode(p.rows+1, b.rows), len(good), device.ProbeCond | device.ProbeFirstMatch, "condition over"},
		{"build rows", encode(p.rows, b.rows-1), len(good), device.ProbeCond | device.ProbeFirstMatch, "condition over"},
		{"bad magic", badMagic, len(good), device.ProbeCond | device.ProbeFirstMatch, "bad magic"},
		{"short", good, 16, device.ProbeCond | device.ProbeFirstMatch, "header alone"},
		{"unknown flag", good, len(good), device.ProbeCond | device.ProbeFirstMatch | 64, "unknown flags"},
	} {
		_, err := e.probeAllCond(state, pdesc, e.put(tc.enc), tc.len, 0, p.rows, 100, tc.flags)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// no condition at all: address 0 is not a descriptor
	if _, err := e.probeAllCond(state, pdesc, 0, 0, 0, p.rows, 100, device.ProbeCond|device.ProbeFirstMatch); err == nil {
		t.Error("a probe with flag COND and no descriptor succeeded")
	}
}
