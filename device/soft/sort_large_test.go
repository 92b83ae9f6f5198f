package soft_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hados-io/hados/device"
)

// TestSortOpLarge sorts ranges large enough for the radix sort's most
// significant byte first splitting (records beyond a core's cache) and
// compares with the reference stable sort: random and low-cardinality
// keys (long runs of equal records, constant leading bytes), nulls, every
// ASC/DESC x NULLS FIRST/LAST, one or two keys.
func TestSortOpLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large sorts in -short mode")
	}
	e := newEnv(t, "soft:memory=256MiB,cores=1", 200<<20)
	const n = 120_000
	for seed := 0; seed < 8; seed++ {
		e.reset()
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		nk := 1 + seed%2
		var keys []vcol
		var cols []device.Column
		var flags []uint32
		var desc []string
		for k := 0; k < nk; k++ {
			vt := allVTypes[(seed+3*k)%len(allVTypes)]
			c := randVCol(r, vt, n, []float64{0, 0.1}[seed/2%2])
			if seed%4 == 3 {
				c = lowCard(r, c)
			}
			encs := encodingsOf(vt)
			enc := encs[r.IntN(len(encs))]
			keys = append(keys, c)
			cols = append(cols, e.putColumn(c, enc))
			f := uint32(seed % 4)
			flags = append(flags, f)
			desc = append(desc, fmt.Sprintf("%v%+v/f%d", vt, enc, f))
		}
		da, dl := e.sortDesc(cols, flags, n)
		got, err := e.runSort(da, dl, 0, n, 0)
		if err != nil {
			t.Fatalf("seed %d %v: %v", seed, desc, err)
		}
		if err := sameRows(got, refSort(keys, flags, 0, n)); err != nil {
			t.Fatalf("seed %d: keys %v: %v", seed, desc, err)
		}
	}
}

// TestSortOpHeapScratch sorts a range whose radix scratch is large enough
// to come from the top of the device heap (SORT_HEAP_SCRATCH), twice, with
// device memory allocated at the bottom in between, and compares with the
// reference stable sort.
func TestSortOpHeapScratch(t *testing.T) {
	if testing.Short() {
		t.Skip("large sorts in -short mode")
	}
	e := newEnv(t, "soft:memory=256MiB,cores=1", 200<<20)
	const n = 400_000
	r := rand.New(rand.NewPCG(3, 9))
	keys := []vcol{randVCol(r, device.VTStr, n, 0.05), randVCol(r, device.VTI64, n, 0)}
	flags := []uint32{0, 1}
	cols := []device.Column{e.putColumn(keys[0], colEnc{}), e.putColumn(keys[1], colEnc{})}
	da, dl := e.sortDesc(cols, flags, n)
	want := refSort(keys, flags, 0, n)
	for i := 0; i < 2; i++ {
		got, err := e.runSort(da, dl, 0, n, 0)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if err := sameRows(got, want); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		e.put(make([]byte, 1<<20))
	}
}
