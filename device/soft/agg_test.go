package soft

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

const testMem = 256 << 20

func aggCases() []aggCase {
	var cs []aggCase
	for _, vt := range keyTypes {
		cs = append(cs,
			aggCase{name: "key " + vtNames[vt] + " low card", keyVTs: []uint32{vt}, card: 5, nullRate: 0.1, vectors: 4},
			aggCase{name: "key " + vtNames[vt] + " high card", keyVTs: []uint32{vt}, card: 3000, nullRate: 0.1, sel: true, vectors: 4})
	}
	cs = append(cs,
		aggCase{name: "global", keyVTs: []uint32{}, nullRate: 0.1, vectors: 4},
		aggCase{name: "global all null sel", keyVTs: []uint32{}, nullRate: 1, sel: true, vectors: 3},
		aggCase{name: "random keys no nulls", card: 7, vectors: 4},
		aggCase{name: "random keys 10% nulls sel", card: 7, nullRate: 0.1, sel: true, vectors: 4},
		aggCase{name: "random keys all null", card: 7, nullRate: 1, vectors: 3},
		aggCase{name: "random keys high card", card: 500, nullRate: 0.1, vectors: 4},
		aggCase{name: "dense I32 x STR", keyVTs: []uint32{vtI32, vtStr}, card: 6, domain: true, nullRate: 0.1, vectors: 4},
		aggCase{name: "dense I32 x STR no nulls sel", keyVTs: []uint32{vtI32, vtStr}, card: 6, domain: true, sel: true, vectors: 4},
		aggCase{name: "dense STR x STR (Q1 shape)", keyVTs: []uint32{vtStr, vtStr}, card: 3, domain: true, vectors: 4},
		aggCase{name: "Q1 shape twins", keyVTs: []uint32{vtStr, vtStr}, card: 3, twins: true, vectors: 6},
		aggCase{name: "Q1 shape twins nulls sel small", keyVTs: []uint32{vtStr, vtStr}, card: 3, nullRate: 0.1, sel: true, small: true, twins: true, vectors: 6},
		aggCase{name: "global twins", keyVTs: []uint32{}, nullRate: 0.05, twins: true, vectors: 6},
		aggCase{name: "Q16 shape: STR x STR x I32 x I64 many groups", keyVTs: []uint32{vtStr, vtStr, vtI32, vtI64}, card: 4000, nullRate: 0.05, sel: true, vectors: 5},
		aggCase{name: "dense 4 keys", keyVTs: []uint32{vtI32, vtBool, vtI64, vtStr}, card: 9, domain: true, nullRate: 0.1, vectors: 4},
		aggCase{name: "dense large single key", keyVTs: []uint32{vtI32}, card: 60000, domain: true, nullRate: 0.01, vectors: 4},
		aggCase{name: "domain too large: hashed", keyVTs: []uint32{vtI32, vtI64}, card: 400, domain: true, vectors: 3},
		aggCase{name: "dense out of domain I32", keyVTs: []uint32{vtI32, vtStr}, card: 5, domain: true, outOfDom: 0.0005, nullRate: 0.1, vectors: 6},
		aggCase{name: "dense out of domain STR", keyVTs: []uint32{vtStr}, card: 4, domain: true, outOfDom: 0.001, sel: true, vectors: 6},
		aggCase{name: "dense out of domain often", keyVTs: []uint32{vtI64, vtStr}, card: 3, domain: true, outOfDom: 0.2, nullRate: 0.1, vectors: 4},
		aggCase{name: "domain with float key: hashed", keyVTs: []uint32{vtI32, vtF64}, card: 6, domain: true, vectors: 3},
	)
	return cs
}

func TestAggAgainstReference(t *testing.T) {
	d := aggDev(t, testMem)
	for _, c := range aggCases() {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", c.name, seed), func(t *testing.T) {
				g := newAggGen(c, seed)
				s := mustCreate(t, d, g.spec, 0)
				defer s.free()
				ref := newRef(g.spec)
				for range c.vectors {
					keys, args, args2, n, sel := g.vector()
					if err := s.update(keys, args, args2, n, sel); err != nil {
						t.Fatalf("update: %v", err)
					}
					ref.update(keys, args, args2, n, sel)
				}
				checkEmit(t, s, ref, nil)
			})
		}
	}
}

// orderDependent says whether output column c may depend on the order in
// which partial results are combined: double sums, and decimal sums when
// the input can overflow (an intermediate overflow is final).
func orderDependent(spec hookSpec, small bool) func(int) bool {
	return func(c int) bool {
		c -= len(spec.Keys)
		for _, a := range spec.Aggs {
			dec := a.Func == aggSum && a.Flags&aggfDecimal != 0
			if c == 0 || c == 1 && dec {
				return a.Func == aggSum && a.In == vtF64 || dec && !small
			}
			c--
			if a.Func == aggFirst || dec {
				c--
			}
		}
		return false
	}
}

// Partials merged in order equal one pass over all the input (doubles
// sums: equal to the reference merged in the same order).
func TestAggMergeEqualsOnePass(t *testing.T) {
	d := aggDev(t, testMem)
	for i, c := range aggCases() {
		seed := uint64(3 + i%2) // one seed a case; even seeds: no overflow, decimal sums compared too
		{
			t.Run(fmt.Sprintf("%s/seed%d", c.name, seed), func(t *testing.T) {
				c.small = seed%2 == 0
				g := newAggGen(c, seed)
				parts := 2 + int(seed%3)
				one := newRef(g.spec)
				var refs []*refState
				var states []*hookState
				for range parts {
					s := mustCreate(t, d, g.spec, 0)
					defer s.free()
					states = append(states, s)
					refs = append(refs, newRef(g.spec))
				}
				vectors := c.vectors + 2
				for v := range vectors {
					p := min(v*parts/vectors, parts-1) // contiguous parts, so first-seen order is one pass's
					keys, args, args2, n, sel := g.vector()
					if err := states[p].update(keys, args, args2, n, sel); err != nil {
						t.Fatalf("update: %v", err)
					}
					refs[p].update(keys, args, args2, n, sel)
					one.update(keys, args, args2, n, sel)
				}
				for p := 1; p < parts; p++ {
					if err := states[0].merge(states[p]); err != nil {
						t.Fatalf("merge: %v", err)
					}
					refs[0].merge(refs[p])
				}
				checkEmit(t, states[0], refs[0], nil)
				checkEmit(t, states[0], one, orderDependent(g.spec, c.small))
				// the sources are unchanged
				checkEmit(t, states[1], refs[1], nil)
			})
		}
	}
}

// Merging into a perfect-hash state a source with out-of-domain groups
// switches the destination to hashing.
func TestAggMergeLeavesPerfectHashing(t *testing.T) {
	d := aggDev(t, testMem)
	dense := aggCase{keyVTs: []uint32{vtI32, vtStr}, card: 4, domain: true, nullRate: 0.1, vectors: 2}
	g := newAggGen(dense, 9)
	a := mustCreate(t, d, g.spec, 0)
	defer a.free()
	b := mustCreate(t, d, g.spec, 0)
	defer b.free()
	ra, rb := newRef(g.spec), newRef(g.spec)
	for i := range 4 {
		g.c.outOfDom = 0
		if i%2 == 1 {
			g.c.outOfDom = 0.3
		}
		keys, args, args2, n, sel := g.vector()
		s, r := a, ra
		if i%2 == 1 {
			s, r = b, rb
		}
		if err := s.update(keys, args, args2, n, sel); err != nil {
			t.Fatal(err)
		}
		r.update(keys, args, args2, n, sel)
	}
	if err := a.merge(b); err != nil {
		t.Fatal(err)
	}
	ra.merge(rb)
	checkEmit(t, a, ra, nil)
}

func TestAggGlobalEmptyInput(t *testing.T) {
	d := aggDev(t, testMem)
	spec := hookSpec{Aggs: aggTemplates()}
	s := mustCreate(t, d, spec, 0)
	defer s.free()
	ref := newRef(spec)
	args, args2 := make([]hookCol, len(spec.Aggs)), make([]hookCol, len(spec.Aggs))
	for j, a := range spec.Aggs {
		if a.Arg != noReg {
			args[j].VT = a.In
		}
		if needsArg2(a) {
			args2[j].VT = vtBool
		}
	}
	if err := s.update(nil, args, args2, 0, nil); err != nil {
		t.Fatal(err)
	}
	checkEmit(t, s, ref, nil)
	cols, n, err := s.emit(outVTs(spec), 1, 0)
	if err != nil || n != 1 {
		t.Fatalf("emit: %d groups, %v; want 1", n, err)
	}
	if !cols[0].Vals[0].Null && cols[0].Vals[0].I != 0 {
		t.Errorf("count(*) of no rows = %+v, want 0", cols[0].Vals[0])
	}
	// a keyed aggregation with no input has no groups
	keyed := mustCreate(t, d, hookSpec{Keys: []uint32{vtI64}, Aggs: spec.Aggs}, 0)
	defer keyed.free()
	if _, n, err := keyed.emit(outVTs(hookSpec{Keys: []uint32{vtI64}, Aggs: spec.Aggs}), 4, 16); err != nil || n != 0 {
		t.Fatalf("emit of an empty keyed state: %d groups, %v", n, err)
	}
}

func wantStatus(t *testing.T, err error, status int, msg string) {
	t.Helper()
	var he *hookError
	if !errors.As(err, &he) || he.Status != status {
		t.Fatalf("error %v, want status %d", err, status)
	}
	if !strings.Contains(he.Msg, msg) {
		t.Fatalf("message %q does not mention %q", he.Msg, msg)
	}
}

func TestAggEmitCapacity(t *testing.T) {
	d := aggDev(t, testMem)
	g := newAggGen(aggCase{keyVTs: []uint32{vtStr, vtI64}, card: 20, nullRate: 0.1, vectors: 2}, 5)
	s := mustCreate(t, d, g.spec, 0)
	defer s.free()
	ref := newRef(g.spec)
	for range 2 {
		keys, args, args2, n, sel := g.vector()
		if err := s.update(keys, args, args2, n, sel); err != nil {
			t.Fatal(err)
		}
		ref.update(keys, args, args2, n, sel)
	}
	groups := uint64(len(ref.groups))
	need := strBytes(ref.columns())
	_, n, err := s.emit(outVTs(g.spec), groups-1, need)
	wantStatus(t, err, statusNoMem, fmt.Sprintf("%d groups, capacity %d rows", groups, groups-1))
	if n != groups {
		t.Errorf("E_NOMEM reports %d groups needed, want %d", n, groups)
	}
	_, n, err = s.emit(outVTs(g.spec), groups, need-1)
	wantStatus(t, err, statusNoMem, "bytes")
	if n != groups {
		t.Errorf("E_NOMEM reports %d groups needed, want %d", n, groups)
	}
	vts := outVTs(g.spec)
	vts[1] = vtI32
	_, _, err = s.emit(vts, groups, need)
	wantStatus(t, err, statusInvalid, "output column 1 is I32")
	_, _, err = s.emit(vts[:3], groups, need)
	wantStatus(t, err, statusInvalid, "output columns")
	checkEmit(t, s, ref, nil) // emit does not change the state
}

// A budget too small for the input fails the update with E_NOMEM naming
// the bytes, and leaves the state as it was before that update.
func TestAggBudget(t *testing.T) {
	d := aggDev(t, testMem)
	for _, c := range []aggCase{
		{name: "hash", keyVTs: []uint32{vtI64, vtStr}, card: 100000, nullRate: 0.05},
		{name: "hash one int key", keyVTs: []uint32{vtI64}, card: 100000, nullRate: 0.05, sel: true},
		{name: "hash one I32 key", keyVTs: []uint32{vtI32}, card: 100000, nullRate: 0.05},
		{name: "perfect", keyVTs: []uint32{vtI32}, card: 60000, domain: true},
		{name: "perfect then out of domain", keyVTs: []uint32{vtI32}, card: 60000, domain: true, outOfDom: 0.01},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newAggGen(c, 11)
			const budget = 3 << 20
			s := mustCreate(t, d, g.spec, budget)
			defer s.free()
			ref := newRef(g.spec)
			failed := false
			for v := 0; v < 200 && !failed; v++ {
				keys, args, args2, n, sel := g.vector()
				err := s.update(keys, args, args2, n, sel)
				if err != nil {
					wantStatus(t, err, statusNoMem, fmt.Sprintf("budget of %d bytes", budget))
					failed = true
					break
				}
				ref.update(keys, args, args2, n, sel)
			}
			if !failed {
				t.Fatal("the budget was never exceeded")
			}
			checkEmit(t, s, ref, nil)
			// and the state still works
			keys, args, args2, _, _ := g.vector()
			for i := range keys {
				keys[i].Vals = keys[i].Vals[:1]
				keys[i].Vals[0] = ref.groups[0].keys[i]
			}
			for i := range args {
				if args[i].VT != 0 {
					args[i].Vals = args[i].Vals[:1]
				}
				if args2[i].VT != 0 {
					args2[i].Vals = args2[i].Vals[:1]
				}
			}
			if err := s.update(keys, args, args2, 1, nil); err != nil {
				t.Fatalf("update of an existing group after E_NOMEM: %v", err)
			}
			ref.update(keys, args, args2, 1, nil)
			checkEmit(t, s, ref, nil)
		})
	}
	if _, err := d.create(hookSpec{Keys: []uint32{vtI64}}, 1000); err == nil {
		t.Fatal("create within 1000 bytes succeeded")
	} else {
		wantStatus(t, err, statusNoMem, "budget of 1000 bytes")
	}
}

// Merge into a state whose budget cannot hold the union fails and leaves
// the destination unchanged.
func TestAggMergeBudget(t *testing.T) {
	d := aggDev(t, testMem)
	g := newAggGen(aggCase{keyVTs: []uint32{vtI64}, card: 200000}, 12)
	small := mustCreate(t, d, g.spec, 2<<20)
	defer small.free()
	big := mustCreate(t, d, g.spec, 0)
	defer big.free()
	ref := newRef(g.spec)
	keys, args, args2, n, sel := g.vector()
	if err := small.update(keys, args, args2, n, sel); err != nil {
		t.Fatal(err)
	}
	ref.update(keys, args, args2, n, sel)
	for range 20 {
		keys, args, args2, n, sel := g.vector()
		if err := big.update(keys, args, args2, n, sel); err != nil {
			t.Fatal(err)
		}
	}
	wantStatus(t, small.merge(big), statusNoMem, "budget")
	checkEmit(t, small, ref, nil)
}

func TestAggSpecErrors(t *testing.T) {
	d := aggDev(t, testMem)
	for _, c := range []struct {
		name string
		spec hookSpec
		msg  string
	}{
		{"bad key type", hookSpec{Keys: []uint32{9}}, "key 0: unknown value type 9"},
		{"too many keys", hookSpec{Keys: make([]uint32, 17)}, "17 keys"},
		{"bad func", hookSpec{Aggs: []hookAgg{{Func: 9, In: vtI64, Out: vtI64}}}, "aggregate 0: unknown function 9"},
		{"bad flags", hookSpec{Aggs: []hookAgg{{Func: aggSum, Flags: 64, In: vtI64, Out: vtI64}}}, "unknown flags"},
		{"bad register", hookSpec{Aggs: []hookAgg{{Func: aggSum, Arg: 64, In: vtI64, Out: vtI64}}}, "register 64 out of range"},
		{"sum of strings", hookSpec{Aggs: []hookAgg{{Func: aggSum, In: vtStr, Out: vtI64}}}, "not summable"},
		{"sum I64 to F64", hookSpec{Aggs: []hookAgg{{Func: aggSum, In: vtI64, Out: vtF64}}}, "want I64"},
		{"decimal sum of F64", hookSpec{Aggs: []hookAgg{{Func: aggSum, Flags: aggfDecimal, In: vtF64, Out: vtI128}}}, "decimal sums"},
		{"min changes type", hookSpec{Aggs: []hookAgg{{Func: aggMin, In: vtI32, Out: vtI64}}}, "differs"},
		{"count to I32", hookSpec{Aggs: []hookAgg{{Func: aggCount, Arg: noReg, Out: vtI32}}}, "want I64"},
		{"merge count of rows", hookSpec{Aggs: []hookAgg{{Func: aggCount, Flags: aggfMerge, Arg: noReg, Out: vtI64}}}, "partial counts"},
		{"merge first without arg2", hookSpec{Aggs: []hookAgg{{Func: aggFirst, Flags: aggfMerge, Arg2: 99, In: vtI64, Out: vtI64}}}, "valueSet register 99"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := d.create(c.spec, 0)
			wantStatus(t, err, statusInvalid, c.msg)
		})
	}
}

func TestAggUpdateErrors(t *testing.T) {
	d := aggDev(t, testMem)
	spec := hookSpec{Keys: []uint32{vtI64}, Aggs: []hookAgg{{Func: aggSum, Arg: 1, In: vtI64, Out: vtI64},
		{Func: aggFirst, Flags: aggfMerge, Arg: 2, Arg2: 3, In: vtI32, Out: vtI32}}}
	s := mustCreate(t, d, spec, 0)
	defer s.free()
	col := func(vt uint32, n int) hookCol { return hookCol{VT: vt, Vals: make([]aggVal, n)} }
	ok := func() ([]hookCol, []hookCol, []hookCol) {
		return []hookCol{col(vtI64, 4)}, []hookCol{col(vtI64, 4), col(vtI32, 4)}, []hookCol{{}, col(vtBool, 4)}
	}
	k, a, a2 := ok()
	if err := s.update(k, a, a2, 4, nil); err != nil {
		t.Fatal(err)
	}
	k[0] = col(vtI32, 4)
	wantStatus(t, s.update(k, a, a2, 4, nil), statusInvalid, "key 0 is I32, the spec says I64")
	k, a, a2 = ok()
	a[1] = hookCol{}
	wantStatus(t, s.update(k, a, a2, 4, nil), statusInvalid, "aggregate input 1 has no register")
	k, a, a2 = ok()
	a2[1] = col(vtI64, 4)
	wantStatus(t, s.update(k, a, a2, 4, nil), statusInvalid, "second input 1 is I64")
	k, a, a2 = ok()
	wantStatus(t, s.update(k, a, a2, 4, []uint16{0, 4}), statusInvalid, "selected row 4")
	wantStatus(t, s.update(k, a, a2, 4, []uint16{0, 1, 2, 3, 3}), statusInvalid, "5 selected rows of 4")
	other := mustCreate(t, d, hookSpec{Keys: []uint32{vtI32}}, 0)
	defer other.free()
	wantStatus(t, s.merge(other), statusInvalid, "different specs")
	wantStatus(t, s.merge(s), statusInvalid, "into itself")
}

// shortStringKeys returns strings of every length 0..40 over a small
// alphabet, and for each one the variants that differ from it in exactly
// one byte: the cases where a fixed-width hash or compare of short strings
// (first/middle/last bytes, overlapping words) could confuse two keys.
func shortStringKeys() []string {
	var out []string
	for n := 0; n <= 40; n++ {
		base := []byte(strings.Repeat("a\x00", 21)[:n])
		out = append(out, string(base))
		for i := range n {
			v := []byte(string(base))
			v[i] ^= 0x80
			out = append(out, string(v))
		}
	}
	return out
}

// TestAggUnhintedKeyEdges: unhinted (hashed) keys whose values are close
// to each other, in vectors where each row's bytes are shared (dictionary
// views) or its own, with and without a selection, against the reference.
func TestAggUnhintedKeyEdges(t *testing.T) {
	strs := shortStringKeys()
	aggs := []hookAgg{{Func: aggCount, Arg: noReg, Out: vtI64}, {Func: aggSum, Arg: 1, In: vtI64, Out: vtI64}}
	cases := []struct {
		name string
		keys []uint32
		val  func(k, i int) aggVal
	}{
		{"short strings", []uint32{vtStr}, func(k, i int) aggVal { return aggVal{S: strs[i%len(strs)]} }},
		{"short string pairs", []uint32{vtStr, vtStr}, func(k, i int) aggVal { return aggVal{S: strs[(i*(k+3))%len(strs)]} }},
		{"few strings with nulls", []uint32{vtStr, vtStr}, func(k, i int) aggVal {
			return aggVal{S: []string{"A", "N", "R", ""}[(i*(k+1))%4], Null: (i*(k+5))%7 == 0}
		}},
		{"few ints with nulls", []uint32{vtI64, vtI32}, func(k, i int) aggVal {
			return aggVal{I: int64((i * (k + 1)) % 5), Null: (i*(k+5))%9 == 0}
		}},
		{"doubles", []uint32{vtF64}, func(k, i int) aggVal {
			return aggVal{F: []float64{math.NaN(), -math.NaN(), math.Copysign(0, -1), 0, 1, math.Inf(-1)}[i%6]}
		}},
		// key codes (fast_codes) hold for the first vectors, then a column
		// outgrows its codes or a string its word: the state goes on hashing
		{"few then many ints", []uint32{vtStr, vtI32}, func(k, i int) aggVal {
			if k == 0 {
				return aggVal{S: []string{"A", "N", "R"}[i%3], Null: i%11 == 0}
			}
			if i < 2749 {
				return aggVal{I: int64(i % 4), Null: i%13 == 0}
			}
			return aggVal{I: int64(i % 100)}
		}},
		{"one key up to its code limit", []uint32{vtI64}, func(k, i int) aggVal {
			if i < 4797 {
				return aggVal{I: int64(i%255) - 100, Null: i%17 == 0}
			}
			return aggVal{I: int64(i % 300)}
		}},
		{"short then long strings", []uint32{vtStr, vtStr}, func(k, i int) aggVal {
			if k == 1 && i >= 2749 && i%5 == 0 {
				return aggVal{S: "12345678"}
			}
			return aggVal{S: []string{"", "x", "abcd", "abcdefg", "abcdefG"}[(i*(k+1))%5]}
		}},
		// one-byte strings (the str1 hint without interning): byte codes
		// cached per key, then vectors without the hint (a two-byte
		// string) whose codes must agree, then more bytes than codes
		{"one-byte strings with nulls", []uint32{vtStr, vtStr}, func(k, i int) aggVal {
			return aggVal{S: []string{"A", "N", "R", "F", "\x00", "\xff"}[(i*(k+1))%6], Null: (i*(k+5))%7 == 0}
		}},
		{"one-byte then two-byte strings", []uint32{vtStr, vtStr}, func(k, i int) aggVal {
			if k == 1 && i >= 2749 && i < 6845 && i%7 == 0 {
				return aggVal{S: "AB"}
			}
			return aggVal{S: []string{"A", "N", "R", "F"}[(i*(k+1))%4]}
		}},
		{"one-byte strings up to the code limit", []uint32{vtStr, vtStr}, func(k, i int) aggVal {
			if k == 0 && i >= 4797 {
				return aggVal{S: string(rune('0' + i%40))}
			}
			return aggVal{S: string(rune('a' + (i*(k+1))%5)), Null: i%13 == 0}
		}},
		{"bools and wide", []uint32{vtBool, vtI128}, func(k, i int) aggVal {
			if k == 0 {
				return aggVal{I: int64(i % 2)}
			}
			return aggVal{W: i128{Hi: int64(i % 3), Lo: uint64(i % 2)}}
		}},
	}
	d := aggDev(t, testMem)
	for _, c := range cases {
		for _, intern := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/intern=%v", c.name, intern), func(t *testing.T) {
				spec := hookSpec{Keys: c.keys, Aggs: aggs}
				s := mustCreate(t, d, spec, 0)
				defer s.free()
				ref := newRef(spec)
				row := 0
				for v, n := range []int{2048, 1, 700, 2048, 2048} {
					keys := make([]hookCol, len(c.keys))
					for k, vt := range c.keys {
						keys[k] = hookCol{VT: vt, Vals: make([]aggVal, n), Intern: intern}
						for i := range n {
							keys[k].Vals[i] = c.val(k, row+i)
						}
					}
					arg := hookCol{VT: vtI64, Vals: make([]aggVal, n)}
					for i := range n {
						arg.Vals[i].I = int64(row + i)
					}
					var sel []uint16
					if v == 3 {
						for i := 0; i < n; i += 3 {
							sel = append(sel, uint16(i))
						}
					}
					args := []hookCol{{}, arg}
					if err := s.update(keys, args, make([]hookCol, 2), n, sel); err != nil {
						t.Fatalf("update: %v", err)
					}
					ref.update(keys, args, make([]hookCol, 2), n, sel)
					row += n
				}
				checkEmit(t, s, ref, nil)
			})
		}
	}
}
