package exec_test

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"testing"

	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

// The builder cuts the right side of Q4's semi join, Q21's semi and anti
// joins and Q22's anti join by the left side's keys (planbuilder's
// SemiJoin, a semi-join reduction): these references check the answers,
// and TestSemiJoinReductions that the plans as written (no reduction,
// Spark's join order) give the same rows.

func init() {
	references[4] = q4
	references[21] = q21
	references[22] = q22
}

// TestSemiJoinReductions runs Q4, Q21 and Q22 as Spark's approved plans
// have them and by size (reduced), one task and parallel, against the Go
// references.
func TestSemiJoinReductions(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB")
	for _, q := range []int{4, 21, 22} {
		want := references[q](t, dir)
		if len(want) == 0 {
			t.Fatalf("Q%d: the reference has no rows", q)
		}
		for _, joins := range []planbuilder.JoinSelection{planbuilder.JoinsAsWritten, planbuilder.JoinsBySize} {
			p, err := planbuilder.TPCH(q, planbuilder.Options{Partitions: partitions, Joins: joins})
			if err != nil {
				t.Fatal(err)
			}
			for _, par := range []int{1, 4} {
				res, err := rules.Run(p, rules.DefaultOptions(), nil)
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: dir, Parallelism: par}, res)
				if err != nil {
					notReady(t, err)
					t.Fatalf("Q%d joins %d: %v", q, joins, err)
				}
				got := rows(out)
				out.Release()
				if !sameRows(want, got) {
					t.Errorf("Q%d joins %d parallelism %d differs from the Go reference (%d rows, %d expected):\n%s",
						q, joins, par, len(got), len(want), firstDiff(want, got))
				}
			}
		}
	}
}

func q4(t *testing.T, _ string) []string {
	o, li := load(t, "orders"), load(t, "lineitem")
	late := map[int64]bool{}
	for i := 0; i < li.rows(); i++ {
		if li.date("l_commitdate", i) < li.date("l_receiptdate", i) {
			late[li.i64("l_orderkey", i)] = true
		}
	}
	lo, hi := day("1993-07-01"), day("1993-10-01")
	count := map[string]int64{}
	for i := 0; i < o.rows(); i++ {
		if d := o.date("o_orderdate", i); d >= lo && d < hi && late[o.i64("o_orderkey", i)] {
			count[o.str("o_orderpriority", i)]++
		}
	}
	var out []string
	for p, n := range count {
		out = append(out, fmt.Sprintf("%s|%d", p, n))
	}
	sort.Strings(out)
	return out
}

func q21(t *testing.T, _ string) []string {
	s, n, o, li := load(t, "supplier"), load(t, "nation"), load(t, "orders"), load(t, "lineitem")
	var saudi int64 = -1
	for i := 0; i < n.rows(); i++ {
		if n.str("n_name", i) == "SAUDI ARABIA" {
			saudi = n.i64("n_nationkey", i)
		}
	}
	names := map[int64]string{}
	for i := 0; i < s.rows(); i++ {
		if s.i64("s_nationkey", i) == saudi {
			names[s.i64("s_suppkey", i)] = s.str("s_name", i)
		}
	}
	failed := map[int64]bool{}
	for i := 0; i < o.rows(); i++ {
		if o.str("o_orderstatus", i) == "F" {
			failed[o.i64("o_orderkey", i)] = true
		}
	}
	// the suppliers of each order's lines, and of its late lines
	supps, lateSupps := map[int64]map[int64]bool{}, map[int64]map[int64]bool{}
	add := func(m map[int64]map[int64]bool, k, s int64) {
		if m[k] == nil {
			m[k] = map[int64]bool{}
		}
		m[k][s] = true
	}
	isLate := func(i int) bool { return li.date("l_receiptdate", i) > li.date("l_commitdate", i) }
	for i := 0; i < li.rows(); i++ {
		k, sk := li.i64("l_orderkey", i), li.i64("l_suppkey", i)
		add(supps, k, sk)
		if isLate(i) {
			add(lateSupps, k, sk)
		}
	}
	other := func(set map[int64]bool, sk int64) bool {
		for x := range set {
			if x != sk {
				return true
			}
		}
		return false
	}
	count := map[string]int64{}
	for i := 0; i < li.rows(); i++ {
		k, sk := li.i64("l_orderkey", i), li.i64("l_suppkey", i)
		name, ok := names[sk]
		if !ok || !isLate(i) || !failed[k] || !other(supps[k], sk) || other(lateSupps[k], sk) {
			continue
		}
		count[name]++
	}
	type row struct {
		name string
		n    int64
	}
	var rs []row
	for name, c := range count {
		rs = append(rs, row{name, c})
	}
	rs = topBy(rs, 100, func(a, b row) bool {
		if a.n != b.n {
			return a.n > b.n
		}
		return a.name < b.name
	})
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s|%d", r.name, r.n))
	}
	return out
}

func q22(t *testing.T, _ string) []string {
	c, o := load(t, "customer"), load(t, "orders")
	codes := map[string]bool{"13": true, "31": true, "23": true, "29": true, "30": true, "18": true, "17": true}
	var sum, n int64
	for i := 0; i < c.rows(); i++ {
		if b := c.i64("c_acctbal", i); b > 0 && codes[c.str("c_phone", i)[:2]] {
			sum += b
			n++
		}
	}
	// avg(c_acctbal) is decimal(16,6) (rounded half up), compared with
	// c_acctbal at scale 6
	var mean *big.Int
	if n > 0 {
		mean = roundHalfUp(new(big.Rat).SetFrac(big.NewInt(sum*10000), big.NewInt(n)))
	}
	ordered := map[int64]bool{}
	for i := 0; i < o.rows(); i++ {
		ordered[o.i64("o_custkey", i)] = true
	}
	type acc struct{ n, sum int64 }
	groups := map[string]*acc{}
	for i := 0; i < c.rows(); i++ {
		b, code := c.i64("c_acctbal", i), c.str("c_phone", i)[:2]
		if !codes[code] || mean == nil || big.NewInt(b*10000).Cmp(mean) <= 0 || ordered[c.i64("c_custkey", i)] {
			continue
		}
		a := groups[code]
		if a == nil {
			a = &acc{}
			groups[code] = a
		}
		a.n++
		a.sum += b
	}
	var out []string
	for code, a := range groups {
		out = append(out, fmt.Sprintf("%s|%d|%s", code, a.n, dec(a.sum, 2)))
	}
	sort.Strings(out)
	return out
}
