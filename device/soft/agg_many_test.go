package soft

import (
	"fmt"
	"testing"
)

// Many groups of one integer key (the key1 path of soft_agg.c: runs of one
// key, leaders probed, tag-only candidates verified, new keys inserted in
// row order), against the Go reference: keys in runs as lineitem's
// l_orderkey arrives (ascending, 1..7 rows each, null runs), or shuffled,
// with nulls and selections, over enough vectors that the table grows
// several times (4x while small, then 2x).
func TestAggOneIntKeyManyGroups(t *testing.T) {
	d := aggDev(t, testMem)
	for _, vt := range []uint32{vtI32, vtI64} {
		for _, runs := range []bool{true, false} {
			for _, sel := range []bool{false, true} {
				name := fmt.Sprintf("%s/runs=%v/sel=%v", vtNames[vt], runs, sel)
				t.Run(name, func(t *testing.T) {
					g := newAggGen(aggCase{keyVTs: []uint32{vt}, card: 8, nullRate: 0.05, sel: sel}, 21)
					s := mustCreate(t, d, g.spec, 0)
					defer s.free()
					ref := newRef(g.spec)
					next, left, null := int64(-5000), 0, false
					vectors := 90
					if !runs {
						vectors = 40
					}
					for range vectors {
						keys, args, args2, n, selv := g.vector()
						for i := range n {
							var v aggVal
							if runs {
								if left == 0 {
									left, null = 1+g.rng.IntN(7), g.rng.IntN(50) == 0
									next += 1 + int64(g.rng.IntN(3))
								}
								left--
								v = aggVal{I: next, Null: null}
							} else {
								v = aggVal{I: int64(g.rng.IntN(120000)) - 60000, Null: g.rng.IntN(40) == 0}
							}
							if vt == vtI32 {
								v.I = int64(int32(v.I))
							} else if !v.Null && g.rng.IntN(2) == 0 {
								v.I = v.I<<33 | v.I&0xff // high bits differ, low ones repeat
							}
							keys[0].Vals[i] = v
						}
						if err := s.update(keys, args, args2, n, selv); err != nil {
							t.Fatalf("update: %v", err)
						}
						ref.update(keys, args, args2, n, selv)
					}
					if len(ref.groups) < 10000 {
						t.Fatalf("only %d groups: the test does not reach many groups", len(ref.groups))
					}
					checkEmit(t, s, ref, nil)
				})
			}
		}
	}
}
