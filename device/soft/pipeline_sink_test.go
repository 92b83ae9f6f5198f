package soft_test

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/hados-io/hados/device"
)

// Sinks: COUNT over row sub-ranges, PROJECT of several typed columns (and
// its E_NOMEM contract when rows or string bytes run out), AGG through the
// aggregation ops.

// filterGT builds "COLUMN i64; GT const; FILTER" over column col.
func filterGT(col device.Column, c int64, sink device.Sink) *device.Pipeline {
	return &device.Pipeline{
		RegTypes: []device.VType{device.VTI64, device.VTBool},
		Columns:  []device.Column{col},
		Consts:   []device.Const{device.ConstI64(c)},
		Insns: []device.Insn{
			{Op: device.KColumn, VType: device.VTI64, Dst: 0, P1: 0},
			{Op: device.KGt, VType: device.VTI64, Flags: device.IfBConst, Dst: 1, A: 0, B: 0},
			{Op: device.KFilter, A: 1},
		},
		Sink: sink,
	}
}

func randI64Col(r *rand.Rand, n int, nullRate float64, lim int64) vcol {
	c := vcol{vt: device.VTI64, vals: make([]val, n)}
	for i := range c.vals {
		if r.Float64() < nullRate {
			c.vals[i] = nullV
		} else {
			c.vals[i] = val{i: r.Int64N(2*lim) - lim}
		}
	}
	return c
}

func TestPipelineCount(t *testing.T) {
	for _, mode := range []string{"host-visible", "discrete"} {
		e := newEnv(t, "soft:memory=32MiB,mode="+mode, 4<<20)
		r := rand.New(rand.NewPCG(1, 2))
		vals := randI64Col(r, 9000, 0.1, 1000)
		col := e.putColumn(vals, colEnc{offset: 3})
		for _, rg := range [][2]uint64{{0, 9000}, {0, 0}, {100, 4500}, {2047, 2049}, {8999, 9000}, {4096, 9000}} {
			want := uint64(0)
			for _, v := range vals.vals[rg[0]:rg[1]] {
				if !v.null && v.i > 250 {
					want++
				}
			}
			got, err := e.runPipeline(filterGT(col, 250, device.SinkCount), rg[0], rg[1], 0)
			if err != nil || got != want {
				t.Errorf("%s rows %v: count %d, %v; want %d", mode, rg, got, err, want)
			}
		}
	}
}

// TestPipelineProjectColumns projects every type at once through a filter
// and checks the output columns row by row.
func TestPipelineProjectColumns(t *testing.T) {
	e := newEnv(t, "soft:memory=32MiB,mode=host-visible", 8<<20)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 4500
	types := []device.VType{device.VTBool, device.VTI32, device.VTI64, device.VTF64, device.VTI128, device.VTStr, device.VTStr, device.VTStr}
	encs := []colEnc{{}, {offset: 1}, {offset: 9}, {}, {offset: 2}, {offset: 5}, {dict: true, offset: 1}, {large: true}}
	in := make([]vcol, len(types))
	p := &device.Pipeline{Sink: device.SinkProject}
	for j, vt := range types {
		in[j] = vcol{vt: vt, vals: make([]val, n)}
		g := defaultGen(vt)
		for i := range in[j].vals {
			if r.IntN(7) == 0 {
				in[j].vals[i] = nullV
			} else {
				in[j].vals[i] = g(r)
			}
		}
		p.Columns = append(p.Columns, e.putColumn(in[j], encs[j]))
		p.RegTypes = append(p.RegTypes, vt)
		p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: vt, Dst: uint16(j), P1: int32(j)})
		p.Project = append(p.Project, uint16(j))
	}
	// keep rows whose I32 value is odd (nulls dropped)
	k := uint16(len(types))
	p.RegTypes = append(p.RegTypes, device.VTI32, device.VTI32, device.VTBool)
	p.Consts = []device.Const{device.ConstI32(2), device.ConstI32(0)}
	p.Insns = append(p.Insns,
		device.Insn{Op: device.KMod, VType: device.VTI32, Flags: device.IfBConst, Dst: k, A: 1, B: 0},
		device.Insn{Op: device.KNe, VType: device.VTI32, Flags: device.IfBConst, Dst: k + 2, A: k, B: 1},
		device.Insn{Op: device.KFilter, A: k + 2})
	out, err := e.project(p, n, 64*n)
	if err != nil {
		t.Fatal(err)
	}
	row := 0
	for i := 0; i < n; i++ {
		if v := in[1].vals[i]; v.null || v.i%2 == 0 {
			continue
		}
		for j, vt := range types {
			if !sameVal(vt, out[j].vals[row], in[j].vals[i]) {
				t.Fatalf("column %d (%s) row %d: got %v, want %v", j, vt, i, out[j].vals[row], in[j].vals[i])
			}
		}
		row++
	}
	if row != len(out[0].vals) {
		t.Fatalf("%d rows out, want %d", len(out[0].vals), row)
	}
}

// TestPipelineProjectFull checks E_NOMEM with the rows placed as result,
// for row capacity and for string bytes.
func TestPipelineProjectFull(t *testing.T) {
	e := newEnv(t, "soft:memory=32MiB,mode=host-visible", 4<<20)
	strs := vcol{vt: device.VTStr}
	for i := 0; i < 3000; i++ {
		strs.vals = append(strs.vals, val{s: "abcdefghij"[:i%10]})
	}
	p := &device.Pipeline{
		RegTypes: []device.VType{device.VTStr},
		Columns:  []device.Column{e.putColumn(strs, colEnc{})},
		Insns:    []device.Insn{{Op: device.KColumn, VType: device.VTStr, Dst: 0, P1: 0}},
		Sink:     device.SinkProject,
		Project:  []uint16{0},
	}
	for _, tc := range []struct {
		rows, bytes int
		wantRows    uint64
	}{
		{3000, 100000, 3000},
		{2500, 100000, 2500}, // rows run out in the second vector
		{3000, 45, 11},       // 0+1+..+9 = 45 bytes: ten strings and the empty eleventh fit
		{3000, 44, 9},
	} {
		oc := e.outColumn(device.VTStr, tc.rows, tc.bytes)
		out := e.put(device.EncodeColumns([]device.Column{oc}, uint64(tc.rows)))
		got, err := e.runPipeline(p, 0, 3000, out)
		if got != tc.wantRows {
			t.Errorf("capacity %d rows / %d bytes: %d rows placed, want %d (%v)", tc.rows, tc.bytes, got, tc.wantRows, err)
		}
		if full := tc.wantRows < 3000; full != errors.Is(err, device.ErrNoMemory) {
			t.Errorf("capacity %d rows / %d bytes: err %v", tc.rows, tc.bytes, err)
		}
		res := e.readColumn(oc, int(got))
		for i, v := range res.vals {
			if v.s != strs.vals[i].s {
				t.Fatalf("row %d: %q, want %q", i, v.s, strs.vals[i].s)
			}
		}
	}
}

// aggRun creates an aggregation state for p's spec, runs p into it over
// ranges (one op each, as the host splits a batch) and emits cols.
func aggRun(t *testing.T, e *env, p *device.Pipeline, ranges [][2]uint64, cols []device.Column, capRows uint64) uint64 {
	t.Helper()
	desc, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	da := e.put(desc)
	slot := e.alloc(8)
	c := run(t, e.q, device.Op{Code: device.OpAggCreate, Src: da, Len: uint64(len(desc)), Dst: slot})
	if c.Err != nil {
		t.Fatalf("agg create: %v", c.Err)
	}
	st := device.Addr(binary.LittleEndian.Uint64(e.read(slot, 8)))
	if uint64(st) != c.Results[0] {
		t.Fatalf("state address %x in memory, %x as result", st, c.Results[0])
	}
	defer run(t, e.q, device.Op{Code: device.OpAggFree, Src: st})
	for _, rg := range ranges {
		c := run(t, e.q, device.Op{Code: device.OpPipeline, Src: da, Len: uint64(len(desc)), Args: [4]uint64{rg[0], rg[1], uint64(st)}})
		if c.Err != nil {
			t.Fatalf("pipeline into state: %v", c.Err)
		}
	}
	out := e.put(device.EncodeColumns(cols, capRows))
	c = run(t, e.q, device.Op{Code: device.OpAggEmit, Src: st, Dst: out})
	if c.Err != nil {
		t.Fatalf("agg emit: %v", c.Err)
	}
	return c.Results[0]
}

func TestPipelineAggSink(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 16<<20)
	r := rand.New(rand.NewPCG(5, 6))
	const n = 7000
	keys := vcol{vt: device.VTI32, vals: make([]val, n)}
	for i := range keys.vals {
		keys.vals[i] = val{i: int64(r.IntN(9))}
	}
	vals := randI64Col(r, n, 0.1, 1000000)
	p := filterGT(e.putColumn(vals, colEnc{offset: 1}), -500000, device.SinkAgg)
	p.Columns = append(p.Columns, e.putColumn(keys, colEnc{}))
	p.RegTypes = append(p.RegTypes, device.VTI32)
	p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: device.VTI32, Dst: 2, P1: 1})
	p.Agg = &device.AggSpec{
		KeyRegs: []uint16{2}, KeyVTypes: []device.VType{device.VTI32},
		Aggs: []device.Agg{
			{Func: device.AggSum, Arg: 0, InVType: device.VTI64, OutVType: device.VTI64},
			{Func: device.AggCount, Arg: device.NoReg, OutVType: device.VTI64},
		},
	}
	var order []int64
	sums, counts := map[int64]int64{}, map[int64]int64{}
	for i := 0; i < n; i++ {
		v := vals.vals[i]
		if v.null || v.i <= -500000 {
			continue
		}
		k := keys.vals[i].i
		if _, ok := counts[k]; !ok {
			order = append(order, k)
		}
		sums[k] += v.i
		counts[k]++
	}
	cols := []device.Column{e.outColumn(device.VTI32, 16, 0), e.outColumn(device.VTI64, 16, 0), e.outColumn(device.VTI64, 16, 0)}
	g := aggRun(t, e, p, [][2]uint64{{0, 3000}, {3000, 3001}, {3001, n}}, cols, 16)
	if int(g) != len(order) {
		t.Fatalf("%d groups, want %d", g, len(order))
	}
	ks, ss, cs := e.readColumn(cols[0], int(g)), e.readColumn(cols[1], int(g)), e.readColumn(cols[2], int(g))
	for i, k := range order {
		if ks.vals[i].i != k || ss.vals[i].i != sums[k] || cs.vals[i].i != counts[k] {
			t.Errorf("group %d: key %v sum %v count %v; want %d %d %d", i, ks.vals[i], ss.vals[i], cs.vals[i], k, sums[k], counts[k])
		}
	}
}

// TestPipelineConcurrent runs pipelines on several cores at once, each op
// with its own range, as the host splits a batch.
func TestPipelineConcurrent(t *testing.T) {
	e := newEnv(t, "soft:memory=32MiB,cores=3,mode=host-visible", 4<<20)
	r := rand.New(rand.NewPCG(9, 9))
	vals := randI64Col(r, 20000, 0.05, 1000)
	desc, err := filterGT(e.putColumn(vals, colEnc{}), 0, device.SinkCount).Encode()
	if err != nil {
		t.Fatal(err)
	}
	da := e.put(desc)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			q, err := e.d.NewQueue(4)
			if err != nil {
				t.Error(err)
				return
			}
			defer q.Close()
			for i := 0; i < 20; i++ {
				rb := uint64((w*20 + i) * 200 % 19000)
				re := rb + 1000
				want := uint64(0)
				for _, v := range vals.vals[rb:re] {
					if !v.null && v.i > 0 {
						want++
					}
				}
				if err := q.Submit(device.Program{Ops: []device.Op{{Code: device.OpPipeline, Src: da, Len: uint64(len(desc)), Args: [4]uint64{rb, re}}}, Tag: 1}); err != nil {
					t.Error(err)
					return
				}
				var c [1]device.Completion
				for n := 0; n == 0; {
					if n, err = q.Poll(c[:], 0); err != nil {
						t.Error(err)
						return
					}
					if n == 0 {
						if n, err = q.Poll(c[:], 100_000_000); err != nil {
							t.Error(err)
							return
						}
					}
				}
				if c[0].Err != nil || c[0].Results[0] != want {
					t.Errorf("worker %d rows [%d, %d): %d, %v; want %d", w, rb, re, c[0].Results[0], c[0].Err, want)
				}
			}
		}(w)
	}
	wg.Wait()
}

// TestPipelineAggOneByteStringKeys: two string keys of one-byte strings
// (the str1 hint of a loaded register: the aggregation reads the bytes
// directly), with vectors where a null row's string is empty or a key is
// two bytes long (no hint there), at Arrow offsets 0 and 5, against a Go
// reference in first-seen group order.
func TestPipelineAggOneByteStringKeys(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 16<<20)
	for _, off := range []int{0, 5} {
		r := rand.New(rand.NewPCG(uint64(off), 7))
		const n = 11000
		ka, kb := vcol{vt: device.VTStr, vals: make([]val, n)}, vcol{vt: device.VTStr, vals: make([]val, n)}
		for i := 0; i < n; i++ {
			ka.vals[i] = val{s: string("ANR\x00\xff"[r.IntN(5)]), null: r.IntN(9) == 0}
			kb.vals[i] = val{s: string("FO"[r.IntN(2)]), null: r.IntN(13) == 0}
			if i >= 4096 && i < 6144 && ka.vals[i].null && r.IntN(2) == 0 {
				ka.vals[i].s = "" // a null row without a byte: no hint for this vector
			}
			if i >= 6144 && i < 8192 && r.IntN(50) == 0 {
				kb.vals[i].s = "OO"
			}
		}
		vals := randI64Col(r, n, 0.1, 1000000)
		p := filterGT(e.putColumn(vals, colEnc{}), -500000, device.SinkAgg)
		p.Columns = append(p.Columns, e.putColumn(ka, colEnc{offset: off}), e.putColumn(kb, colEnc{offset: off}))
		p.RegTypes = append(p.RegTypes, device.VTStr, device.VTStr)
		p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: device.VTStr, Dst: 2, P1: 1},
			device.Insn{Op: device.KColumn, VType: device.VTStr, Dst: 3, P1: 2})
		p.Agg = &device.AggSpec{
			KeyRegs: []uint16{2, 3}, KeyVTypes: []device.VType{device.VTStr, device.VTStr},
			Aggs: []device.Agg{
				{Func: device.AggSum, Arg: 0, InVType: device.VTI64, OutVType: device.VTI64},
				{Func: device.AggCount, Arg: device.NoReg, OutVType: device.VTI64},
			},
		}
		type key struct{ a, b val }
		norm := func(v val) val {
			if v.null {
				return val{null: true}
			}
			return val{s: v.s}
		}
		var order []key
		sums, counts := map[key]int64{}, map[key]int64{}
		for i := 0; i < n; i++ {
			v := vals.vals[i]
			if v.null || v.i <= -500000 {
				continue
			}
			k := key{norm(ka.vals[i]), norm(kb.vals[i])}
			if _, ok := counts[k]; !ok {
				order = append(order, k)
			}
			sums[k] += v.i
			counts[k]++
		}
		cols := []device.Column{e.outColumn(device.VTStr, 64, 256), e.outColumn(device.VTStr, 64, 256),
			e.outColumn(device.VTI64, 64, 0), e.outColumn(device.VTI64, 64, 0)}
		g := aggRun(t, e, p, [][2]uint64{{0, 3000}, {3000, 3001}, {3001, n}}, cols, 64)
		if int(g) != len(order) {
			t.Fatalf("offset %d: %d groups, want %d", off, g, len(order))
		}
		as, bs := e.readColumn(cols[0], int(g)), e.readColumn(cols[1], int(g))
		ss, cs := e.readColumn(cols[2], int(g)), e.readColumn(cols[3], int(g))
		for i, k := range order {
			got := key{norm(as.vals[i]), norm(bs.vals[i])}
			if got != k || ss.vals[i].i != sums[k] || cs.vals[i].i != counts[k] {
				t.Errorf("offset %d group %d: key %v sum %v count %v; want %v %d %d", off, i, got, ss.vals[i], cs.vals[i], k, sums[k], counts[k])
			}
		}
	}
}
