package tpchgen

import (
	"math"
	"strings"
	"testing"
	"time"
)

// Query properties computed in Go over the generated data: they show the
// value distributions are the specification's, so the 22 queries return
// meaningful results.

// TestQ1Groups: Q1 groups lines shipped by 1998-09-02 by (returnflag,
// linestatus) and returns exactly four groups; (N, F), the lines shipped
// before CURRENTDATE but received after it, is the small one (0.65% of
// lineitem at SF 1 with the reference generator).
func TestQ1Groups(t *testing.T) {
	li := testData(t)["lineitem"]
	cutoff := dayNumber(1998, time.September, 2)
	groups := map[string]int{}
	for i, ship := range li.i32("l_shipdate") {
		if ship <= cutoff {
			groups[li.str("l_returnflag")[i]+li.str("l_linestatus")[i]]++
		}
	}
	if len(groups) != 4 || groups["AF"] == 0 || groups["NF"] == 0 || groups["NO"] == 0 || groups["RF"] == 0 {
		t.Fatalf("Q1 groups %v, want AF, NF, NO, RF", groups)
	}
	t.Logf("Q1 groups %v of %d lines", groups, li.rows)
	frac := func(k string) float64 { return float64(groups[k]) / float64(li.rows) }
	if f := frac("NF"); f < 0.003 || f > 0.012 {
		t.Errorf("Q1 (N,F) holds %.4f of lineitem, want about 0.0065", f)
	}
	for _, k := range []string{"AF", "RF"} {
		if f := frac(k); f < 0.23 || f > 0.26 {
			t.Errorf("Q1 (%s) holds %.4f of lineitem, want about 0.246", k, f)
		}
	}
	if f := frac("NO"); f < 0.47 || f > 0.50 {
		t.Errorf("Q1 (N,O) holds %.4f of lineitem, want about 0.487", f)
	}
}

// TestQ6Selectivity: Q6 selects lines shipped in 1994 with a discount of
// 0.05..0.07 and a quantity below 24: about 1.9% of lineitem.
func TestQ6Selectivity(t *testing.T) {
	li := testData(t)["lineitem"]
	lo, hi := dayNumber(1994, time.January, 1), dayNumber(1995, time.January, 1)
	n := 0
	var revenue int64
	for i, ship := range li.i32("l_shipdate") {
		d, q := li.i64("l_discount")[i], li.i64("l_quantity")[i]
		if ship >= lo && ship < hi && d >= 5 && d <= 7 && q < 2400 {
			n++
			revenue += li.i64("l_extendedprice")[i] * d
		}
	}
	sel := float64(n) / float64(li.rows)
	t.Logf("Q6: %d of %d rows (%.4f), revenue %d", n, li.rows, sel, revenue)
	if math.Abs(sel-0.019) > 0.002 {
		t.Errorf("Q6 selects %.4f of lineitem, want 0.019 ± 0.002", sel)
	}
	// Revenue at SF 1 is 123,141,078.23 with the reference generator; it
	// scales linearly (in hundredths squared here).
	perSF := float64(revenue) / 1e4 / testSF
	if perSF < 110e6 || perSF > 136e6 {
		t.Errorf("Q6 revenue scaled to SF 1 is %.0f, want about 123141078", perSF)
	}
}

// TestQueryPredicates checks that the LIKE and IN predicates of the other
// queries select a sensible share of their table.
func TestQueryPredicates(t *testing.T) {
	d := testData(t)
	for _, c := range []struct {
		query, table, col string
		match             func(string) bool
		lo, hi            float64
	}{
		{"Q2 p_type LIKE '%BRASS'", "part", "p_type", func(s string) bool { return strings.HasSuffix(s, "BRASS") }, 0.17, 0.23},
		{"Q9 p_name LIKE '%green%'", "part", "p_name", func(s string) bool { return strings.Contains(s, "green") }, 0.04, 0.07},
		{"Q13 o_comment LIKE '%special%requests%'", "orders", "o_comment", func(s string) bool { return likeAll(s, "special", "requests") }, 0.005, 0.03},
		{"Q14 p_type LIKE 'PROMO%'", "part", "p_type", func(s string) bool { return strings.HasPrefix(s, "PROMO") }, 0.14, 0.19},
		{"Q16 p_type NOT LIKE 'MEDIUM POLISHED%'", "part", "p_type", func(s string) bool { return !strings.HasPrefix(s, "MEDIUM POLISHED") }, 0.94, 0.98},
		{"Q19 p_container IN ('SM CASE', ...)", "part", "p_container", func(s string) bool {
			return s == "SM CASE" || s == "SM BOX" || s == "SM PACK" || s == "SM PKG"
		}, 0.07, 0.13},
		{"Q20 p_name LIKE 'forest%'", "part", "p_name", func(s string) bool { return strings.HasPrefix(s, "forest") }, 0.005, 0.02},
		{"Q22 substring(c_phone,1,2) IN (...)", "customer", "c_phone", func(s string) bool {
			return strings.Contains(",13,31,23,29,30,18,17,", ","+s[:2]+",")
		}, 0.22, 0.34},
	} {
		vals := d[c.table].str(c.col)
		n := 0
		for _, v := range vals {
			if c.match(v) {
				n++
			}
		}
		if f := float64(n) / float64(len(vals)); f < c.lo || f > c.hi {
			t.Errorf("%s selects %.4f of %s, want [%.3f, %.3f]", c.query, f, c.table, c.lo, c.hi)
		}
	}
}
