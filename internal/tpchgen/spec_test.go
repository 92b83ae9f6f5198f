package tpchgen

import (
	"strings"
	"testing"
)

func TestRowCounts(t *testing.T) {
	d := testData(t)
	want := map[string]int{
		"region": 5, "nation": 25, "supplier": 100, "part": 2000, "partsupp": 8000,
		"customer": 1500, "orders": 15000,
	}
	for name, n := range want {
		if got := d[name].rows; got != n {
			t.Errorf("%s: %d rows, want %d", name, got, n)
		}
	}
	// 1..7 lines per order: about 4 * orders.
	li := d["lineitem"].rows
	if li < 58000 || li > 62000 {
		t.Errorf("lineitem: %d rows, want about 60000", li)
	}
	n, err := RowCount("lineitem", Options{SF: testSF, Seed: 7})
	if err != nil || n != int64(li) {
		t.Errorf("RowCount(lineitem) = %d, %v; generated %d", n, err, li)
	}
}

// keySet builds a set of the values of a column.
func keySet(vals []int64) map[int64]bool {
	s := make(map[int64]bool, len(vals))
	for _, v := range vals {
		s[v] = true
	}
	return s
}

func TestPrimaryKeysUnique(t *testing.T) {
	d := testData(t)
	for _, c := range []struct{ table, col string }{
		{"region", "r_regionkey"}, {"nation", "n_nationkey"}, {"supplier", "s_suppkey"},
		{"part", "p_partkey"}, {"customer", "c_custkey"}, {"orders", "o_orderkey"},
	} {
		tb := d[c.table]
		if got := len(keySet(tb.i64(c.col))); got != tb.rows {
			t.Errorf("%s.%s: %d distinct of %d rows", c.table, c.col, got, tb.rows)
		}
	}
	ps := d["partsupp"]
	pairs := map[[2]int64]bool{}
	for i := range ps.rows {
		pairs[[2]int64{ps.i64("ps_partkey")[i], ps.i64("ps_suppkey")[i]}] = true
	}
	if len(pairs) != ps.rows {
		t.Errorf("partsupp: %d distinct (partkey, suppkey) of %d rows", len(pairs), ps.rows)
	}
	li := d["lineitem"]
	lines := map[[2]int64]bool{}
	for i := range li.rows {
		lines[[2]int64{li.i64("l_orderkey")[i], int64(li.i32("l_linenumber")[i])}] = true
	}
	if len(lines) != li.rows {
		t.Errorf("lineitem: %d distinct (orderkey, linenumber) of %d rows", len(lines), li.rows)
	}
}

func TestReferentialIntegrity(t *testing.T) {
	d := testData(t)
	for _, fk := range []struct{ table, col, refTable, refCol string }{
		{"nation", "n_regionkey", "region", "r_regionkey"},
		{"supplier", "s_nationkey", "nation", "n_nationkey"},
		{"customer", "c_nationkey", "nation", "n_nationkey"},
		{"partsupp", "ps_partkey", "part", "p_partkey"},
		{"partsupp", "ps_suppkey", "supplier", "s_suppkey"},
		{"orders", "o_custkey", "customer", "c_custkey"},
		{"lineitem", "l_orderkey", "orders", "o_orderkey"},
		{"lineitem", "l_partkey", "part", "p_partkey"},
		{"lineitem", "l_suppkey", "supplier", "s_suppkey"},
	} {
		ref := keySet(d[fk.refTable].i64(fk.refCol))
		for i, v := range d[fk.table].i64(fk.col) {
			if !ref[v] {
				t.Errorf("%s row %d: %s=%d not in %s.%s", fk.table, i, fk.col, v, fk.refTable, fk.refCol)
				break
			}
		}
	}
	ps := d["partsupp"]
	pairs := map[[2]int64]bool{}
	for i := range ps.rows {
		pairs[[2]int64{ps.i64("ps_partkey")[i], ps.i64("ps_suppkey")[i]}] = true
	}
	li := d["lineitem"]
	for i := range li.rows {
		if !pairs[[2]int64{li.i64("l_partkey")[i], li.i64("l_suppkey")[i]}] {
			t.Fatalf("lineitem row %d: (l_partkey, l_suppkey) not in partsupp", i)
		}
	}
	// Every order has at least one line.
	withLines := keySet(li.i64("l_orderkey"))
	for _, k := range d["orders"].i64("o_orderkey") {
		if !withLines[k] {
			t.Fatalf("order %d has no lineitem", k)
		}
	}
}

func TestOrderKeysSparse(t *testing.T) {
	for _, k := range testData(t)["orders"].i64("o_orderkey") {
		if (k-1)%32 >= 8 {
			t.Fatalf("o_orderkey %d is not among the first 8 of its 32", k)
		}
	}
}

func TestCustomersNeverOrdering(t *testing.T) {
	d := testData(t)
	ordering := keySet(d["orders"].i64("o_custkey"))
	for k := range ordering {
		if k%3 == 0 {
			t.Fatalf("customer %d (a multiple of 3) placed an order", k)
		}
	}
	// About two thirds of the customers order at all.
	if n := len(ordering); n < 900 || n > 1000 {
		t.Errorf("%d distinct ordering customers of 1500, want about 1000", n)
	}
}

// checkRange checks lo <= v <= hi for every value of a column and, when
// the column is large compared with the range, that both bounds occur.
func checkRange[T int32 | int64](t *testing.T, name string, vals []T, lo, hi T) {
	t.Helper()
	var seenLo, seenHi bool
	for i, v := range vals {
		if v < lo || v > hi {
			t.Errorf("%s row %d = %d outside [%d, %d]", name, i, v, lo, hi)
			return
		}
		seenLo = seenLo || v == lo
		seenHi = seenHi || v == hi
	}
	if int64(len(vals)) > 20*(int64(hi)-int64(lo)+1) && (!seenLo || !seenHi) {
		t.Errorf("%s never reaches its bounds [%d, %d]", name, lo, hi)
	}
}

func checkLength(t *testing.T, name string, vals []string, lo, hi int) {
	t.Helper()
	for i, v := range vals {
		if len(v) < lo || len(v) > hi {
			t.Errorf("%s row %d has length %d outside [%d, %d]: %q", name, i, len(v), lo, hi, v)
			return
		}
	}
}

func checkIn(t *testing.T, name string, vals []string, allowed []string) {
	t.Helper()
	set := map[string]int{}
	for _, a := range allowed {
		set[a] = 0
	}
	for i, v := range vals {
		if _, ok := set[v]; !ok {
			t.Errorf("%s row %d = %q not in its list", name, i, v)
			return
		}
		set[v]++
	}
	for k, n := range set {
		if n == 0 && len(vals) > 100*len(allowed) {
			t.Errorf("%s never takes value %q", name, k)
		}
	}
}

func TestLineitemValues(t *testing.T) {
	d := testData(t)
	li, part := d["lineitem"], d["part"]
	checkRange(t, "l_quantity", li.i64("l_quantity"), 100, 5000)
	checkRange(t, "l_discount", li.i64("l_discount"), 0, 10)
	checkRange(t, "l_tax", li.i64("l_tax"), 0, 8)
	checkRange(t, "l_linenumber", li.i32("l_linenumber"), 1, 7)
	checkIn(t, "l_shipinstruct", li.str("l_shipinstruct"), instructions)
	checkIn(t, "l_shipmode", li.str("l_shipmode"), shipModes)
	checkLength(t, "l_comment", li.str("l_comment"), 10, 43)

	price := map[int64]int64{}
	for i, k := range part.i64("p_partkey") {
		price[k] = part.i64("p_retailprice")[i]
	}
	orderDate := map[int64]int32{}
	o := d["orders"]
	for i, k := range o.i64("o_orderkey") {
		orderDate[k] = o.i32("o_orderdate")[i]
	}
	for i := range li.rows {
		qty, pk := li.i64("l_quantity")[i]/100, li.i64("l_partkey")[i]
		if got := li.i64("l_extendedprice")[i]; got != qty*price[pk] {
			t.Fatalf("row %d: l_extendedprice %d != %d * p_retailprice %d", i, got, qty, price[pk])
		}
		od := orderDate[li.i64("l_orderkey")[i]]
		ship, commit, receipt := li.i32("l_shipdate")[i], li.i32("l_commitdate")[i], li.i32("l_receiptdate")[i]
		if ship-od < 1 || ship-od > 121 || commit-od < 30 || commit-od > 90 || receipt-ship < 1 || receipt-ship > 30 {
			t.Fatalf("row %d: dates order=%d ship=%d commit=%d receipt=%d break 4.2.3", i, od, ship, commit, receipt)
		}
		flag, status := li.str("l_returnflag")[i], li.str("l_linestatus")[i]
		if (receipt <= currentDate) != (flag == "R" || flag == "A") || (receipt > currentDate) != (flag == "N") {
			t.Fatalf("row %d: l_returnflag %q with receipt date %d", i, flag, receipt)
		}
		if (ship > currentDate) != (status == "O") {
			t.Fatalf("row %d: l_linestatus %q with ship date %d", i, status, ship)
		}
	}
}

func TestOrdersValues(t *testing.T) {
	d := testData(t)
	o, li := d["orders"], d["lineitem"]
	checkRange(t, "o_orderdate", o.i32("o_orderdate"), startDate, endDate-151)
	checkIn(t, "o_orderpriority", o.str("o_orderpriority"), priorities)
	checkLength(t, "o_comment", o.str("o_comment"), 19, 78)
	for i, c := range o.str("o_clerk") {
		if !strings.HasPrefix(c, "Clerk#") || len(c) != 15 || c > "Clerk#000000010" {
			t.Fatalf("row %d: o_clerk %q (want Clerk#000000001..010 at SF 0.01)", i, c)
		}
	}
	type agg struct {
		total     int64
		open, all int
	}
	byOrder := map[int64]*agg{}
	for i, k := range li.i64("l_orderkey") {
		a := byOrder[k]
		if a == nil {
			a = &agg{}
			byOrder[k] = a
		}
		l := line{price: li.i64("l_extendedprice")[i], disc: li.i64("l_discount")[i], tax: li.i64("l_tax")[i]}
		a.total += l.charge()
		a.all++
		if li.str("l_linestatus")[i] == "O" {
			a.open++
		}
	}
	statuses := map[string]int{}
	for i, k := range o.i64("o_orderkey") {
		a := byOrder[k]
		if got := o.i64("o_totalprice")[i]; got != a.total {
			t.Fatalf("order %d: o_totalprice %d, lines sum to %d", k, got, a.total)
		}
		want := "P"
		if a.open == 0 {
			want = "F"
		} else if a.open == a.all {
			want = "O"
		}
		st := o.str("o_orderstatus")[i]
		if st != want {
			t.Fatalf("order %d: o_orderstatus %q, want %q", k, st, want)
		}
		statuses[st]++
	}
	if statuses["F"] == 0 || statuses["O"] == 0 || statuses["P"] == 0 {
		t.Errorf("order statuses %v: want all of F, O, P", statuses)
	}
}

func TestPartValues(t *testing.T) {
	d := testData(t)
	p := d["part"]
	colorSet := map[string]bool{}
	for _, c := range colors {
		colorSet[c] = true
	}
	if len(colors) != 92 {
		t.Fatalf("%d colours, want 92", len(colors))
	}
	for i, n := range p.str("p_name") {
		words := strings.Split(n, " ")
		seen := map[string]bool{}
		for _, w := range words {
			if !colorSet[w] || seen[w] {
				t.Fatalf("row %d: p_name %q is not five distinct colours", i, n)
			}
			seen[w] = true
		}
		if len(words) != 5 {
			t.Fatalf("row %d: p_name %q has %d words", i, n, len(words))
		}
	}
	for i, k := range p.i64("p_partkey") {
		m := p.str("p_mfgr")[i][len("Manufacturer#"):]
		b := p.str("p_brand")[i]
		if len(b) != 8 || b[6:7] != m || b[7] < '1' || b[7] > '5' {
			t.Fatalf("part %d: p_brand %q does not follow p_mfgr %q", k, b, p.str("p_mfgr")[i])
		}
		if got := p.i64("p_retailprice")[i]; got != retailPrice(k) {
			t.Fatalf("part %d: retail price %d, want %d", k, got, retailPrice(k))
		}
	}
	var types, containers []string
	for _, a := range typeSyllable1 {
		for _, b := range typeSyllable2 {
			for _, c := range typeSyllable3 {
				types = append(types, a+" "+b+" "+c)
			}
		}
	}
	for _, a := range containerSyllable1 {
		for _, b := range containerSyllable2 {
			containers = append(containers, a+" "+b)
		}
	}
	checkIn(t, "p_type", p.str("p_type"), types)
	checkIn(t, "p_container", p.str("p_container"), containers)
	checkRange(t, "p_size", p.i32("p_size"), 1, 50)
	checkLength(t, "p_comment", p.str("p_comment"), 5, 22)

	ps := d["partsupp"]
	checkRange(t, "ps_availqty", ps.i32("ps_availqty"), 1, 9999)
	checkRange(t, "ps_supplycost", ps.i64("ps_supplycost"), 100, 100000)
	checkLength(t, "ps_comment", ps.str("ps_comment"), 49, 198)
}

func TestCustomerSupplierValues(t *testing.T) {
	d := testData(t)
	c, s := d["customer"], d["supplier"]
	checkRange(t, "c_acctbal", c.i64("c_acctbal"), -99999, 999999)
	checkIn(t, "c_mktsegment", c.str("c_mktsegment"), segments)
	checkLength(t, "c_address", c.str("c_address"), 10, 40)
	checkLength(t, "c_comment", c.str("c_comment"), 29, 116)
	checkLength(t, "s_address", s.str("s_address"), 10, 40)
	checkLength(t, "s_comment", s.str("s_comment"), 25, 100)
	for _, tb := range []*table{c, s} {
		prefix := tb.name[:1]
		keys, nat, phones, names := tb.i64(prefix+"_"+map[string]string{"c": "custkey", "s": "suppkey"}[prefix]),
			tb.i64(prefix+"_nationkey"), tb.str(prefix+"_phone"), tb.str(prefix+"_name")
		for i := range tb.rows {
			want := string(appendPadded(nil, nat[i]+10, 2)) + "-"
			if len(phones[i]) != 15 || !strings.HasPrefix(phones[i], want) {
				t.Fatalf("%s row %d: phone %q for nation %d", tb.name, i, phones[i], nat[i])
			}
			wantName := map[string]string{"c": "Customer#", "s": "Supplier#"}[prefix] + string(appendPadded(nil, keys[i], 9))
			if names[i] != wantName {
				t.Fatalf("%s row %d: name %q, want %q", tb.name, i, names[i], wantName)
			}
		}
	}
	var complaints, recommends int
	for _, v := range s.str("s_comment") {
		if likeAll(v, "Customer", "Complaints") {
			complaints++
		}
		if likeAll(v, "Customer", "Recommends") {
			recommends++
		}
	}
	if complaints == 0 || recommends == 0 {
		t.Errorf("suppliers with complaints %d, recommendations %d: want both > 0", complaints, recommends)
	}
}

func TestNationRegion(t *testing.T) {
	d := testData(t)
	n, r := d["nation"], d["region"]
	if got := strings.Join(r.str("r_name"), ","); got != "AFRICA,AMERICA,ASIA,EUROPE,MIDDLE EAST" {
		t.Errorf("regions %s", got)
	}
	if n.str("n_name")[24] != "UNITED STATES" || n.i64("n_regionkey")[24] != 1 {
		t.Errorf("nation 24 = %s in region %d", n.str("n_name")[24], n.i64("n_regionkey")[24])
	}
	checkLength(t, "n_comment", n.str("n_comment"), 31, 114)
	checkLength(t, "r_comment", r.str("r_comment"), 31, 115)
}

// likeAll reports whether s matches LIKE '%p1%p2%...%'.
func likeAll(s string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
