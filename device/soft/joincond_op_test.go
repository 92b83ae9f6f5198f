package soft_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// joinCondRef is the plain Go reference of OpJoinCond for one pair: the
// build row is not -1 and every term holds (a null operand rejects).
func joinCondRef(terms []device.JoinTerm, cols [][2]vcol, p, b int32) bool {
	if b < 0 {
		return false
	}
	for k, t := range terms {
		ra, rb := p, p
		if t.ABuild {
			ra = b
		}
		if t.BBuild {
			rb = b
		}
		x, y := cols[k][0].vals[ra], cols[k][1].vals[rb]
		if x.null || y.null {
			return false
		}
		c := cmpVals(t.A.VType, x, y)
		var ok bool
		switch t.Cmp {
		case device.JoinCmpEq:
			ok = c == 0
		case device.JoinCmpNe:
			ok = c != 0
		case device.JoinCmpLt:
			ok = c < 0
		case device.JoinCmpLe:
			ok = c <= 0
		case device.JoinCmpGt:
			ok = c > 0
		default:
			ok = c >= 0
		}
		if !ok {
			return false
		}
	}
	return true
}

// runJoinCond writes the pairs, evaluates the condition over them in
// parts ops (disjoint ranges, one program) and returns the output bytes
// and the summed result.
func (e *env) runJoinCond(c *device.JoinCond, pp, bb []int32, parts int) ([]byte, uint64, error) {
	e.t.Helper()
	c.Pairs = uint64(len(pp))
	c.ProbeIdx, c.BuildIdx = e.putI32s(pp), e.putI32s(bb)
	c.Out = e.alloc(uint64(len(pp)) + 8)
	desc, err := c.Encode()
	if err != nil {
		e.t.Fatal(err)
	}
	da := e.put(desc)
	var ops []device.Op
	for i := range parts {
		lo, hi := len(pp)*i/parts, len(pp)*(i+1)/parts
		ops = append(ops, device.Op{Code: device.OpJoinCond, Src: da, Len: uint64(len(desc)), Args: [4]uint64{uint64(lo), uint64(hi)}})
	}
	cp := run(e.t, e.q, ops...)
	if cp.Err != nil {
		return nil, 0, cp.Err
	}
	var sum uint64
	for _, r := range cp.Results {
		sum += r
	}
	return e.read(c.Out, uint64(len(pp))), sum, nil
}

// TestJoinCondOp evaluates random conditions (one or two terms of every
// comparison, operands of either side, every supported value type and
// layout, 20% nulls) over random pairs (with -1 build rows, several pairs
// per probe row) and compares each pair with the Go reference; with
// JoinCondFirstPass, each probe row's "some pair passes" must agree and no
// pair may pass that the reference rejects.
func TestJoinCondOp(t *testing.T) {
	vts := []device.VType{device.VTI32, device.VTI64, device.VTF64, device.VTI128}
	for _, mode := range []string{"host-visible", "discrete"} {
		e := newEnv(t, "soft:memory=64MiB,cores=2,mode="+mode, 48<<20)
		seed := uint64(0)
		for _, vt := range vts {
			for cmp := device.JoinCmpEq; cmp <= device.JoinCmpGe; cmp++ {
				for _, nterms := range []int{1, 2} {
					for _, first := range []bool{false, true} {
						seed++
						e.reset()
						r := rand.New(rand.NewPCG(seed, 77))
						probeRows, buildRows := 1+r.IntN(300), 1+r.IntN(300)
						nullRate := []float64{0, 0.2}[r.IntN(2)]
						var terms []device.JoinTerm
						var cols [][2]vcol
						for k := range nterms {
							t := device.JoinTerm{Cmp: cmp, ABuild: r.IntN(2) == 0, BBuild: r.IntN(2) == 0}
							tvt := vt
							if k > 0 { // a second term of another type and comparison
								t.Cmp = device.JoinCmp(r.IntN(6))
								tvt = vts[r.IntN(len(vts))]
							}
							t, c := e.putTerm(r, t, k, func() device.VType { return tvt }, probeRows, buildRows, nullRate)
							terms = append(terms, t)
							cols = append(cols, c)
						}
						var pp, bb []int32
						for p := range probeRows {
							for range r.IntN(5) {
								pp = append(pp, int32(p))
								bb = append(bb, int32(r.IntN(buildRows+1))-1)
							}
						}
						c := &device.JoinCond{ProbeRows: uint64(probeRows), BuildRows: uint64(buildRows), Terms: terms}
						if first {
							c.Flags = device.JoinCondFirstPass
						}
						name := fmt.Sprintf("%s/%s/%s/terms%d/first=%v", mode, vt, cmp, nterms, first)
						out, res, err := e.runJoinCond(c, pp, bb, 1+r.IntN(3))
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						passed := uint64(0)
						anyGot, anyWant := map[int32]bool{}, map[int32]bool{}
						for i := range pp {
							want := joinCondRef(terms, cols, pp[i], bb[i])
							got := out[i] == 1
							if out[i] > 1 {
								t.Fatalf("%s: pair %d: output byte %d", name, i, out[i])
							}
							if got {
								passed++
								anyGot[pp[i]] = true
							}
							if want {
								anyWant[pp[i]] = true
							}
							if got != want && (!first || got) {
								t.Fatalf("%s: pair %d (%d, %d): got %v, want %v", name, i, pp[i], bb[i], got, want)
							}
						}
						if res != passed {
							t.Fatalf("%s: result %d, %d pairs passed", name, res, passed)
						}
						if first && len(anyGot) != len(anyWant) {
							t.Fatalf("%s: %d probe rows with a passing pair, want %d", name, len(anyGot), len(anyWant))
						}
					}
				}
			}
		}
	}
}

// smallCol is randVCol over a few values (so comparisons tie often).
func smallCol(r *rand.Rand, vt device.VType, n int, nullRate float64) vcol {
	c := randVCol(r, vt, n, nullRate)
	pool := randVCol(r, vt, 6, 0)
	for i := range c.vals {
		if !c.vals[i].null && r.IntN(3) != 0 {
			c.vals[i] = pool.vals[r.IntN(len(pool.vals))]
		}
	}
	return c
}

// TestJoinCondOpErrors: bad descriptors and row numbers fail the op with
// a message, never a crash.
func TestJoinCondOpErrors(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,cores=1,mode=host-visible", 16<<20)
	r := rand.New(rand.NewPCG(1, 2))
	a := e.putColumn(randVCol(r, device.VTI64, 10, 0.1), colEnc{})
	b := e.putColumn(randVCol(r, device.VTI64, 10, 0.1), colEnc{})
	s := e.putColumn(randVCol(r, device.VTStr, 10, 0.1), colEnc{})
	good := func() *device.JoinCond {
		return &device.JoinCond{ProbeRows: 10, BuildRows: 10, Terms: []device.JoinTerm{{Cmp: device.JoinCmpNe, BBuild: true, A: a, B: b}}}
	}
	for _, tc := range []struct {
		name   string
		pp, bb []int32
		edit   func(c *device.JoinCond, d []byte)
		want   string
	}{
		{"probe row out of range", []int32{0, 10}, []int32{1, 1}, nil, "outside"},
		{"negative probe row", []int32{-1}, []int32{1}, nil, "outside"},
		{"build row out of range", []int32{0}, []int32{10}, nil, "outside"},
		{"build row -2", []int32{0}, []int32{-2}, nil, "outside"},
		{"bad magic", []int32{0}, []int32{0}, func(_ *device.JoinCond, d []byte) { d[0] ^= 1 }, "magic"},
		{"no terms", []int32{0}, []int32{0}, func(_ *device.JoinCond, d []byte) { binary.LittleEndian.PutUint32(d[12:], 0) }, "terms"},
		{"bad comparison", []int32{0}, []int32{0}, func(_ *device.JoinCond, d []byte) { binary.LittleEndian.PutUint32(d[device.SizeofJoinCondHdr:], 9) }, "comparison"},
		{"string operands", []int32{0}, []int32{0}, func(_ *device.JoinCond, d []byte) {
			binary.LittleEndian.PutUint32(d[device.SizeofJoinCondHdr+8:], uint32(device.VTStr))
			binary.LittleEndian.PutUint32(d[device.SizeofJoinCondHdr+8+device.SizeofColumn:], uint32(device.VTStr))
		}, "value type"},
		{"operand shorter than the side", []int32{0}, []int32{0}, func(_ *device.JoinCond, d []byte) { binary.LittleEndian.PutUint64(d[32:], 11) }, "beyond"},
		{"unknown flags", []int32{0}, []int32{0}, func(_ *device.JoinCond, d []byte) { d[16] = 4 }, "flags"},
	} {
		e.reset()
		c := good()
		c.Pairs = uint64(len(tc.pp))
		c.ProbeIdx, c.BuildIdx, c.Out = e.putI32s(tc.pp), e.putI32s(tc.bb), e.alloc(16)
		d, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if tc.edit != nil {
			tc.edit(c, d)
		}
		da := e.put(d)
		cp := run(t, e.q, device.Op{Code: device.OpJoinCond, Src: da, Len: uint64(len(d)), Args: [4]uint64{0, uint64(len(tc.pp))}})
		if cp.Err == nil || !strings.Contains(cp.Err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, cp.Err, tc.want)
		}
	}
	// the Go encoder refuses what the op would refuse
	c := good()
	c.Terms[0].B = s
	if _, err := c.Encode(); err == nil {
		t.Error("Encode of an i64 <> str term: no error")
	}
	// a pair range past the pairs
	e.reset()
	c = good()
	c.Pairs, c.ProbeIdx, c.BuildIdx, c.Out = 1, e.putI32s([]int32{0}), e.putI32s([]int32{0}), e.alloc(8)
	d, _ := c.Encode()
	da := e.put(d)
	if cp := run(t, e.q, device.Op{Code: device.OpJoinCond, Src: da, Len: uint64(len(d)), Args: [4]uint64{0, 2}}); cp.Err == nil {
		t.Error("pair range [0, 2) of 1 pair: no error")
	}
}
