package soft_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/device/soft"
)

// Predicates on a STR dictionary column run once per run over the
// dictionary's entries and then look each row's code up (soft_pipeline.c,
// dict_preds). Every result must be the one the same program gives on the
// column stored plain: every predicate kind, dictionaries of 1, 7 (also of
// one-byte entries), 300 and 70,000 entries (the last beyond the bound: the
// kernels run on the rows), every code width, nulls (whose codes are junk,
// often outside the dictionary), sliced columns, a FILTER before, the
// column also projected (so loaded), two predicates on one column, runs
// over fewer rows than the dictionary has entries.

// dpPred is a predicate on register a (the string column) into dst.
type dpPred struct {
	name   string
	consts []device.Const
	insn   func(c0 int, a, dst uint16) device.Insn // c0: the number of its first constant
}

func dpCmp(op device.Kernel, left bool, c device.Const) dpPred {
	name := fmt.Sprintf("k%d", op)
	if c.Null {
		name += "/null"
	} else {
		name += "/" + string(c.Str)
	}
	if left {
		name += "/left"
	}
	return dpPred{name, []device.Const{c}, func(c0 int, a, dst uint16) device.Insn {
		if left {
			return device.Insn{Op: op, VType: device.VTStr, Flags: device.IfAConst, Dst: dst, A: uint16(c0), B: a}
		}
		return device.Insn{Op: op, VType: device.VTStr, Flags: device.IfBConst, Dst: dst, A: a, B: uint16(c0)}
	}}
}

func dpIn(cs ...device.Const) dpPred {
	return dpPred{fmt.Sprintf("in%d", len(cs)), cs, func(c0 int, a, dst uint16) device.Insn {
		return device.Insn{Op: device.KIn, VType: device.VTStr, Dst: dst, A: a, P1: int32(c0), P2: int32(len(cs))}
	}}
}

func dpStr(op device.Kernel, pat string) dpPred {
	return dpPred{fmt.Sprintf("k%d/%s", op, pat), []device.Const{device.ConstStr(pat)}, func(c0 int, a, dst uint16) device.Insn {
		return device.Insn{Op: op, VType: device.VTStr, Flags: device.IfBConst, Dst: dst, A: a, B: uint16(c0)}
	}}
}

func dpPreds() []dpPred {
	s := device.ConstStr
	ps := []dpPred{}
	for _, op := range []device.Kernel{device.KEq, device.KNe, device.KLt, device.KLe, device.KGt, device.KGe, device.KEqNullSafe} {
		ps = append(ps, dpCmp(op, false, s("AIR")), dpCmp(op, true, s("MAIL")))
	}
	ps = append(ps,
		dpCmp(device.KEq, false, device.ConstNull(device.VTStr)),
		dpCmp(device.KLt, true, device.ConstNull(device.VTStr)),
		dpCmp(device.KEqNullSafe, false, device.ConstNull(device.VTStr)),
		dpCmp(device.KEq, false, s("C")),
		dpCmp(device.KEq, false, s("")),
		dpCmp(device.KGe, false, s("s#01")),
		dpIn(s("AIR"), s("AIR REG")),
		dpIn(s("MAIL"), device.ConstNull(device.VTStr)),
		dpIn(s("B"), s(""), s("SHIP"), s("D")),
		dpStr(device.KStartsWith, "AI"),
		dpStr(device.KStartsWith, ""),
		dpStr(device.KEndsWith, "REG"),
		dpStr(device.KContains, "R "),
		dpStr(device.KContains, "#1"),
		dpStr(device.KLike, "%IR%"),
		dpStr(device.KLike, "A_R%"),
		dpStr(device.KLike, "_é%"),
		dpStr(device.KLike, "s#__"),
	)
	var many []device.Const // more constants than the IN kernel's string fast path takes
	for i := 0; i < 70; i++ {
		many = append(many, s(fmt.Sprintf("s#%d", 3*i)))
	}
	return append(ps, dpIn(many...))
}

// dpPool is card distinct strings: TPC-H-like modes first, then generated
// ones (an empty one, some with a multi-byte character); oneByte: single
// letters (a dictionary of one-byte entries).
func dpPool(card int, oneByte bool) []string {
	if oneByte {
		return strings.Split("ABCDEFGH", "")[:card]
	}
	modes := []string{"AIR", "AIR REG", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB"}
	pool := make([]string, card)
	for i := range pool {
		switch {
		case i < len(modes):
			pool[i] = modes[i]
		case i == len(modes):
			pool[i] = ""
		case i%11 == 0:
			pool[i] = fmt.Sprintf("Xé#%d", i)
		default:
			pool[i] = fmt.Sprintf("s#%d", i)
		}
	}
	return pool
}

func sameVals(vt device.VType, got, want []val) (int, bool) {
	if len(got) != len(want) {
		return -1, false
	}
	for i := range got {
		if !sameVal(vt, got[i], want[i]) {
			return i, false
		}
	}
	return 0, true
}

func TestPipelineDictPreds(t *testing.T) {
	e := newEnv(t, "soft:memory=128MiB,mode=host-visible", 96<<20)
	preds := dpPreds()
	type card struct {
		n       int
		oneByte bool
	}
	cards := []card{{1, false}, {7, false}, {7, true}, {300, false}, {70000, false}}
	for pi, pr := range preds {
		for ci, cd := range cards {
			for codes := 0; codes < 4; codes++ {
				if cd.n == 70000 && codes != (pi%4) { // int32 codes anyway: one width per predicate
					continue
				}
				k := pi*100 + ci*10 + codes
				nullRate := []float64{0, 0.1, 1}[k%3]
				rows := []int{1, 7, 2048, 5000}[(pi+ci+codes)%4]
				if cd.n == 70000 {
					rows = 75000
				}
				withSel, alsoProject := k%2 == 1, (k/2)%2 == 1
				offset := (codes + ci) % 5
				r := rand.New(rand.NewPCG(uint64(k), 27))
				pool := dpPool(cd.n, cd.oneByte)
				vals := make([]val, rows)
				for i := range vals {
					switch {
					case r.Float64() < nullRate:
						vals[i] = nullV
					case cd.n == 70000:
						vals[i] = val{s: pool[(i*7919)%cd.n]} // every entry, scattered
					default:
						vals[i] = val{s: pool[r.IntN(cd.n)]}
					}
				}
				keep, ids := make([]val, rows), make([]val, rows)
				for i := range keep {
					keep[i], ids[i] = boolV(r.IntN(4) != 0), val{i: int64(i)}
				}
				second := preds[(pi*7+3)%len(preds)]
				name := fmt.Sprintf("%s/card%d/onebyte%v/codes%d/null%v/rows%d/sel%v/proj%v", pr.name, cd.n, cd.oneByte, codes, nullRate, rows, withSel, alsoProject)
				e.reset()
				plain := e.putColumn(vcol{vt: device.VTStr, vals: vals}, colEnc{offset: offset})
				dict := e.putColumn(vcol{vt: device.VTStr, vals: vals}, colEnc{dict: true, codes: codes, offset: offset})
				progs := dpPrograms(e, pr, second, keep, ids, withSel, alsoProject)
				for j, p := range progs {
					p.Columns[0] = plain
					want, err := e.project(p, rows, 16*rows+64)
					if err != nil {
						t.Fatalf("%s: program %d, plain column: %v", name, j, err)
					}
					p.Columns[0] = dict
					got, err := e.project(p, rows, 16*rows+64)
					if err != nil {
						t.Fatalf("%s: program %d, dictionary column: %v", name, j, err)
					}
					for c := range want {
						if i, ok := sameVals(want[c].vt, got[c].vals, want[c].vals); !ok {
							if i < 0 {
								t.Fatalf("%s: program %d column %d: %d rows, want %d", name, j, c, len(got[c].vals), len(want[c].vals))
							}
							t.Fatalf("%s: program %d column %d row %d: got %v, want %v", name, j, c, i, got[c].vals[i], want[c].vals[i])
						}
					}
				}
				// a run over fewer rows than the dictionary has entries
				// (the kernels run on the rows), and over the rest
				if rows > 1 && dict.DictLength > 1 {
					half := min(uint64(rows-1), dict.DictLength-1)
					p := progs[1]
					for _, rg := range [][2]uint64{{0, half}, {half, uint64(rows)}} {
						p.Columns[0] = plain
						p.Sink, p.Project = device.SinkCount, nil
						want, err := e.runPipeline(p, rg[0], rg[1], 0)
						if err != nil {
							t.Fatalf("%s: rows %v, plain column: %v", name, rg, err)
						}
						p.Columns[0] = dict
						got, err := e.runPipeline(p, rg[0], rg[1], 0)
						if err != nil || got != want {
							t.Fatalf("%s: rows %v: count %d, %v; want %d", name, rg, got, err, want)
						}
					}
				}
			}
		}
	}
}

// dpPrograms builds the programs over column 0 (the string column, filled
// in by the caller), column 1 (a BOOL keep column) and column 2 (row ids):
//
//	0: [FILTER keep] COLUMN s; pred -> b; project b (and s)
//	1: [FILTER keep] COLUMN s; pred -> b; FILTER b; second -> c; FILTER c; project ids
//	2: [FILTER keep] COLUMN s; pred -> b; second -> c; AND b c -> d; NOT d -> e; project b, c, e
//	3: [FILTER keep] COLUMN s; IS_NOT_NULL s -> b; FILTER b; pred -> c; FILTER c; IS_NULL s -> d; project ids, d
func dpPrograms(e *env, pr, second dpPred, keep, ids []val, withSel, alsoProject bool) []*device.Pipeline {
	cols := []device.Column{{}, e.putColumn(vcol{vt: device.VTBool, vals: keep}, colEnc{offset: 3}), e.putColumn(vcol{vt: device.VTI32, vals: ids}, colEnc{})}
	consts := append(append([]device.Const{}, pr.consts...), second.consts...)
	c2 := len(pr.consts)
	regs := []device.VType{device.VTBool, device.VTStr, device.VTBool, device.VTBool, device.VTBool, device.VTBool, device.VTI32}
	prefix := func() []device.Insn {
		var in []device.Insn
		if withSel {
			in = append(in, device.Insn{Op: device.KColumn, VType: device.VTBool, Dst: 0, P1: 1}, device.Insn{Op: device.KFilter, A: 0})
		}
		return append(in, device.Insn{Op: device.KColumn, VType: device.VTStr, Dst: 1, P1: 0})
	}
	p0 := &device.Pipeline{RegTypes: regs, Columns: append([]device.Column{}, cols...), Consts: consts,
		Insns: append(prefix(), pr.insn(0, 1, 2)), Sink: device.SinkProject, Project: []uint16{2}}
	if alsoProject {
		p0.Project = []uint16{2, 1}
	}
	p1 := &device.Pipeline{RegTypes: regs, Columns: append([]device.Column{}, cols...), Consts: consts,
		Insns: append(prefix(), pr.insn(0, 1, 2), device.Insn{Op: device.KFilter, A: 2}, second.insn(c2, 1, 3),
			device.Insn{Op: device.KFilter, A: 3}, device.Insn{Op: device.KColumn, VType: device.VTI32, Dst: 6, P1: 2}),
		Sink: device.SinkProject, Project: []uint16{6}}
	p2 := &device.Pipeline{RegTypes: regs, Columns: append([]device.Column{}, cols...), Consts: consts,
		Insns: append(prefix(), pr.insn(0, 1, 2), second.insn(c2, 1, 3), device.Insn{Op: device.KAnd, Dst: 4, A: 2, B: 3},
			device.Insn{Op: device.KNot, Dst: 5, A: 4}),
		Sink: device.SinkProject, Project: []uint16{2, 3, 5}}
	p3 := &device.Pipeline{RegTypes: regs, Columns: append([]device.Column{}, cols...), Consts: consts,
		Insns: append(prefix(), device.Insn{Op: device.KIsNotNull, VType: device.VTStr, Dst: 2, A: 1}, device.Insn{Op: device.KFilter, A: 2},
			pr.insn(0, 1, 3), device.Insn{Op: device.KFilter, A: 3}, device.Insn{Op: device.KIsNull, VType: device.VTStr, Dst: 4, A: 1},
			device.Insn{Op: device.KColumn, VType: device.VTI32, Dst: 6, P1: 2}),
		Sink: device.SinkProject, Project: []uint16{6, 4}}
	return []*device.Pipeline{p0, p1, p2, p3}
}

// TestPipelineDictPredsOff: with dictionary predicates switched off the
// same programs give the same results (the switch the benchmarks use).
func TestPipelineDictPredsOff(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 32<<20)
	r := rand.New(rand.NewPCG(5, 5))
	const rows = 9000
	pool := dpPool(300, false)
	vals := make([]val, rows)
	for i := range vals {
		if r.IntN(10) == 0 {
			vals[i] = nullV
		} else {
			vals[i] = val{s: pool[r.IntN(len(pool))]}
		}
	}
	keep, ids := make([]val, rows), make([]val, rows)
	for i := range keep {
		keep[i], ids[i] = boolV(i%3 != 0), val{i: int64(i)}
	}
	preds := dpPreds()
	dict := e.putColumn(vcol{vt: device.VTStr, vals: vals}, colEnc{dict: true, codes: 3, offset: 1})
	for pi, pr := range preds {
		for j, p := range dpPrograms(e, pr, preds[(pi+5)%len(preds)], keep, ids, pi%2 == 0, true) {
			p.Columns[0] = dict
			on, err := e.project(p, rows, 16*rows)
			if err != nil {
				t.Fatal(err)
			}
			was := soft.SetDictPreds(false)
			off, err := e.project(p, rows, 16*rows)
			soft.SetDictPreds(was)
			if err != nil {
				t.Fatal(err)
			}
			for c := range on {
				if i, ok := sameVals(on[c].vt, on[c].vals, off[c].vals); !ok {
					t.Fatalf("%s: program %d column %d: differs at row %d", pr.name, j, c, i)
				}
			}
		}
	}
}

// TestPipelineDictPredsBadCodes: a valid row whose code lies outside the
// dictionary is the same E_INVALID, naming the column and row, whether the
// predicate runs on the dictionary (the column then only checks its codes)
// or not; a null row's code is never used.
func TestPipelineDictPredsBadCodes(t *testing.T) {
	e := newEnv(t, "soft:memory=16MiB,mode=host-visible", 4<<20)
	preds := dpPreds()
	for codes := 0; codes < 4; codes++ {
		e.reset()
		vals := make([]val, 3000)
		pool := dpPool(7, false)
		for i := range vals {
			vals[i] = val{s: pool[i%7]}
		}
		vals[2500] = nullV
		col := e.putColumn(vcol{vt: device.VTStr, vals: vals}, colEnc{dict: true, codes: codes})
		keep, ids := make([]val, len(vals)), make([]val, len(vals))
		for i := range keep {
			keep[i], ids[i] = boolV(true), val{i: int64(i)}
		}
		for pi, pr := range preds {
			for j, p := range dpPrograms(e, pr, preds[(pi+1)%len(preds)], keep, ids, pi%2 == 1, pi%3 == 0) {
				p.Columns[0] = col
				p.Columns[0].DictLength = 6 // row 6 (code 6) and every 7th after it are out of range
				const want = "column 0 row 6: dictionary code 6 outside [0, 6)"
				_, on := e.project(p, len(vals), 16*len(vals))
				was := soft.SetDictPreds(false)
				_, off := e.project(p, len(vals), 16*len(vals))
				soft.SetDictPreds(was)
				if !errIs(on, device.ErrInvalid, want) || off == nil || on.Error() != off.Error() {
					t.Fatalf("codes %d %s program %d: %v (off: %v), want %q", codes, pr.name, j, on, off, want)
				}
				// a run over the null row 2500 alone, whose junk code lies
				// outside a one-entry dictionary
				p.Columns[0].Offset, p.Columns[0].Length = col.Offset+2500, 1
				for c := 1; c < len(p.Columns); c++ {
					p.Columns[c].Offset, p.Columns[c].Length = p.Columns[c].Offset+2500, 1
				}
				p.Columns[0].DictLength = 1
				if _, err := e.project(p, 1, 64); err != nil {
					t.Fatalf("codes %d %s program %d: a null row's code must not be read: %v", codes, pr.name, j, err)
				}
			}
		}
		// a negative code (all bits set, in the code's width) in valid row 3
		if codes == 2 {
			continue // uint8: no negative codes
		}
		w := map[int]int{0: 4, 1: 1, 3: 2}[codes]
		neg := make([]byte, w)
		for i := range neg {
			neg[i] = 0xff
		}
		e.write(col.Data+device.Addr(3*w), neg)
		for _, p := range dpPrograms(e, preds[0], preds[20], keep, ids, codes == 1, false) {
			p.Columns[0] = col
			_, on := e.project(p, len(vals), 16*len(vals))
			was := soft.SetDictPreds(false)
			_, off := e.project(p, len(vals), 16*len(vals))
			soft.SetDictPreds(was)
			if !errIs(on, device.ErrInvalid, "column 0 row 3: dictionary code -1 outside [0, 7)") || off == nil || on.Error() != off.Error() {
				t.Fatalf("codes %d: negative code: %v (off: %v)", codes, on, off)
			}
		}
	}
}

// BenchmarkPipelineDictPred: TPC-H Q19's string filters over 6M rows on
// one engine core, l_shipmode IN ('AIR', 'AIR REG') (7 entries) and
// l_shipinstruct = 'DELIVER IN PERSON' (4 entries), feeding a count: the
// columns as plain strings (what an expanding scan hands over), as
// dictionaries with the kernels run on the rows (dictionary predicates
// off), and as dictionaries with the predicates run on the dictionary,
// alternating in one run. Shapes: in (the IN and its FILTER), q19 (both
// filters), and (both predicates into BOOL registers, ANDed, one FILTER);
// codes uint8 or int32. Reports engine ms per run of each and the ratios.
func BenchmarkPipelineDictPred(b *testing.B) {
	for _, shape := range []string{"in", "q19", "and"} {
		for _, codes := range []int{2, 0} {
			b.Run(fmt.Sprintf("%s/codes%d", shape, codes), func(b *testing.B) { benchDictPred(b, shape, codes) })
		}
	}
}

func benchDictPred(b *testing.B, shape string, codes int) {
	const rows = 6_000_000
	e := newEnv(b, "soft:memory=480MiB,cores=1,mode=host-visible", 400<<20)
	r := rand.New(rand.NewPCG(19, 19))
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	instr := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	mk := func(dict []string) (plain, dcol device.Column) {
		code := make([]int, rows)
		le := binary.LittleEndian
		offs := make([]byte, 4*rows+4)
		var data []byte
		for i := range code {
			code[i] = r.IntN(len(dict))
			data = append(data, dict[code[i]]...)
			le.PutUint32(offs[4*i+4:], uint32(len(data)))
		}
		plain = device.Column{VType: device.VTStr, Length: rows, Offsets: e.put(offs), Data: e.put(append(data, 0))}
		cb, flags := dictCodes(colEnc{codes: codes}, code, len(dict))
		doffs := make([]byte, 4*len(dict)+4)
		var dd []byte
		for k, s := range dict {
			dd = append(dd, s...)
			le.PutUint32(doffs[4*k+4:], uint32(len(dd)))
		}
		dcol = device.Column{VType: device.VTStr, Flags: flags, Length: rows, Data: e.put(cb), DictOffsets: e.put(doffs),
			DictData: e.put(append(dd, 0)), DictLength: uint64(len(dict))}
		return plain, dcol
	}
	pm, dm := mk(modes)
	pi, di := mk(instr)
	S, B := device.VTStr, device.VTBool
	p := &device.Pipeline{
		RegTypes: []device.VType{S, B, S, B, B},
		Consts:   []device.Const{device.ConstStr("AIR"), device.ConstStr("AIR REG"), device.ConstStr("DELIVER IN PERSON")},
		Insns: []device.Insn{
			{Op: device.KColumn, VType: S, Dst: 0, P1: 0},
			{Op: device.KIn, VType: S, Dst: 1, A: 0, P1: 0, P2: 2},
			{Op: device.KFilter, A: 1},
		},
		Sink: device.SinkCount,
	}
	switch shape {
	case "q19":
		p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: S, Dst: 2, P1: 1},
			device.Insn{Op: device.KEq, VType: S, Flags: device.IfBConst, Dst: 3, A: 2, B: 2}, device.Insn{Op: device.KFilter, A: 3})
	case "and":
		p.Insns = []device.Insn{
			{Op: device.KColumn, VType: S, Dst: 0, P1: 0},
			{Op: device.KIn, VType: S, Dst: 1, A: 0, P1: 0, P2: 2},
			{Op: device.KColumn, VType: S, Dst: 2, P1: 1},
			{Op: device.KEq, VType: S, Flags: device.IfBConst, Dst: 3, A: 2, B: 2},
			{Op: device.KAnd, Dst: 4, A: 1, B: 3},
			{Op: device.KFilter, A: 4},
		}
	}
	variant := func(cols []device.Column) device.Op {
		p.Columns = cols
		desc, err := p.Encode()
		if err != nil {
			b.Fatal(err)
		}
		return device.Op{Code: device.OpPipeline, Src: e.put(desc), Len: uint64(len(desc)), Args: [4]uint64{0, rows}}
	}
	ops := []device.Op{variant([]device.Column{pm, pi}), variant([]device.Column{dm, di}), variant([]device.Column{dm, di})}
	var exec, cpu [3]time.Duration
	var want uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for v, op := range ops {
			was := soft.SetDictPreds(v == 2) // 0 plain, 1 dictionary with predicates off, 2 on
			cpu0 := processCPU()
			c := run(b, e.q, op)
			cpu[v] += processCPU() - cpu0
			soft.SetDictPreds(was)
			if c.Err != nil {
				b.Fatal(c.Err)
			}
			if i == 0 && v == 0 {
				want = c.Results[0]
			}
			if c.Results[0] != want {
				b.Fatalf("variant %d: count %d, want %d", v, c.Results[0], want)
			}
			exec[v] += c.Exec
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(exec[0]), "plain_ms/run")
	b.ReportMetric(ms(exec[1]), "dict_off_ms/run")
	b.ReportMetric(ms(exec[2]), "dict_on_ms/run")
	b.ReportMetric(ms(cpu[1]), "dict_off_cpu_ms/run")
	b.ReportMetric(ms(cpu[2]), "dict_on_cpu_ms/run")
	b.ReportMetric(float64(exec[1])/float64(exec[2]), "off/on")
	b.ReportMetric(float64(exec[0])/float64(exec[2]), "plain/on")
}
