package soft

import (
	"fmt"
	"testing"
)

// Runs mode (soft_agg_runs: a group per run of equal keys, no hash table)
// against the Go reference: a runs-mode state makes exactly one group per
// run of the selected rows (runs spanning vectors included); merged into
// a fresh state its groups give the reference's, in first-seen order; and
// a merge into a runs-mode state (which then builds its table) loses
// nothing. Keys in runs as lineitem's l_orderkey, or shuffled (every row
// its own run, mostly), with nulls and selections, every aggregate.
func TestAggRunsMode(t *testing.T) {
	d := aggDev(t, testMem)
	for _, vt := range []uint32{vtI32, vtI64} {
		for _, clustered := range []bool{true, false} {
			for _, sel := range []bool{false, true} {
				name := fmt.Sprintf("%s/clustered=%v/sel=%v", vtNames[vt], clustered, sel)
				t.Run(name, func(t *testing.T) {
					g := newAggGen(aggCase{keyVTs: []uint32{vt}, card: 8, nullRate: 0.05, sel: sel}, 5)
					a := mustCreate(t, d, g.spec, 0)
					defer a.free()
					b := mustCreate(t, d, g.spec, 0)
					defer b.free()
					a.runs()
					b.runs()
					// the reference: one reference state per run, in order, per state
					var pieces [2][]*refState
					next, left, null := int64(-3000), 0, false
					var runs [2]int
					var prev aggVal
					have := false
					const vectors = 24
					for v := range vectors {
						keys, args, args2, n, selv := g.vector()
						for i := range n {
							var x aggVal
							if clustered {
								if left == 0 {
									left, null = 1+g.rng.IntN(7), g.rng.IntN(30) == 0
									next += 1 + int64(g.rng.IntN(3))
								}
								left--
								x = aggVal{I: next, Null: null}
							} else {
								x = aggVal{I: int64(g.rng.IntN(3000)), Null: g.rng.IntN(40) == 0}
							}
							if vt == vtI32 {
								x.I = int64(int32(x.I))
							}
							keys[0].Vals[i] = x
						}
						s, half := a, 0
						if v >= vectors/2 {
							s, half = b, 1
							if v == vectors/2 {
								have = false // b's first run
							}
						}
						var seg []uint16 // the current run's rows in this vector
						flush := func() {
							if len(seg) > 0 {
								ps := pieces[half]
								ps[len(ps)-1].update(keys, args, args2, n, seg)
								seg = nil
							}
						}
						for _, i := range selRows(n, selv) {
							x := keys[0].Vals[i]
							if !have || x.Null != prev.Null || !x.Null && x.I != prev.I {
								flush()
								runs[half]++
								pieces[half] = append(pieces[half], newRef(g.spec))
							}
							seg = append(seg, uint16(i))
							prev, have = x, true
						}
						flush()
						if err := s.update(keys, args, args2, n, selv); err != nil {
							t.Fatalf("update: %v", err)
						}
					}
					// what the merges below do: b's runs into the first run of
					// their key in a (or after a's), then a's records in order
					// into a fresh state
					first := map[string]*refState{}
					as := pieces[0]
					for _, p := range as {
						k := encodeKeys(g.spec.Keys, p.groups[0].keys)
						if first[k] == nil {
							first[k] = p
						}
					}
					for _, p := range pieces[1] {
						k := encodeKeys(g.spec.Keys, p.groups[0].keys)
						if f := first[k]; f != nil {
							f.merge(p)
						} else {
							first[k] = p
							as = append(as, p)
						}
					}
					ref := newRef(g.spec)
					for _, p := range as {
						ref.merge(p)
					}
					for i, s := range []*hookState{a, b} {
						_, n, err := s.emit(outVTs(g.spec), uint64(runs[i]), 1<<20)
						if err != nil {
							t.Fatalf("emit: %v", err)
						}
						if n != uint64(runs[i]) {
							t.Fatalf("state %d: %d groups for %d runs", i, n, runs[i])
						}
					}
					// b into a (a leaves runs mode), then a into a fresh state
					if err := a.merge(b); err != nil {
						t.Fatalf("merge into a runs-mode state: %v", err)
					}
					c := mustCreate(t, d, g.spec, 0)
					defer c.free()
					if err := c.merge(a); err != nil {
						t.Fatalf("merge: %v", err)
					}
					checkEmit(t, c, ref, nil)
				})
			}
		}
	}
}
