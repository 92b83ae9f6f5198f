package tpchgen

import "testing"

// TestSplit: file ranges are contiguous, cover every unit, respect the row
// bound and add up to the table's row count.
func TestSplit(t *testing.T) {
	g := newGen(Options{SF: testSF, Seed: 7})
	for _, name := range []string{"lineitem", "partsupp", "orders", "region"} {
		spec, err := lookupTable(name)
		if err != nil {
			t.Fatal(err)
		}
		units := spec.units(g.card)
		for _, maxRows := range []int64{1, 7, 1000, 1 << 20} {
			ranges := spec.split(g, units, maxRows)
			var next, rows int64
			for i, r := range ranges {
				if r.lo != next || r.hi <= r.lo {
					t.Fatalf("%s/%d: range %d is [%d, %d), want to start at %d", name, maxRows, i, r.lo, r.hi, next)
				}
				if r.rows > maxRows && r.hi-r.lo > 1 {
					t.Fatalf("%s/%d: range %d holds %d rows", name, maxRows, i, r.rows)
				}
				if r.rows != spec.rowCount(g, r.lo, r.hi) {
					t.Fatalf("%s/%d: range %d says %d rows, has %d", name, maxRows, i, r.rows, spec.rowCount(g, r.lo, r.hi))
				}
				next, rows = r.hi, rows+r.rows
			}
			if next != units || rows != spec.rowCount(g, 0, units) {
				t.Fatalf("%s/%d: ranges end at %d with %d rows", name, maxRows, next, rows)
			}
		}
	}
}
