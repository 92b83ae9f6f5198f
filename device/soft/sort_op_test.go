package soft_test

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// refCmp compares two values of one key as Spark's SortOrder does.
func refCmp(vt device.VType, a, b val, flags uint32) int {
	if a.null || b.null {
		if a.null == b.null {
			return 0
		}
		r := 1
		if a.null {
			r = -1
		}
		if flags&device.SortNullsFirst == 0 {
			r = -r
		}
		return r
	}
	var r int
	switch vt {
	case device.VTF64:
		na, nb := math.IsNaN(a.f), math.IsNaN(b.f)
		switch {
		case na || nb:
			r = b2i(na) - b2i(nb)
		case a.f < b.f:
			r = -1
		case a.f > b.f:
			r = 1
		}
	case device.VTI128:
		r = a.x.Cmp(b.x)
	case device.VTStr:
		r = strings.Compare(a.s, b.s)
	default:
		r = cmp.Compare(a.i, b.i)
	}
	if flags&device.SortDesc != 0 {
		r = -r
	}
	return r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// refSort is the reference order of rows [first, end): a stable sort by
// every key.
func refSort(keys []vcol, flags []uint32, first, end int) []int32 {
	rows := make([]int32, 0, end-first)
	for r := first; r < end; r++ {
		rows = append(rows, int32(r))
	}
	sort.SliceStable(rows, func(i, j int) bool {
		for k, c := range keys {
			if r := refCmp(c.vt, c.vals[rows[i]], c.vals[rows[j]], flags[k]); r != 0 {
				return r < 0
			}
		}
		return false
	})
	return rows
}

func (e *env) sortDesc(cols []device.Column, flags []uint32, rows int) (device.Addr, uint64) {
	e.t.Helper()
	s := &device.Sort{Rows: uint64(rows)}
	for i, c := range cols {
		s.Keys = append(s.Keys, device.SortKey{Column: c, Flags: flags[i]})
	}
	desc, err := s.Encode()
	if err != nil {
		e.t.Fatal(err)
	}
	return e.put(desc), uint64(len(desc))
}

func (e *env) readI32s(a device.Addr, n int) []int32 {
	b := e.read(a, uint64(4*n))
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func (e *env) putI32s(v []int32) device.Addr {
	b := make([]byte, 4*len(v)+4)
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return e.put(b)
}

// runSort sorts rows [first, end) with a limit and returns the order.
func (e *env) runSort(da device.Addr, dl uint64, first, end, limit int) ([]int32, error) {
	want := end - first
	if limit > 0 && limit < want {
		want = limit
	}
	out := e.alloc(uint64(4*want + 4))
	c := run(e.t, e.q, device.Op{Code: device.OpSort, Src: da, Len: dl, Dst: out, Args: [4]uint64{uint64(first), uint64(end), uint64(limit)}})
	if c.Err != nil {
		return nil, c.Err
	}
	if c.Results[0] != uint64(want) {
		e.t.Fatalf("sort result %d, want %d", c.Results[0], want)
	}
	return e.readI32s(out, want), nil
}

func sameRows(got, want []int32) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("position %d: row %d, want %d (got %v, want %v)", i, got[i], want[i], got[max(0, i-3):min(len(got), i+4)], want[max(0, i-3):min(len(want), i+4)])
		}
	}
	return nil
}

// lowCard makes a column with few distinct values (many ties).
func lowCard(r *rand.Rand, c vcol) vcol {
	if len(c.vals) == 0 {
		return c
	}
	pool := c.vals[:min(len(c.vals), 3)]
	for i := range c.vals {
		c.vals[i] = pool[r.IntN(len(pool))]
	}
	return c
}

// TestSortOp sorts random columns of every type and layout, one to three
// keys, every ASC/DESC x NULLS FIRST/LAST, with ties, sub-ranges and
// limits, and compares with the reference stable sort; then merges two
// sorted halves.
func TestSortOp(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,cores=1", 48<<20)
	for seed := 0; seed < 300; seed++ {
		e.reset()
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		n := []int{0, 1, 2, 17, 200, 3000}[seed%6]
		nk := 1 + r.IntN(3)
		var keys []vcol
		var cols []device.Column
		var flags []uint32
		var desc []string
		for k := 0; k < nk; k++ {
			vt := allVTypes[r.IntN(len(allVTypes))]
			c := randVCol(r, vt, n, []float64{0, 0.1, 0.5}[r.IntN(3)])
			if r.IntN(2) == 0 {
				c = lowCard(r, c)
			}
			encs := encodingsOf(vt)
			enc := encs[r.IntN(len(encs))]
			keys = append(keys, c)
			cols = append(cols, e.putColumn(c, enc))
			f := uint32(r.IntN(4))
			flags = append(flags, f)
			desc = append(desc, fmt.Sprintf("%v%+v/f%d", vt, enc, f))
		}
		da, dl := e.sortDesc(cols, flags, n)
		first, end := 0, n
		if n > 2 && r.IntN(3) == 0 {
			first = r.IntN(n / 2)
			end = first + r.IntN(n-first) + 1
		}
		limit := 0
		if r.IntN(3) == 0 {
			limit = 1 + r.IntN(max(1, (end-first)/5+1))
		}
		got, err := e.runSort(da, dl, first, end, limit)
		if err != nil {
			t.Fatalf("seed %d %v: %v", seed, desc, err)
		}
		want := refSort(keys, flags, first, end)
		if limit > 0 && limit < len(want) {
			want = want[:limit]
		}
		if err := sameRows(got, want); err != nil {
			t.Fatalf("seed %d: %d rows [%d,%d) limit %d keys %v: %v", seed, n, first, end, limit, desc, err)
		}
		if n < 4 || limit > 0 {
			continue
		}
		// MERGE two sorted halves back into the whole order.
		h := (first + end) / 2
		a, err := e.runSort(da, dl, first, h, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.runSort(da, dl, h, end, 0)
		if err != nil {
			t.Fatal(err)
		}
		aa, ba, out := e.putI32s(a), e.putI32s(b), e.alloc(uint64(4*(end-first)+4))
		c := run(t, e.q, device.Op{Code: device.OpMerge, Src: da, Len: dl, Dst: out, Args: [4]uint64{uint64(aa), uint64(len(a)), uint64(ba), uint64(len(b))}})
		if c.Err != nil {
			t.Fatalf("seed %d merge: %v", seed, c.Err)
		}
		if err := sameRows(e.readI32s(out, end-first), want); err != nil {
			t.Fatalf("seed %d merge: keys %v: %v", seed, desc, err)
		}
	}
}

// TestSortOpWideAndLongStrings covers keys too wide for the radix sort (the
// comparator path) and strings longer than the normalised prefix sharing
// long common prefixes.
func TestSortOpWideAndLongStrings(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,cores=1", 48<<20)
	r := rand.New(rand.NewPCG(5, 5))
	n := 500
	var keys []vcol
	var cols []device.Column
	var flags []uint32
	for k := 0; k < 4; k++ { // 4 nullable I128 keys: 68 bytes, beyond the radix width
		c := lowCard(r, randVCol(r, device.VTI128, n, 0.2))
		keys, cols, flags = append(keys, c), append(cols, e.putColumn(c, colEnc{})), append(flags, uint32(k%4))
	}
	da, dl := e.sortDesc(cols, flags, n)
	got, err := e.runSort(da, dl, 0, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameRows(got, refSort(keys, flags, 0, n)); err != nil {
		t.Fatalf("wide keys: %v", err)
	}
	e.reset()
	s := vcol{vt: device.VTStr, vals: make([]val, n)}
	for i := range s.vals {
		s.vals[i] = val{s: strings.Repeat("p", 5+r.IntN(12)) + string(rune('a'+r.IntN(3))) + strings.Repeat("q", r.IntN(3))}
		if r.IntN(10) == 0 {
			s.vals[i] = val{s: strings.Repeat("p", 5+r.IntN(12)) + "\x00"}
		}
	}
	i2 := lowCard(r, randVCol(r, device.VTI64, n, 0.1))
	for _, f := range []uint32{0, device.SortDesc} {
		cols := []device.Column{e.putColumn(s, colEnc{}), e.putColumn(i2, colEnc{})}
		da, dl := e.sortDesc(cols, []uint32{f, f}, n)
		got, err := e.runSort(da, dl, 0, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameRows(got, refSort([]vcol{s, i2}, []uint32{f, f}, 0, n)); err != nil {
			t.Fatalf("long strings flags %d: %v", f, err)
		}
	}
}

// TestSortOpErrors covers bad ranges, flags and merge inputs.
func TestSortOpErrors(t *testing.T) {
	e := newEnv(t, "soft:memory=16MiB,cores=1", 8<<20)
	c := vcol{vt: device.VTI64, vals: []val{{i: 3}, {i: 1}, {i: 2}}}
	col := e.putColumn(c, colEnc{})
	da, dl := e.sortDesc([]device.Column{col}, []uint32{0}, 3)
	if _, err := e.runSort(da, dl, 2, 4, 0); !errIs(err, device.ErrInvalid, "row range [2, 4) outside the 3 rows") {
		t.Fatalf("bad range: %v", err)
	}
	bd, bl := e.sortDesc([]device.Column{col}, []uint32{8}, 3)
	if _, err := e.runSort(bd, bl, 0, 3, 0); !errIs(err, device.ErrInvalid, "unknown flags 0x8") {
		t.Fatalf("bad flags: %v", err)
	}
	aa, out := e.putI32s([]int32{0, 5}), e.alloc(64)
	r := run(t, e.q, device.Op{Code: device.OpMerge, Src: da, Len: dl, Dst: out, Args: [4]uint64{uint64(aa), 2, uint64(aa), 0}})
	if !errIs(r.Err, device.ErrInvalid, "run A row number 5 at 1 is outside [0, 3)") {
		t.Fatalf("bad merge run: %v", r.Err)
	}
	if _, err := (&device.Sort{Rows: 1}).Encode(); err == nil {
		t.Fatal("sort without keys encoded")
	}
}
