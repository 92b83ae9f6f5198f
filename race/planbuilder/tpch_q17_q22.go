package planbuilder

import "github.com/hados-io/hados/race/plan"

// q17 is the small-quantity-order revenue query (BRAND Brand#23,
// CONTAINER MED BOX): the correlated average becomes an aggregate joined
// back on the part key.
func q17(b *Builder) *Rel {
	c := b.Col
	const avgName = "(0.2 * avg(l_quantity))"
	avgQty := b.scanWhere("lineitem", strs("l_partkey", "l_quantity"), b.nn("l_partkey")).
		Aggregate(b.Cols("l_partkey"), []AggFn{b.Avg(c("l_quantity")).As("avg")}, b.As(b.Mul(b.Dec("0.2"), c("avg")), avgName), c("l_partkey")).
		Filter(b.nn(avgName))
	return b.scanWhere("lineitem", strs("l_partkey", "l_quantity", "l_extendedprice"), b.nn("l_partkey"), b.nn("l_quantity")).
		InnerJoin(b.scanWhere("part", strs("p_partkey", "p_brand", "p_container"),
			b.nn("p_brand"), b.nn("p_container"), b.Eq(c("p_brand"), b.Str("Brand#23")), b.Eq(c("p_container"), b.Str("MED BOX")), b.nn("p_partkey")).
			Keep("p_partkey"), "l_partkey", "p_partkey").
		Keep("l_quantity", "l_extendedprice", "p_partkey").
		Join(avgQty, b.On("p_partkey", "l_partkey").Where(b.Lt(c("l_quantity"), c(avgName)))).
		Keep("l_extendedprice").
		Aggregate(nil, []AggFn{b.Sum(c("l_extendedprice")).As("sum")}, b.As(b.Div(c("sum"), b.Dec("7.0")), "avg_yearly"))
}

// q18 is the large volume customer query (QUANTITY 300): IN (subquery)
// as left semi joins sharing one broadcast.
func q18(b *Builder) *Rel {
	c := b.Col
	const sumName = "sum(l_quantity)"
	big := b.Scan("lineitem", "l_orderkey", "l_quantity").
		Aggregate(b.Cols("l_orderkey"), []AggFn{b.Sum(c("l_quantity")).As(sumName)}).
		Filter(b.And(b.nn(sumName), b.Gt(c(sumName), b.Int(300)))).Expect(60).
		Keep("l_orderkey").Broadcast(c("l_orderkey"))
	semi := b.OnType(plan.JoinLeftSemi, "o_orderkey", "l_orderkey")
	orders := b.scanWhere("orders", strs("o_orderkey", "o_custkey", "o_totalprice", "o_orderdate"), b.nn("o_custkey"), b.nn("o_orderkey")).
		Join(big, semi)
	lines := b.scanWhere("lineitem", strs("l_orderkey", "l_quantity"), b.nn("l_orderkey")).
		Join(big.Reuse(), b.OnType(plan.JoinLeftSemi, "l_orderkey", "l_orderkey"))
	return b.scanWhere("customer", strs("c_custkey", "c_name"), b.nn("c_custkey")).
		InnerJoin(orders, "c_custkey", "o_custkey").
		Keep("c_custkey", "c_name", "o_orderkey", "o_totalprice", "o_orderdate").
		InnerJoin(lines, "o_orderkey", "l_orderkey").
		Keep("c_custkey", "c_name", "o_orderkey", "o_totalprice", "o_orderdate", "l_quantity").
		Aggregate(b.Cols("c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice"), []AggFn{b.Sum(c("l_quantity")).As(sumName)}).
		TakeOrdered(100, []*plan.Expr{b.Desc(c("o_totalprice")), b.Asc(c("o_orderdate"))})
}

// q19 is the discounted revenue query (QUANTITY1 1, QUANTITY2 10,
// QUANTITY3 20, BRAND1 Brand#12, BRAND2 Brand#23, BRAND3 Brand#34): the
// disjunction stays the join condition, with the single-table parts
// pushed into each side as Spark's optimizer extracts them.
func q19(b *Builder) *Rel {
	c := b.Col
	type branch struct {
		brand      string
		containers []string
		lo, size   int32
	}
	branches := []branch{
		{"Brand#12", strs("SM CASE", "SM BOX", "SM PACK", "SM PKG"), 1, 5},
		{"Brand#23", strs("MED BAG", "MED BOX", "MED PKG", "MED PACK"), 10, 10},
		{"Brand#34", strs("LG CASE", "LG BOX", "LG PACK", "LG PKG"), 20, 15},
	}
	var lineConds, partConds, joinConds []*plan.Expr
	for _, br := range branches {
		brand := b.Eq(c("p_brand"), b.Str(br.brand))
		container := b.In(c("p_container"), b.Strs(br.containers...)...)
		lo, hi := b.Ge(c("l_quantity"), b.Int(br.lo)), b.Le(c("l_quantity"), b.Int(br.lo+10))
		size := b.Le(c("p_size"), b.Int(br.size))
		lineConds = append(lineConds, b.And(lo, hi))
		partConds = append(partConds, b.And(brand, container, size))
		joinConds = append(joinConds, b.And(brand, container, lo, hi, size))
	}
	return b.scanWhere("lineitem", strs("l_partkey", "l_quantity", "l_extendedprice", "l_discount", "l_shipinstruct", "l_shipmode"),
		b.nn("l_shipinstruct"), b.In(c("l_shipmode"), b.Strs("AIR", "AIR REG")...), b.Eq(c("l_shipinstruct"), b.Str("DELIVER IN PERSON")),
		b.nn("l_partkey"), b.Or(lineConds...)).
		Keep("l_partkey", "l_quantity", "l_extendedprice", "l_discount").
		Join(b.scanWhere("part", strs("p_partkey", "p_brand", "p_size", "p_container"),
			b.nn("p_size"), b.Ge(c("p_size"), b.Int(1)), b.nn("p_partkey"), b.Or(partConds...)),
			b.On("l_partkey", "p_partkey").Where(b.Or(joinConds...))).
		Keep("l_extendedprice", "l_discount").
		Aggregate(nil, []AggFn{b.Sum(b.disc()).As("revenue")})
}

// q20 is the potential part promotion query (COLOR forest, DATE
// 1994-01-01, NATION CANADA).
func q20(b *Builder) *Rel {
	c := b.Col
	const halfName = "(0.5 * sum(l_quantity))"
	forest := b.scanWhere("part", strs("p_partkey", "p_name"), b.nn("p_name"), b.Like(c("p_name"), "forest%")).
		Keep("p_partkey").Broadcast(c("p_partkey"))
	shipped := b.scanWhere("lineitem", strs("l_partkey", "l_suppkey", "l_quantity", "l_shipdate"),
		b.nn("l_shipdate"), b.Ge(c("l_shipdate"), b.Date("1994-01-01")), b.Lt(c("l_shipdate"), b.DateAdd("1994-01-01", 1, 0, 0)),
		b.nn("l_partkey"), b.nn("l_suppkey")).
		Keep("l_partkey", "l_suppkey", "l_quantity").
		Join(forest.Reuse(), b.OnType(plan.JoinLeftSemi, "l_partkey", "p_partkey")).
		Keep("l_partkey", "l_quantity", "l_suppkey").
		Aggregate(b.Cols("l_partkey", "l_suppkey"), []AggFn{b.Sum(c("l_quantity")).As("sum")},
			b.As(b.Mul(b.Dec("0.5"), c("sum")), halfName), c("l_partkey"), c("l_suppkey")).
		Filter(b.nn(halfName))
	candidates := b.scanWhere("partsupp", strs("ps_partkey", "ps_suppkey", "ps_availqty"), b.nn("ps_availqty"), b.nn("ps_partkey"), b.nn("ps_suppkey")).
		Join(forest, b.OnType(plan.JoinLeftSemi, "ps_partkey", "p_partkey")).
		Join(shipped, b.On("ps_partkey", "l_partkey", "ps_suppkey", "l_suppkey").Where(b.Gt(c("ps_availqty"), c(halfName)))).
		Keep("ps_suppkey")
	return b.scanWhere("supplier", strs("s_suppkey", "s_name", "s_address", "s_nationkey"), b.nn("s_nationkey")).
		Join(candidates, b.OnType(plan.JoinLeftSemi, "s_suppkey", "ps_suppkey")).
		Keep("s_name", "s_address", "s_nationkey").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_name"), b.Eq(c("n_name"), b.Str("CANADA")), b.nn("n_nationkey")).Keep("n_nationkey"),
			"s_nationkey", "n_nationkey").
		Keep("s_name", "s_address").
		OrderBy(b.Asc(c("s_name")))
}

// q21 is the suppliers who kept orders waiting query (NATION SAUDI
// ARABIA): EXISTS and NOT EXISTS as left semi and anti joins with a
// non-equi condition between the lineitem instances. By size, the inner
// joins that keep SAUDI ARABIA's suppliers and the 'F' orders come first
// (as DuckDB's and a cost-based Spark's join order puts them: the semi
// and anti joins only drop l1 rows, by l1's columns), so that l1 is 1/50
// of the late lineitems, and l2 and l3 are one broadcast of the
// lineitems of l1's orders rather than tables of 6M and 3.8M rows.
func q21(b *Builder) *Rel {
	if b.opts.Joins == JoinsAsWritten {
		return q21AsWritten(b)
	}
	c := b.Col
	late := func(extra ...*plan.Expr) *Rel {
		conds := append([]*plan.Expr{b.nn("l_receiptdate"), b.nn("l_commitdate"), b.Gt(c("l_receiptdate"), c("l_commitdate"))}, extra...)
		return b.scanWhere("lineitem", strs("l_orderkey", "l_suppkey", "l_commitdate", "l_receiptdate"), conds...).
			Keep("l_orderkey", "l_suppkey")
	}
	saudi := b.scanWhere("supplier", strs("s_suppkey", "s_name", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")).
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_name"), b.Eq(c("n_name"), b.Str("SAUDI ARABIA")), b.nn("n_nationkey")).Keep("n_nationkey"),
			"s_nationkey", "n_nationkey").
		Keep("s_suppkey", "s_name").Broadcast(c("s_suppkey"))
	failed := b.scanWhere("orders", strs("o_orderkey", "o_orderstatus"), b.nn("o_orderstatus"), b.Eq(c("o_orderstatus"), b.Str("F")), b.nn("o_orderkey")).
		Keep("o_orderkey").Broadcast(c("o_orderkey"))
	// l1 are the late lineitems of SAUDI ARABIA's suppliers on 'F' orders.
	l1 := late(b.nn("l_suppkey"), b.nn("l_orderkey")).
		Join(saudi, b.On("l_suppkey", "s_suppkey")).
		Keep("l_orderkey", "l_suppkey", "s_name").
		Join(failed, b.On("l_orderkey", "o_orderkey")).
		Keep("l_orderkey", "l_suppkey", "s_name")
	// keys are their order keys alone, from the same broadcasts; lines are
	// the lineitems of those orders (a semi-join reduction, see SemiJoin:
	// 5% of lineitem), broadcast once for both joins: the anti join's
	// NOT EXISTS of a late line tests the lateness in its condition (a
	// null date is no match, as the filter it replaces drops the row).
	keys := late(b.nn("l_suppkey"), b.nn("l_orderkey")).
		Join(saudi.Reuse(), b.On("l_suppkey", "s_suppkey")).
		Keep("l_orderkey").
		Join(failed.Reuse(), b.On("l_orderkey", "o_orderkey")).
		Keep("l_orderkey")
	lines := b.Scan("lineitem", "l_orderkey", "l_suppkey", "l_commitdate", "l_receiptdate").
		BroadcastHashJoin(keys, b.OnType(plan.JoinLeftSemi, "l_orderkey", "l_orderkey"), BuildRight).
		Broadcast(c("l_orderkey"))
	l2, l3 := lines, lines.Reuse()
	other := func(r *Rel) *plan.Expr { return b.Ne(r.Col("l_suppkey"), l1.Col("l_suppkey")) }
	return l1.
		Join(l2, b.OnType(plan.JoinLeftSemi, "l_orderkey", "l_orderkey").Where(other(l2))).
		Join(l3, b.OnType(plan.JoinLeftAnti, "l_orderkey", "l_orderkey").
			Where(b.And(other(l3), b.Gt(l3.Col("l_receiptdate"), l3.Col("l_commitdate"))))).
		Keep("s_name").
		Aggregate(b.Cols("s_name"), []AggFn{b.CountStar().As("numwait")}).
		TakeOrdered(100, []*plan.Expr{b.Desc(c("numwait")), b.Asc(c("s_name"))})
}

// q21AsWritten is q21 in the join order of Spark's approved plan: the
// semi and anti joins of all late lineitems first.
func q21AsWritten(b *Builder) *Rel {
	c := b.Col
	late := func(extra ...*plan.Expr) *Rel {
		conds := append([]*plan.Expr{b.nn("l_receiptdate"), b.nn("l_commitdate"), b.Gt(c("l_receiptdate"), c("l_commitdate"))}, extra...)
		return b.scanWhere("lineitem", strs("l_orderkey", "l_suppkey", "l_commitdate", "l_receiptdate"), conds...).
			Keep("l_orderkey", "l_suppkey")
	}
	l1 := late(b.nn("l_suppkey"), b.nn("l_orderkey"))
	l2 := b.Scan("lineitem", "l_orderkey", "l_suppkey")
	l3 := late()
	other := func(r *Rel) *plan.Expr { return b.Ne(r.Col("l_suppkey"), l1.Col("l_suppkey")) }
	waiting := l1.
		Join(l2, b.OnType(plan.JoinLeftSemi, "l_orderkey", "l_orderkey").Where(other(l2))).
		Join(l3, b.OnType(plan.JoinLeftAnti, "l_orderkey", "l_orderkey").Where(other(l3)))
	return b.scanWhere("supplier", strs("s_suppkey", "s_name", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")).
		InnerJoin(waiting, "s_suppkey", "l_suppkey").
		Keep("s_name", "s_nationkey", "l_orderkey").
		InnerJoin(b.scanWhere("orders", strs("o_orderkey", "o_orderstatus"), b.nn("o_orderstatus"), b.Eq(c("o_orderstatus"), b.Str("F")), b.nn("o_orderkey")).Keep("o_orderkey"),
			"l_orderkey", "o_orderkey").
		Keep("s_name", "s_nationkey").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_name"), b.Eq(c("n_name"), b.Str("SAUDI ARABIA")), b.nn("n_nationkey")).Keep("n_nationkey"),
			"s_nationkey", "n_nationkey").
		Keep("s_name").
		Aggregate(b.Cols("s_name"), []AggFn{b.CountStar().As("numwait")}).
		TakeOrdered(100, []*plan.Expr{b.Desc(c("numwait")), b.Asc(c("s_name"))})
}

// q22 is the global sales opportunity query (I1..I7 13 31 23 29 30 18
// 17): the average balance is a scalar subquery, NOT EXISTS a left anti
// join.
func q22(b *Builder) *Rel {
	c := b.Col
	codes := func() *plan.Expr {
		return b.In(b.Substring(c("c_phone"), 1, 2), b.Strs("13", "31", "23", "29", "30", "18", "17")...)
	}
	avgBal := b.ScalarSubquery(b.scanWhere("customer", strs("c_phone", "c_acctbal"), b.nn("c_acctbal"), b.Gt(c("c_acctbal"), b.Int(0)), codes()).
		Keep("c_acctbal").
		Aggregate(nil, []AggFn{b.Avg(c("c_acctbal")).As("avg(c_acctbal)")}))
	// customers are the rich customers in the country codes; their keys
	// alone cut orders before it is built (SemiJoin).
	customers := func() *Rel {
		return b.scanWhere("customer", strs("c_custkey", "c_phone", "c_acctbal"), b.nn("c_acctbal"), codes(), b.Gt(c("c_acctbal"), avgBal))
	}
	return customers().
		SemiJoin(b.Scan("orders", "o_custkey"), b.OnType(plan.JoinLeftAnti, "c_custkey", "o_custkey"), customers).
		Project(b.As(b.Substring(c("c_phone"), 1, 2), "cntrycode"), c("c_acctbal")).
		Aggregate(b.Cols("cntrycode"), []AggFn{b.CountStar().As("numcust"), b.Sum(c("c_acctbal")).As("totacctbal")}).
		OrderBy(b.Asc(c("cntrycode")))
}
