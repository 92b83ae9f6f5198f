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
	"time"

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
	// sides, if set, draws both sides instead of genSide (dense tables)
	sides func(r *rand.Rand) (b, p joinSide)
}

// denseSides is a build side of unique integer keys lo + a permutation of
// [0, n) with every spread-th value left out (so the range is up to spread
// times the rows) and nulls at nullRate, and a probe side of keys around
// that range (below, inside, above, the type's extremes, nulls): what a
// dense table (soft_join.c) is built over. dup, if >= 0, repeats the key
// of build row 0 at build row dup (the build must then fall back to a
// slot table).
func denseSides(vt device.VType, lo int64, n, spread int, nullRate float64, dup int) func(r *rand.Rand) (b, p joinSide) {
	return func(r *rand.Rand) (b, p joinSide) {
		var keys []int64
		for i := range n * spread {
			if spread == 1 || i%spread == 0 {
				keys = append(keys, lo+int64(i))
			}
		}
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		bc := vcol{vt: vt}
		for _, k := range keys {
			v := val{i: k}
			if r.Float64() < nullRate {
				v = val{null: true}
			}
			bc.vals = append(bc.vals, v)
		}
		if dup >= 0 && dup < len(bc.vals) {
			bc.vals[dup] = bc.vals[0]
		}
		extremes := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1}
		if vt == device.VTI32 {
			extremes = []int64{math.MinInt32, math.MaxInt32, -1, 0, 1}
		}
		pc := vcol{vt: vt}
		width := int64(n*spread) + 20
		for range 3 * n {
			switch x := r.IntN(20); {
			case x == 0:
				pc.vals = append(pc.vals, val{null: true})
			case x == 1:
				pc.vals = append(pc.vals, val{i: extremes[r.IntN(len(extremes))]})
			default:
				pc.vals = append(pc.vals, val{i: lo - 10 + r.Int64N(width)})
			}
		}
		return joinSide{cols: []vcol{bc}, rows: len(bc.vals)}, joinSide{cols: []vcol{pc}, rows: len(pc.vals)}
	}
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
		joinCase{name: "dense I64", vts: []device.VType{device.VTI64}, sides: denseSides(device.VTI64, 1000, 500, 1, 0, -1)},
		joinCase{name: "dense I64 sparse nulls", vts: []device.VType{device.VTI64}, sides: denseSides(device.VTI64, -300, 400, 3, 0.1, -1)},
		joinCase{name: "dense I32 negative", vts: []device.VType{device.VTI32}, sides: denseSides(device.VTI32, -250, 300, 2, 0.05, -1)},
		joinCase{name: "dense I32 at the extreme", vts: []device.VType{device.VTI32}, sides: denseSides(device.VTI32, math.MaxInt32-299, 300, 1, 0, -1)},
		joinCase{name: "dense I64 at the extreme", vts: []device.VType{device.VTI64}, sides: denseSides(device.VTI64, math.MinInt64+5, 300, 1, 0, -1)},
		joinCase{name: "dense but a duplicate", vts: []device.VType{device.VTI64}, sides: denseSides(device.VTI64, 0, 300, 1, 0, 250)},
		joinCase{name: "dense null-safe", vts: []device.VType{device.VTI64}, nullSafe: []bool{true}, sides: denseSides(device.VTI64, 0, 300, 1, 0.05, -1)},
		joinCase{name: "too sparse", vts: []device.VType{device.VTI64}, sides: denseSides(device.VTI64, 0, 300, 5, 0, -1)},
		joinCase{name: "clustered I64 runs", vts: []device.VType{device.VTI64}, sides: clusteredSides(device.VTI64, 600, 0.1)},
		joinCase{name: "clustered F64 runs", vts: []device.VType{device.VTF64}, sides: clusteredSides(device.VTF64, 400, 0)},
	)
	cs = append(cs, missCases()...) // join_filter_test.go
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
	return e.probeLoop(q, state, desc, 0, 0, lo, hi, capacity, flags)
}

// probeLoop is probeAll with an optional condition descriptor (cond, condLen
// bytes; 0 for none) passed in the probe's third and fourth arguments.
func (e *env) probeLoop(q device.Queue, state, desc, cond device.Addr, condLen, lo, hi int, capacity int, flags uint32) ([][2]int32, error) {
	o := device.JoinOut{ProbeRows: e.alloc(uint64(4 * capacity)), BuildRows: e.alloc(uint64(4 * capacity)),
		Capacity: uint64(capacity), Flags: flags, EndRow: uint64(hi), NextRow: uint64(lo)}
	oa := e.put(o.Encode())
	var pairs [][2]int32
	for guard := 0; ; guard++ {
		c := run(e.t, q, device.Op{Code: device.OpJoinProbe, Src: desc, Len: 1 << 20, Args: [4]uint64{uint64(state), uint64(oa), uint64(cond), uint64(condLen)}})
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

// buildCase generates case c's sides (c.sides when set), the reference
// pairs, builds the table of the build side (freed when the test ends) and
// stages the probe side.
func (e *env) buildCase(r *rand.Rand, c joinCase) (b, p joinSide, ref [][]int32, state, pdesc device.Addr) {
	e.t.Helper()
	b, p = genSide(r, c, c.build), genSide(r, c, c.pr)
	if c.sides != nil {
		b, p = c.sides(r)
	}
	ref = refPairs(c, b, p)
	state, err := e.build(e.putJoin(b, c.encs, c.nullSafe, false), 0)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { e.free(state) })
	return b, p, ref, state, e.putJoin(p, c.encs, c.nullSafe, true)
}

func TestJoinOpsAgainstReference(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		for _, c := range joinCases() {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				e := newEnv(t, "soft:memory=64MiB,cores=2,mode="+mode, 16<<20)
				r := rand.New(rand.NewPCG(uint64(len(c.name)), 7))
				_, p, ref, state, pdesc := e.buildCase(r, c)
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

// A build over unique keys filling a small range makes a dense table (4
// bytes a key value instead of a 16-byte slot per 3/4 row); a duplicate,
// a null-safe null or a sparse range makes a slot table. The device's
// memory in use tells them apart.
func TestJoinDenseTableSize(t *testing.T) {
	const n = 20000
	for _, tc := range []struct {
		name     string
		vt       device.VType
		nullSafe []bool
		sides    func(r *rand.Rand) (b, p joinSide)
		dense    bool
	}{
		{"unique I64", device.VTI64, nil, denseSides(device.VTI64, 7, n, 1, 0, -1), true},
		{"unique I32 with nulls, spread 3", device.VTI32, nil, denseSides(device.VTI32, -n, n, 3, 0.1, -1), true},
		{"spread 5", device.VTI64, nil, denseSides(device.VTI64, 0, n, 5, 0, -1), false},
		{"a duplicate", device.VTI64, nil, denseSides(device.VTI64, 0, n, 1, 0, n-1), false},
		{"null-safe null", device.VTI64, []bool{true}, denseSides(device.VTI64, 0, n, 1, 0.01, -1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "soft:memory=64MiB,cores=2,mode=host-visible", 8<<20)
			b, _ := tc.sides(rand.New(rand.NewPCG(1, 2)))
			desc := e.putJoin(b, nil, tc.nullSafe, false)
			before, _ := e.d.Telemetry()
			state, err := e.build(desc, 0)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := e.d.Telemetry()
			e.free(state)
			used := after.MemUsedBytes - before.MemUsedBytes
			if dense := used < 16*n; dense != tc.dense {
				t.Fatalf("the table of %d rows takes %d bytes: dense %v, want %v", b.rows, used, dense, tc.dense)
			}
		})
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

// buildParts runs a build with parts > 1 as the host does: the preparing
// op, then one op per part, each on its own queue so the engine's cores
// run them at once. ok is false when a part returned 0 (the state must be
// freed and built on one core).
func (e *env) buildParts(desc device.Addr, parts int) (state device.Addr, ok bool, err error) {
	e.t.Helper()
	cell := e.alloc(8)
	c := run(e.t, e.q, device.Op{Code: device.OpJoinBuild, Src: desc, Len: uint64(device.SizeofJoinHeader + 16*device.SizeofColumn),
		Dst: cell, Args: [4]uint64{0, uint64(parts)}})
	if c.Err != nil {
		return 0, false, c.Err
	}
	state = device.Addr(c.Results[0])
	qs := make([]device.Queue, parts)
	for p := range parts {
		qs[p] = queue(e.t, e.d, 2)
		if err := qs[p].Submit(device.Program{Ops: []device.Op{{Code: device.OpJoinBuild, Args: [4]uint64{0, 0, uint64(state), uint64(p)}}}, Tag: 7}); err != nil {
			e.t.Fatal(err)
		}
	}
	ok = true
	for p := range parts {
		var cs [1]device.Completion
		for deadline := time.Now().Add(10 * time.Second); ; {
			n, perr := qs[p].Poll(cs[:], 100*time.Millisecond)
			if perr != nil {
				e.t.Fatal(perr)
			}
			if n == 1 {
				break
			}
			if time.Now().After(deadline) {
				e.t.Fatal("build part did not complete in 10s")
			}
		}
		if cs[0].Err != nil && err == nil {
			err = cs[0].Err
		}
		if cs[0].Err == nil && cs[0].Results[0] != uint64(state) {
			if cs[0].Results[0] != 0 {
				e.t.Fatalf("part %d returned 0x%x, want the state 0x%x or 0", p, cs[0].Results[0], state)
			}
			ok = false
		}
	}
	return state, ok, err
}

// uniquePairs is refPairs for a build side whose keys never repeat
// (I32, I64 or STR, one key), through a map.
func uniquePairs(vt device.VType, nullSafe bool, b, p joinSide) [][]int32 {
	key := func(v val) (string, bool) {
		if v.null {
			return "null", nullSafe
		}
		if vt == device.VTStr {
			return "s" + v.s, true
		}
		return fmt.Sprint(v.i), true
	}
	at := map[string]int32{}
	for j, v := range b.cols[0].vals {
		if k, ok := key(v); ok {
			at[k] = int32(j)
		}
	}
	out := make([][]int32, p.rows)
	for i, v := range p.cols[0].vals {
		if k, ok := key(v); ok {
			if j, hit := at[k]; hit {
				out[i] = []int32{j}
			}
		}
	}
	return out
}

// A build over several cores makes the same table as one on one core: the
// probes' pairs match the reference for unique keys of every kind of
// table, with 2 and 4 parts; a duplicated key makes the parts give up.
func TestJoinBuildParts(t *testing.T) {
	const n = 70000
	strSides := func(r *rand.Rand) (b, p joinSide) {
		bc, pc := vcol{vt: device.VTStr}, vcol{vt: device.VTStr}
		for i := range n {
			bc.vals = append(bc.vals, val{s: fmt.Sprintf("key-%d", i*7)})
		}
		for range n {
			if r.IntN(30) == 0 {
				pc.vals = append(pc.vals, val{null: true})
				continue
			}
			pc.vals = append(pc.vals, val{s: fmt.Sprintf("key-%d", r.IntN(8*n))})
		}
		return joinSide{cols: []vcol{bc}, rows: n}, joinSide{cols: []vcol{pc}, rows: n}
	}
	for _, tc := range []struct {
		name     string
		vt       device.VType
		nullSafe bool
		sides    func(r *rand.Rand) (b, p joinSide)
		ok       bool
	}{
		{"sparse I64", device.VTI64, false, denseSides(device.VTI64, -n, n, 7, 0, -1), true},
		{"sparse I32 with nulls", device.VTI32, false, denseSides(device.VTI32, 5, n, 9, 0.1, -1), true},
		{"sparse I64 null-safe", device.VTI64, true, func(r *rand.Rand) (b, p joinSide) {
			b, p = denseSides(device.VTI64, 0, n, 6, 0, -1)(r)
			b.cols[0].vals[n/2] = val{null: true} // one null key: a group of one row
			return b, p
		}, true},
		{"STR", device.VTStr, false, strSides, true},
		{"dense (built when prepared)", device.VTI64, false, denseSides(device.VTI64, 0, n, 1, 0, -1), true},
		{"a duplicate", device.VTI64, false, denseSides(device.VTI64, 0, n, 6, 0, n-3), false},
		{"two null-safe nulls", device.VTI64, true, denseSides(device.VTI64, 0, n, 6, 0.001, -1), false},
	} {
		for _, parts := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, parts), func(t *testing.T) {
				e := newEnv(t, "soft:memory=256MiB,cores=2,mode=host-visible", 64<<20)
				b, p := tc.sides(rand.New(rand.NewPCG(uint64(parts), 9)))
				ns := []bool{tc.nullSafe}
				desc := e.putJoin(b, nil, ns, false)
				state, ok, err := e.buildParts(desc, parts)
				if err != nil {
					t.Fatal(err)
				}
				if ok != tc.ok {
					t.Fatalf("parts built the table: %v, want %v", ok, tc.ok)
				}
				if !ok {
					e.free(state)
					if state, err = e.build(desc, 0); err != nil {
						t.Fatal(err)
					}
				}
				defer e.free(state)
				var ref [][]int32
				if tc.ok {
					ref = uniquePairs(tc.vt, tc.nullSafe, b, p)
				} else {
					c := joinCase{vts: []device.VType{tc.vt}, nullSafe: ns}
					ref = refPairs(c, b, joinSide{cols: []vcol{{vt: tc.vt, vals: p.cols[0].vals[:500]}}, rows: 500})
				}
				pdesc := e.putJoin(p, nil, ns, true)
				for _, flags := range []uint32{0, device.ProbeUnmatched} {
					got, err := e.probeAll(e.q, state, pdesc, 0, len(ref), 4096, flags)
					if err != nil {
						t.Fatal(err)
					}
					samePairs(t, fmt.Sprintf("flags %d", flags), got, expectPairs(ref, 0, len(ref), flags))
				}
			})
		}
	}
}

// The parts of a build refuse what the host must not do.
func TestJoinBuildPartsErrors(t *testing.T) {
	e := newEnv(t, "soft:memory=256MiB,cores=2,mode=host-visible", 32<<20)
	b, p := denseSides(device.VTI64, 0, 70000, 6, 0, -1)(rand.New(rand.NewPCG(1, 1)))
	desc := e.putJoin(b, nil, nil, false)
	cell := e.alloc(8)
	if c := run(t, e.q, device.Op{Code: device.OpJoinBuild, Src: desc, Len: 1 << 20, Dst: cell, Args: [4]uint64{0, 3}}); c.Err == nil ||
		!strings.Contains(c.Err.Error(), "3 parts") {
		t.Fatalf("3 parts: %v", c.Err)
	}
	c := run(t, e.q, device.Op{Code: device.OpJoinBuild, Src: desc, Len: 1 << 20, Dst: cell, Args: [4]uint64{0, 2}})
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	state := c.Results[0]
	defer e.free(device.Addr(state))
	o := device.JoinOut{ProbeRows: e.alloc(40), BuildRows: e.alloc(40), Capacity: 10, EndRow: 10}
	oa := e.put(o.Encode())
	pdesc := e.putJoin(p, nil, nil, false)
	probe := device.Op{Code: device.OpJoinProbe, Src: pdesc, Len: 1 << 20, Args: [4]uint64{state, uint64(oa)}}
	if c := run(t, e.q, probe); c.Err == nil || !strings.Contains(c.Err.Error(), "has not finished") {
		t.Fatalf("probe before the parts: %v", c.Err)
	}
	part := func(p uint64) device.Completion {
		return run(t, e.q, device.Op{Code: device.OpJoinBuild, Args: [4]uint64{0, 0, state, p}})
	}
	if c := part(2); c.Err == nil || !strings.Contains(c.Err.Error(), "part 2 of 2") {
		t.Fatalf("part 2 of 2: %v", c.Err)
	}
	if c := part(0); c.Err != nil || c.Results[0] != state {
		t.Fatalf("part 0: %v, result 0x%x", c.Err, c.Results[0])
	}
	if c := part(0); c.Err == nil || !strings.Contains(c.Err.Error(), "built twice") {
		t.Fatalf("part 0 again: %v", c.Err)
	}
	// part 0, run alone, took part 1's region too (an op that starts late
	// leaves its region to the others): the table is whole
	if c := run(t, e.q, probe); c.Err != nil {
		t.Fatalf("probe after part 0 built every region: %v", c.Err)
	}
	if c := part(1); c.Err != nil || c.Results[0] != state {
		t.Fatalf("part 1 (nothing left to do): %v, result 0x%x", c.Err, c.Results[0])
	}
	if c := part(1); c.Err == nil || !strings.Contains(c.Err.Error(), "built twice") {
		t.Fatalf("part 1 again: %v", c.Err)
	}
	if c := run(t, e.q, probe); c.Err != nil {
		t.Fatalf("probe after the parts: %v", c.Err)
	}
}

// clusteredSides is a build side whose keys come in runs (1 to 6 rows of
// one key, nulls in between, a key now and then coming back in a later
// run), as a fact table in key order (the build's slot lookups and run
// fill then touch the same slots row after row). The probe draws keys
// over the range.
func clusteredSides(vt device.VType, n int, nullRate float64) func(r *rand.Rand) (b, p joinSide) {
	return func(r *rand.Rand) (b, p joinSide) {
		bc := vcol{vt: vt}
		key := int64(0)
		for len(bc.vals) < n {
			k := key
			if r.IntN(8) == 0 && key > 0 {
				k = r.Int64N(key) // a key seen before, in a later run
			} else {
				key++
			}
			for range 1 + r.IntN(6) {
				if r.Float64() < nullRate {
					bc.vals = append(bc.vals, val{null: true})
				}
				v := val{i: k}
				if vt == device.VTF64 {
					v = val{f: float64(k) / 2}
				}
				bc.vals = append(bc.vals, v)
			}
		}
		pc := vcol{vt: vt}
		for range n {
			k := r.Int64N(key + 5)
			v := val{i: k}
			if vt == device.VTF64 {
				v = val{f: float64(k) / 2}
			}
			if r.Float64() < nullRate {
				v = val{null: true}
			}
			pc.vals = append(pc.vals, v)
		}
		return joinSide{cols: []vcol{bc}, rows: len(bc.vals)}, joinSide{cols: []vcol{pc}, rows: len(pc.vals)}
	}
}
