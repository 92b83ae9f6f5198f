package exec_test

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/operators/expr"
)

// Plain Go references of some TPC-H queries over the generated rows, in
// the text form rows() prints: the executor's answers must equal them
// exactly (decimals at their scale; Spark's HALF_UP rounding for avg).

// table is a generated table's columns: int64 for keys, bigints and
// decimals (unscaled), int32 for ints and dates, string for strings.
type table map[string][]any

var (
	tablesMu sync.Mutex
	tables   = map[string]table{}
)

func load(t *testing.T, name string) table {
	t.Helper()
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if tb := tables[name]; tb != nil {
		return tb
	}
	rr, err := tpchgen.NewTableReader(name, tpchgen.Options{SF: sf})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	tb := table{}
	for rr.Next() {
		r := rr.Record()
		for j, f := range r.Schema().Fields() {
			for i := 0; i < int(r.NumRows()); i++ {
				v := expr.ValueAt(r.Column(j), i)
				if b, ok := v.(*big.Int); ok {
					v = b.Int64()
				}
				tb[f.Name] = append(tb[f.Name], v)
			}
		}
	}
	tables[name] = tb
	return tb
}

func (tb table) rows() int {
	for _, c := range tb {
		return len(c)
	}
	return 0
}
func (tb table) i64(c string, i int) int64  { return tb[c][i].(int64) }
func (tb table) date(c string, i int) int32 { return tb[c][i].(int32) }
func (tb table) str(c string, i int) string { return tb[c][i].(string) }

func day(s string) int32 {
	var y, m, d int
	fmt.Sscanf(s, "%d-%d-%d", &y, &m, &d)
	return expr.DaysFromCivil(y, m, d)
}

func dec(v int64, scale int) string { return expr.FormatDecimal(big.NewInt(v), scale) }

// avg is Spark's avg of a decimal(p,2) column: sum/count at scale 6,
// rounded half up.
func avg(sum int64, count int64) string {
	q := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(sum), big.NewInt(10000)), big.NewInt(count))
	return expr.FormatDecimal(roundHalfUp(q), 6)
}

func roundHalfUp(q *big.Rat) *big.Int {
	num, den := new(big.Int).Abs(q.Num()), q.Denom()
	quo, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(rem, big.NewInt(2)).Cmp(den) >= 0 {
		quo.Add(quo, big.NewInt(1))
	}
	if q.Sign() < 0 {
		quo.Neg(quo)
	}
	return quo
}

var references = map[int]func(*testing.T, string) []string{1: q1, 3: q3, 5: q5, 6: q6, 10: q10, 13: q13, 18: q18}

func q6(t *testing.T, _ string) []string {
	li := load(t, "lineitem")
	lo, hi := day("1994-01-01"), day("1995-01-01")
	var sum int64
	for i := 0; i < li.rows(); i++ {
		d, disc := li.date("l_shipdate", i), li.i64("l_discount", i)
		if d >= lo && d < hi && disc >= 5 && disc <= 7 && li.i64("l_quantity", i) < 2400 {
			sum += li.i64("l_extendedprice", i) * disc
		}
	}
	return []string{dec(sum, 4)}
}

func q1(t *testing.T, _ string) []string {
	li := load(t, "lineitem")
	type acc struct{ qty, price, disc, discPrice, charge, n int64 }
	groups := map[string]*acc{}
	cut := day("1998-09-02")
	for i := 0; i < li.rows(); i++ {
		if li.date("l_shipdate", i) > cut {
			continue
		}
		k := li.str("l_returnflag", i) + "|" + li.str("l_linestatus", i)
		a := groups[k]
		if a == nil {
			a = &acc{}
			groups[k] = a
		}
		p, d, x := li.i64("l_extendedprice", i), li.i64("l_discount", i), li.i64("l_tax", i)
		a.qty += li.i64("l_quantity", i)
		a.price += p
		a.disc += d
		a.discPrice += p * (100 - d)
		a.charge += p * (100 - d) * (100 + x)
		a.n++
	}
	var out []string
	for k, a := range groups {
		out = append(out, strings.Join([]string{k, dec(a.qty, 2), dec(a.price, 2), dec(a.discPrice, 4), dec(a.charge, 6),
			avg(a.qty, a.n), avg(a.price, a.n), avg(a.disc, a.n), fmt.Sprint(a.n)}, "|"))
	}
	sort.Strings(out)
	return out
}

// topBy sorts rows by less and keeps the first n (n <= 0: all).
func topBy[T any](rs []T, n int, less func(a, b T) bool) []T {
	sort.SliceStable(rs, func(i, j int) bool { return less(rs[i], rs[j]) })
	if n > 0 && len(rs) > n {
		rs = rs[:n]
	}
	return rs
}

func q3(t *testing.T, _ string) []string {
	c, o, li := load(t, "customer"), load(t, "orders"), load(t, "lineitem")
	cut := day("1995-03-15")
	building := map[int64]bool{}
	for i := 0; i < c.rows(); i++ {
		if c.str("c_mktsegment", i) == "BUILDING" {
			building[c.i64("c_custkey", i)] = true
		}
	}
	type ord struct {
		date int32
		prio int32
	}
	orders := map[int64]ord{}
	for i := 0; i < o.rows(); i++ {
		if building[o.i64("o_custkey", i)] && o.date("o_orderdate", i) < cut {
			orders[o.i64("o_orderkey", i)] = ord{o.date("o_orderdate", i), o.tb32("o_shippriority", i)}
		}
	}
	rev := map[int64]int64{}
	for i := 0; i < li.rows(); i++ {
		k := li.i64("l_orderkey", i)
		if _, ok := orders[k]; ok && li.date("l_shipdate", i) > cut {
			rev[k] += li.i64("l_extendedprice", i) * (100 - li.i64("l_discount", i))
		}
	}
	type row struct {
		key, rev int64
		o        ord
	}
	var rs []row
	for k, v := range rev {
		rs = append(rs, row{k, v, orders[k]})
	}
	rs = topBy(rs, 10, func(a, b row) bool {
		if a.rev != b.rev {
			return a.rev > b.rev
		}
		return a.o.date < b.o.date
	})
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%d|%s|%s|%d", r.key, dec(r.rev, 4), expr.FormatDate(r.o.date), r.o.prio))
	}
	return out
}

func (tb table) tb32(c string, i int) int32 { return tb[c][i].(int32) }

func q5(t *testing.T, _ string) []string {
	c, o, li, s, n, r := load(t, "customer"), load(t, "orders"), load(t, "lineitem"), load(t, "supplier"), load(t, "nation"), load(t, "region")
	asia := map[int64]bool{}
	for i := 0; i < r.rows(); i++ {
		if r.str("r_name", i) == "ASIA" {
			asia[r.i64("r_regionkey", i)] = true
		}
	}
	nname := map[int64]string{}
	for i := 0; i < n.rows(); i++ {
		if asia[n.i64("n_regionkey", i)] {
			nname[n.i64("n_nationkey", i)] = n.str("n_name", i)
		}
	}
	custNation := map[int64]int64{}
	for i := 0; i < c.rows(); i++ {
		custNation[c.i64("c_custkey", i)] = c.i64("c_nationkey", i)
	}
	suppNation := map[int64]int64{}
	for i := 0; i < s.rows(); i++ {
		suppNation[s.i64("s_suppkey", i)] = s.i64("s_nationkey", i)
	}
	lo, hi := day("1994-01-01"), day("1995-01-01")
	orderNation := map[int64]int64{}
	for i := 0; i < o.rows(); i++ {
		if d := o.date("o_orderdate", i); d >= lo && d < hi {
			orderNation[o.i64("o_orderkey", i)] = custNation[o.i64("o_custkey", i)]
		}
	}
	rev := map[string]int64{}
	for i := 0; i < li.rows(); i++ {
		cn, ok := orderNation[li.i64("l_orderkey", i)]
		if !ok {
			continue
		}
		sn := suppNation[li.i64("l_suppkey", i)]
		if name, ok := nname[sn]; ok && sn == cn {
			rev[name] += li.i64("l_extendedprice", i) * (100 - li.i64("l_discount", i))
		}
	}
	type row struct {
		name string
		rev  int64
	}
	var rs []row
	for k, v := range rev {
		rs = append(rs, row{k, v})
	}
	rs = topBy(rs, 0, func(a, b row) bool { return a.rev > b.rev })
	var out []string
	for _, x := range rs {
		out = append(out, x.name+"|"+dec(x.rev, 4))
	}
	return out
}

func q10(t *testing.T, _ string) []string {
	c, o, li, n := load(t, "customer"), load(t, "orders"), load(t, "lineitem"), load(t, "nation")
	lo, hi := day("1993-10-01"), day("1994-01-01")
	orderCust := map[int64]int64{}
	for i := 0; i < o.rows(); i++ {
		if d := o.date("o_orderdate", i); d >= lo && d < hi {
			orderCust[o.i64("o_orderkey", i)] = o.i64("o_custkey", i)
		}
	}
	rev := map[int64]int64{}
	for i := 0; i < li.rows(); i++ {
		if ck, ok := orderCust[li.i64("l_orderkey", i)]; ok && li.str("l_returnflag", i) == "R" {
			rev[ck] += li.i64("l_extendedprice", i) * (100 - li.i64("l_discount", i))
		}
	}
	nname := map[int64]string{}
	for i := 0; i < n.rows(); i++ {
		nname[n.i64("n_nationkey", i)] = n.str("n_name", i)
	}
	type row struct {
		key, rev int64
		text     string
	}
	var rs []row
	for i := 0; i < c.rows(); i++ {
		k := c.i64("c_custkey", i)
		if v, ok := rev[k]; ok {
			rs = append(rs, row{k, v, fmt.Sprintf("%d|%s|%s|%s|%s|%s|%s|%s", k, c.str("c_name", i), dec(v, 4), dec(c.i64("c_acctbal", i), 2),
				nname[c.i64("c_nationkey", i)], c.str("c_address", i), c.str("c_phone", i), c.str("c_comment", i))})
		}
	}
	rs = topBy(rs, 20, func(a, b row) bool { return a.rev > b.rev })
	var out []string
	for _, r := range rs {
		out = append(out, r.text)
	}
	return out
}

func q13(t *testing.T, _ string) []string {
	c, o := load(t, "customer"), load(t, "orders")
	count := map[int64]int64{}
	for i := 0; i < o.rows(); i++ {
		cm := o.str("o_comment", i)
		if j := strings.Index(cm, "special"); j >= 0 && strings.Contains(cm[j+len("special"):], "requests") {
			continue
		}
		count[o.i64("o_custkey", i)]++
	}
	dist := map[int64]int64{}
	for i := 0; i < c.rows(); i++ {
		dist[count[c.i64("c_custkey", i)]]++
	}
	type row struct{ c, n int64 }
	var rs []row
	for k, v := range dist {
		rs = append(rs, row{k, v})
	}
	rs = topBy(rs, 0, func(a, b row) bool {
		if a.n != b.n {
			return a.n > b.n
		}
		return a.c > b.c
	})
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%d|%d", r.c, r.n))
	}
	return out
}

func q18(t *testing.T, _ string) []string {
	c, o, li := load(t, "customer"), load(t, "orders"), load(t, "lineitem")
	qty := map[int64]int64{}
	for i := 0; i < li.rows(); i++ {
		qty[li.i64("l_orderkey", i)] += li.i64("l_quantity", i)
	}
	cname := map[int64]string{}
	for i := 0; i < c.rows(); i++ {
		cname[c.i64("c_custkey", i)] = c.str("c_name", i)
	}
	type row struct {
		price int64
		date  int32
		text  string
	}
	var rs []row
	for i := 0; i < o.rows(); i++ {
		k := o.i64("o_orderkey", i)
		if qty[k] > 30000 {
			ck := o.i64("o_custkey", i)
			p, d := o.i64("o_totalprice", i), o.date("o_orderdate", i)
			rs = append(rs, row{p, d, fmt.Sprintf("%s|%d|%d|%s|%s|%s", cname[ck], ck, k, expr.FormatDate(d), dec(p, 2), dec(qty[k], 2))})
		}
	}
	rs = topBy(rs, 100, func(a, b row) bool {
		if a.price != b.price {
			return a.price > b.price
		}
		return a.date < b.date
	})
	var out []string
	for _, r := range rs {
		out = append(out, r.text)
	}
	return out
}
