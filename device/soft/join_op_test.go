package soft_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/device/soft/internal/cctest"
)

// The hash join ops against a plain reference: random build and probe key
// columns of every value type and encoding (utf8, large utf8, dictionary,
// Arrow offsets), with duplicates, nulls and null-safe keys, probed with
// small output capacities (so the cursor resumes inside a row's matches)
// and every probe flag.

// joinKeyGen draws a value of type vt from a small domain (so keys repeat).
func joinKeyGen(r *rand.Rand, vt device.VType, card int, nullRate float64) val {
	if r.Float64() < nullRate {
		return val{null: true}
	}
	k := r.IntN(card)
	switch vt {
	case device.VTBool:
		return val{i: int64(k % 2)}
	case device.VTF64:
		switch k % 7 {
		case 0:
			return val{f: math.NaN()}
		case 1:
			return val{f: math.Copysign(0, -1)}
		case 2:
			return val{f: 0}
		}
		return val{f: float64(k) / 4}
	case device.VTI128:
		x := new(big.Int).Lsh(big.NewInt(int64(k)), 70)
		return val{x: x.Sub(x, big.NewInt(int64(k)))}
	case device.VTStr:
		if k%5 == 0 {
			return val{s: strings.Repeat("long-string-", 2) + fmt.Sprint(k)}
		}
		if k == 1 {
			return val{s: ""}
		}
		return val{s: fmt.Sprintf("k%d", k)}
	}
	return val{i: int64(k) - int64(card/2)}
}

// keyEq is the join's key equality of two values.
func keyEq(vt device.VType, a, b val, nullSafe bool) bool {
	if a.null || b.null {
		return nullSafe && a.null && b.null
	}
	switch vt {
	case device.VTF64:
		return a.f == b.f || math.IsNaN(a.f) && math.IsNaN(b.f)
	case device.VTI128:
		return a.x.Cmp(b.x) == 0
	case device.VTStr:
		return a.s == b.s
	}
	return a.i == b.i
}

type joinCase struct {
	name      string
	vts       []device.VType
	encs      []colEnc // per key, build side; the probe side flips dict/large
	nullSafe  []bool
	card      int
	nullRate  float64
	build, pr int
}

func joinCases() []joinCase {
	var cs []joinCase
	for _, vt := range []device.VType{device.VTBool, device.VTI32, device.VTI64, device.VTF64, device.VTI128, device.VTStr} {
		cs = append(cs, joinCase{name: vt.String(), vts: []device.VType{vt}, card: 40, nullRate: 0.1, build: 300, pr: 500})
		cs = append(cs, joinCase{name: vt.String() + " null-safe", vts: []device.VType{vt}, nullSafe: []bool{true}, card: 40, nullRate: 0.2, build: 200, pr: 300})
	}
	cs = append(cs,
		joinCase{name: "STR dict vs utf8", vts: []device.VType{device.VTStr}, encs: []colEnc{{dict: true, offset: 3}}, card: 30, nullRate: 0.1, build: 300, pr: 400},
		joinCase{name: "STR large", vts: []device.VType{device.VTStr}, encs: []colEnc{{large: true, offset: 1}}, card: 30, nullRate: 0.1, build: 300, pr: 400},
		joinCase{name: "STR+I64+I128", vts: []device.VType{device.VTStr, device.VTI64, device.VTI128}, card: 4, nullRate: 0.05, build: 400, pr: 400},
		joinCase{name: "I32+F64 mixed null-safe", vts: []device.VType{device.VTI32, device.VTF64}, nullSafe: []bool{false, true}, card: 5, nullRate: 0.1, build: 300, pr: 300},
		joinCase{name: "unique I64 keys", vts: []device.VType{device.VTI64}, card: 1 << 30, build: 2000, pr: 2000},
		joinCase{name: "empty build", vts: []device.VType{device.VTI64}, card: 10, build: 0, pr: 50},
		joinCase{name: "empty probe", vts: []device.VType{device.VTStr}, card: 10, build: 50, pr: 0},
		joinCase{name: "all null", vts: []device.VType{device.VTI32}, card: 10, nullRate: 1, build: 50, pr: 50},
		joinCase{name: "all null null-safe", vts: []device.VType{device.VTI32}, nullSafe: []bool{true}, card: 10, nullRate: 1, build: 50, pr: 50},
		joinCase{name: "one key value", vts: []device.VType{device.VTI64}, card: 1, build: 100, pr: 40},
	)
	return cs
}

// joinSide is one side's key columns as Go values.
type joinSide struct {
	cols []vcol
	rows int
}

func genSide(r *rand.Rand, c joinCase, rows int) joinSide {
	s := joinSide{rows: rows}
	for _, vt := range c.vts {
		col := vcol{vt: vt}
		for range rows {
			col.vals = append(col.vals, joinKeyGen(r, vt, c.card, c.nullRate))
		}
		s.cols = append(s.cols, col)
	}
	return s
}

// refPairs is the expected output of a probe: per probe row, the build
// rows matching it in build order.
func refPairs(c joinCase, b, p joinSide) [][]int32 {
	out := make([][]int32, p.rows)
	for i := range p.rows {
		for j := range b.rows {
			ok := true
			for k, vt := range c.vts {
				ns := c.nullSafe != nil && c.nullSafe[k]
				if !keyEq(vt, p.cols[k].vals[i], b.cols[k].vals[j], ns) {
					ok = false
					break
				}
			}
			if ok {
				out[i] = append(out[i], int32(j))
			}
		}
	}
	return out
}

func (e *env) putJoin(s joinSide, encs []colEnc, nullSafe []bool, flip bool) device.Addr {
	j := device.Join{Rows: uint64(s.rows), NullSafe: nullSafe}
	for k, col := range s.cols {
		var enc colEnc
		if k < len(encs) {
			enc = encs[k]
		}
		if flip {
			enc = colEnc{offset: enc.offset + 2, dict: !enc.dict && !enc.large, large: enc.dict}
		}
		j.Keys = append(j.Keys, e.putColumn(col, enc))
	}
	b, err := j.Encode()
	if err != nil {
		e.t.Fatal(err)
	}
	return e.put(b)
}

func (e *env) build(desc device.Addr, budget uint64) (device.Addr, error) {
	e.t.Helper()
	cell := e.alloc(8)
	c := run(e.t, e.q, device.Op{Code: device.OpJoinBuild, Src: desc, Len: uint64(device.SizeofJoinHeader + 16*device.SizeofColumn),
		Dst: cell, Args: [4]uint64{budget}})
	if c.Err != nil {
		return 0, c.Err
	}
	if got := binary.LittleEndian.Uint64(e.read(cell, 8)); got != c.Results[0] {
		e.t.Fatalf("build wrote state 0x%x, result 0x%x", got, c.Results[0])
	}
	return device.Addr(c.Results[0]), nil
}

func (e *env) free(state device.Addr) {
	e.t.Helper()
	if c := run(e.t, e.q, device.Op{Code: device.OpJoinFree, Src: state}); c.Err != nil {
		e.t.Fatal(c.Err)
	}
}

// probeAll runs the probe over rows [lo, hi) until its cursor reaches the
// end, with capacity pairs per op, and returns the pairs.
func (e *env) probeAll(q device.Queue, state, desc device.Addr, lo, hi int, capacity int, flags uint32) ([][2]int32, error) {
	o := device.JoinOut{ProbeRows: e.alloc(uint64(4 * capacity)), BuildRows: e.alloc(uint64(4 * capacity)),
		Capacity: uint64(capacity), Flags: flags, EndRow: uint64(hi), NextRow: uint64(lo)}
	oa := e.put(o.Encode())
	var pairs [][2]int32
	for guard := 0; ; guard++ {
		c := run(e.t, q, device.Op{Code: device.OpJoinProbe, Src: desc, Len: 1 << 20, Args: [4]uint64{uint64(state), uint64(oa)}})
		if c.Err != nil {
			return nil, c.Err
		}
		n := int(c.Results[0])
		ps, bs := e.read(o.ProbeRows, uint64(4*n)), e.read(o.BuildRows, uint64(4*n))
		for i := range n {
			pairs = append(pairs, [2]int32{int32(binary.LittleEndian.Uint32(ps[4*i:])), int32(binary.LittleEndian.Uint32(bs[4*i:]))})
		}
		cur, err := device.DecodeJoinOut(e.read(oa, device.SizeofJoinOut))
		if err != nil {
			return nil, err
		}
		if cur.NextRow == cur.EndRow {
			return pairs, nil
		}
		if n == 0 || guard > 1<<20 {
			e.t.Fatalf("probe made no progress at row %d", cur.NextRow)
		}
	}
}

// expectPairs is what a probe with flags must write.
func expectPairs(ref [][]int32, lo, hi int, flags uint32) [][2]int32 {
	var out [][2]int32
	for i := lo; i < hi; i++ {
		m := ref[i]
		if flags&device.ProbeFirstMatch != 0 && len(m) > 1 {
			m = m[:1]
		}
		if len(m) == 0 && flags&device.ProbeUnmatched != 0 {
			out = append(out, [2]int32{int32(i), -1})
		}
		for _, b := range m {
			out = append(out, [2]int32{int32(i), b})
		}
	}
	return out
}

func samePairs(t *testing.T, what string, got, want [][2]int32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d pairs, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: pair %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

func TestJoinOpsAgainstReference(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		for _, c := range joinCases() {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				e := newEnv(t, "soft:memory=64MiB,cores=2,mode="+mode, 16<<20)
				r := rand.New(rand.NewPCG(uint64(len(c.name)), 7))
				b, p := genSide(r, c, c.build), genSide(r, c, c.pr)
				ref := refPairs(c, b, p)
				state, err := e.build(e.putJoin(b, c.encs, c.nullSafe, false), 0)
				if err != nil {
					t.Fatal(err)
				}
				defer e.free(state)
				pdesc := e.putJoin(p, c.encs, c.nullSafe, true)
				for _, flags := range []uint32{0, device.ProbeFirstMatch, device.ProbeUnmatched, device.ProbeFirstMatch | device.ProbeUnmatched} {
					total := len(expectPairs(ref, 0, p.rows, flags))
					for _, capacity := range []int{1, 7, 100000} {
						if capacity == 1 && total > 2000 {
							capacity = 13 // one op per pair would take long
						}
						lo, hi := 0, p.rows
						if capacity == 7 && p.rows > 10 {
							lo, hi = 3, p.rows-5
						}
						got, err := e.probeAll(e.q, state, pdesc, lo, hi, capacity, flags)
						if err != nil {
							t.Fatal(err)
						}
						samePairs(t, fmt.Sprintf("flags %d capacity %d", flags, capacity), got, expectPairs(ref, lo, hi, flags))
					}
				}
			})
		}
	}
}

// Probes of one state run at once on both cores, each over its own rows.
func TestJoinConcurrentProbes(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,cores=2,mode=host-visible", 32<<20)
	c := joinCase{vts: []device.VType{device.VTStr, device.VTI32}, card: 20, nullRate: 0.05}
	r := rand.New(rand.NewPCG(3, 4))
	b, p := genSide(r, c, 2000), genSide(r, c, 4000)
	ref := refPairs(c, b, p)
	state, err := e.build(e.putJoin(b, nil, nil, false), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.free(state)
	pdesc := e.putJoin(p, nil, nil, true)
	const parts = 4
	var wg sync.WaitGroup
	got := make([][][2]int32, parts)
	errs := make([]error, parts)
	queues := make([]device.Queue, parts)
	for i := range queues {
		queues[i] = queue(t, e.d, 4)
	}
	type plan struct{ lo, hi int }
	var plans []plan
	for i := range parts {
		plans = append(plans, plan{p.rows * i / parts, p.rows * (i + 1) / parts})
	}
	// allocate each probe's buffers up front: the bump allocator is not safe for concurrent use
	type prepared struct {
		o  device.JoinOut
		oa device.Addr
	}
	preps := make([]prepared, parts)
	for i, pl := range plans {
		o := device.JoinOut{ProbeRows: e.alloc(4 * 64), BuildRows: e.alloc(4 * 64), Capacity: 64, EndRow: uint64(pl.hi), NextRow: uint64(pl.lo)}
		preps[i] = prepared{o, e.put(o.Encode())}
	}
	for i := range parts {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			pr := preps[i]
			m, err := e.d.Map(pr.oa, device.SizeofJoinOut)
			if err != nil {
				errs[i] = err
				return
			}
			for {
				if err := queues[i].Submit(device.Program{Ops: []device.Op{{Code: device.OpJoinProbe, Src: pdesc, Len: 1 << 20,
					Args: [4]uint64{uint64(state), uint64(pr.oa)}}}, Tag: 7}); err != nil {
					errs[i] = err
					return
				}
				var cs [1]device.Completion
				for {
					n, err := queues[i].Poll(cs[:], 0)
					if err != nil {
						errs[i] = err
						return
					}
					if n == 1 {
						break
					}
				}
				if cs[0].Err != nil {
					errs[i] = cs[0].Err
					return
				}
				n := int(cs[0].Results[0])
				pm, _ := e.d.Map(pr.o.ProbeRows, uint64(4*n))
				bm, _ := e.d.Map(pr.o.BuildRows, uint64(4*n))
				for k := range n {
					got[i] = append(got[i], [2]int32{int32(binary.LittleEndian.Uint32(pm[4*k:])), int32(binary.LittleEndian.Uint32(bm[4*k:]))})
				}
				cur, _ := device.DecodeJoinOut(m)
				if cur.NextRow == cur.EndRow {
					return
				}
			}
		}(i)
	}
	wg.Wait()
	for i, pl := range plans {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		samePairs(t, fmt.Sprintf("part %d", i), got[i], expectPairs(ref, pl.lo, pl.hi, 0))
	}
}

func TestJoinBudgetAndErrors(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,cores=2,mode=host-visible", 8<<20)
	c := joinCase{vts: []device.VType{device.VTI64}, card: 100}
	r := rand.New(rand.NewPCG(5, 6))
	b := genSide(r, c, 1000)
	desc := e.putJoin(b, nil, nil, false)
	_, err := e.build(desc, 1024)
	if !errors.Is(err, device.ErrNoMemory) || !strings.Contains(err.Error(), "over the budget of 1024") {
		t.Fatalf("build over budget: %v", err)
	}
	state, err := e.build(desc, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	// a probe whose key types differ from the build's
	other := e.putJoin(genSide(r, joinCase{vts: []device.VType{device.VTI32}, card: 3}, 10), nil, nil, false)
	o := device.JoinOut{ProbeRows: e.alloc(40), BuildRows: e.alloc(40), Capacity: 10, EndRow: 10}
	oa := e.put(o.Encode())
	cases := []struct {
		name string
		op   device.Op
		want string
	}{
		{"key type", device.Op{Code: device.OpJoinProbe, Src: other, Len: 1 << 20, Args: [4]uint64{uint64(state), uint64(oa)}}, "key 0 is I32, the build's is I64"},
		{"not a state", device.Op{Code: device.OpJoinProbe, Src: desc, Len: 1 << 20, Args: [4]uint64{uint64(desc), uint64(oa)}}, "not a live join state"},
		{"free non-state", device.Op{Code: device.OpJoinFree, Src: desc + 8}, "not a live join state"},
		{"short descriptor", device.Op{Code: device.OpJoinBuild, Src: desc, Len: 16, Dst: oa}, "shorter than its header"},
	}
	for _, tc := range cases {
		c := run(t, e.q, tc.op)
		if c.Err == nil || !strings.Contains(c.Err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, c.Err, tc.want)
		}
	}
	// bad magic
	bad := e.read(desc, device.SizeofJoinHeader+device.SizeofColumn)
	bad[0] ^= 1
	if c := run(t, e.q, device.Op{Code: device.OpJoinBuild, Src: e.put(bad), Len: uint64(len(bad)), Dst: oa}); c.Err == nil || !strings.Contains(c.Err.Error(), "bad magic") {
		t.Errorf("bad magic: %v", c.Err)
	}
	e.free(state)
	if c := run(t, e.q, device.Op{Code: device.OpJoinFree, Src: state}); c.Err == nil {
		t.Error("double free accepted")
	}
}

// TestJoinABILayout checks the Go encoders' sizes against the C compiler's.
func TestJoinABILayout(t *testing.T) {
	cc := cctest.Compiler(t, "cc")
	_, file, _, _ := runtime.Caller(0)
	inc := filepath.Join(filepath.Dir(file), "..", "include")
	dir := t.TempDir()
	src := `#include <stdio.h>
#include <stddef.h>
#include "hados_relational.h"
int main(void) {
  printf("%zu %zu %zu %zu %zu %zu\n", sizeof(hados_join), offsetof(hados_join, keys), offsetof(hados_join, key_flags),
         sizeof(hados_join_out), offsetof(hados_join_out, end_row), offsetof(hados_join_out, next_match));
  return 0;
}`
	if err := os.WriteFile(filepath.Join(dir, "l.c"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "l")
	if out, err := exec.Command(cc, "-I", inc, "-o", bin, filepath.Join(dir, "l.c")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d %d %d %d %d %d\n", device.SizeofJoinHeader, device.SizeofJoinHeader, 24, device.SizeofJoinOut, 32, 48)
	if string(out) != want {
		t.Fatalf("C layout %q, Go encodes %q (sizeof join, keys, key_flags, sizeof join_out, end_row, next_match)", out, want)
	}
}
