package planbuilder

import "github.com/hados-io/hados/race/plan"

// q1 is the pricing summary report (DELTA = 90 days).
func q1(b *Builder) *Rel {
	c := b.Col
	li := b.scanWhere("lineitem", strs("l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate"),
		b.nn("l_shipdate"), b.Le(c("l_shipdate"), b.DateAdd("1998-12-01", 0, 0, -90))).
		Keep("l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus")
	charge := b.Mul(b.disc(), b.Add(b.Int(1), c("l_tax")))
	return li.Aggregate(b.Cols("l_returnflag", "l_linestatus"), []AggFn{
		b.Sum(c("l_quantity")).As("sum_qty"), b.Sum(c("l_extendedprice")).As("sum_base_price"),
		b.Sum(b.disc()).As("sum_disc_price"), b.Sum(charge).As("sum_charge"),
		b.Avg(c("l_quantity")).As("avg_qty"), b.Avg(c("l_extendedprice")).As("avg_price"),
		b.Avg(c("l_discount")).As("avg_disc"), b.CountStar().As("count_order"),
	}).OrderBy(b.Asc(c("l_returnflag")), b.Asc(c("l_linestatus")))
}

// q2 is the minimum cost supplier query (SIZE 15, TYPE BRASS, REGION EUROPE).
func q2(b *Builder) *Rel {
	c := b.Col
	part := b.scanWhere("part", strs("p_partkey", "p_mfgr", "p_type", "p_size"),
		b.nn("p_size"), b.nn("p_type"), b.Eq(c("p_size"), b.Int(15)), b.Like(c("p_type"), "%BRASS"), b.nn("p_partkey")).
		Keep("p_partkey", "p_mfgr")
	ps := b.scanWhere("partsupp", strs("ps_partkey", "ps_suppkey", "ps_supplycost"), b.nn("ps_partkey"), b.nn("ps_supplycost"), b.nn("ps_suppkey"))
	main := part.InnerJoin(ps, "p_partkey", "ps_partkey").Keep("p_partkey", "p_mfgr", "ps_suppkey", "ps_supplycost")

	region := b.scanWhere("region", strs("r_regionkey", "r_name"), b.nn("r_name"), b.Eq(c("r_name"), b.Str("EUROPE")), b.nn("r_regionkey")).
		Keep("r_regionkey").Broadcast(c("r_regionkey"))
	minCost := b.scanWhere("partsupp", strs("ps_partkey", "ps_suppkey", "ps_supplycost"), b.nn("ps_suppkey"), b.nn("ps_partkey")).
		InnerJoin(b.scanWhere("supplier", strs("s_suppkey", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")), "ps_suppkey", "s_suppkey").
		Keep("ps_partkey", "ps_supplycost", "s_nationkey").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_regionkey"), b.nn("n_nationkey"), b.nn("n_regionkey")), "s_nationkey", "n_nationkey").
		Keep("ps_partkey", "ps_supplycost", "n_regionkey").
		InnerJoin(region, "n_regionkey", "r_regionkey").
		Keep("ps_partkey", "ps_supplycost").
		Aggregate(b.Cols("ps_partkey"), []AggFn{b.Min(c("ps_supplycost")).As("min(ps_supplycost)")}, c("min(ps_supplycost)"), c("ps_partkey")).
		Filter(b.nn("min(ps_supplycost)"))

	return main.InnerJoin(minCost, "ps_supplycost", "min(ps_supplycost)", "p_partkey", "ps_partkey").
		Keep("p_partkey", "p_mfgr", "ps_suppkey").
		InnerJoin(b.scanWhere("supplier", strs("s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment"), b.nn("s_suppkey"), b.nn("s_nationkey")), "ps_suppkey", "s_suppkey").
		Keep("p_partkey", "p_mfgr", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name", "n_regionkey"), b.nn("n_nationkey"), b.nn("n_regionkey")), "s_nationkey", "n_nationkey").
		Keep("p_partkey", "p_mfgr", "s_name", "s_address", "s_phone", "s_acctbal", "s_comment", "n_name", "n_regionkey").
		InnerJoin(region.Reuse(), "n_regionkey", "r_regionkey").
		Keep("s_acctbal", "s_name", "n_name", "p_partkey", "p_mfgr", "s_address", "s_phone", "s_comment").
		TakeOrdered(100, []*plan.Expr{b.Desc(c("s_acctbal")), b.Asc(c("n_name")), b.Asc(c("s_name")), b.Asc(c("p_partkey"))})
}

// q3 is the shipping priority query (SEGMENT BUILDING, DATE 1995-03-15).
func q3(b *Builder) *Rel {
	c := b.Col
	day := b.Date("1995-03-15")
	return b.scanWhere("customer", strs("c_custkey", "c_mktsegment"), b.nn("c_mktsegment"), b.Eq(c("c_mktsegment"), b.Str("BUILDING")), b.nn("c_custkey")).
		Keep("c_custkey").
		InnerJoin(b.scanWhere("orders", strs("o_orderkey", "o_custkey", "o_orderdate", "o_shippriority"),
			b.nn("o_orderdate"), b.Lt(c("o_orderdate"), day), b.nn("o_custkey"), b.nn("o_orderkey")), "c_custkey", "o_custkey").
		Keep("o_orderkey", "o_orderdate", "o_shippriority").
		InnerJoin(b.scanWhere("lineitem", strs("l_orderkey", "l_extendedprice", "l_discount", "l_shipdate"),
			b.nn("l_shipdate"), b.Gt(c("l_shipdate"), day), b.nn("l_orderkey")).Keep("l_orderkey", "l_extendedprice", "l_discount"), "o_orderkey", "l_orderkey").
		Keep("o_orderdate", "o_shippriority", "l_orderkey", "l_extendedprice", "l_discount").
		Aggregate(b.Cols("l_orderkey", "o_orderdate", "o_shippriority"), []AggFn{b.Sum(b.disc()).As("revenue")},
			b.Cols("l_orderkey", "revenue", "o_orderdate", "o_shippriority")...).
		TakeOrdered(10, []*plan.Expr{b.Desc(c("revenue")), b.Asc(c("o_orderdate"))})
}

// q4 is the order priority checking query (DATE 1993-07-01): EXISTS as a
// left semi join.
func q4(b *Builder) *Rel {
	c := b.Col
	late := b.scanWhere("lineitem", strs("l_orderkey", "l_commitdate", "l_receiptdate"),
		b.nn("l_commitdate"), b.nn("l_receiptdate"), b.Lt(c("l_commitdate"), c("l_receiptdate"))).Keep("l_orderkey")
	// orders(cols) are the quarter's orders; the order keys alone cut
	// lineitem before it is built (SemiJoin).
	orders := func(cols ...string) *Rel {
		return b.scanWhere("orders", append(strs("o_orderkey", "o_orderdate"), cols...),
			b.nn("o_orderdate"), b.Ge(c("o_orderdate"), b.Date("1993-07-01")), b.Lt(c("o_orderdate"), b.DateAdd("1993-07-01", 0, 3, 0))).
			Keep(append(strs("o_orderkey"), cols...)...)
	}
	return orders("o_orderpriority").
		SemiJoin(late, b.OnType(plan.JoinLeftSemi, "o_orderkey", "l_orderkey"), func() *Rel { return orders() }).
		Keep("o_orderpriority").
		Aggregate(b.Cols("o_orderpriority"), []AggFn{b.CountStar().As("order_count")}).
		OrderBy(b.Asc(c("o_orderpriority")))
}

// q5 is the local supplier volume query (REGION ASIA, DATE 1994-01-01).
func q5(b *Builder) *Rel {
	c := b.Col
	return b.scanWhere("customer", strs("c_custkey", "c_nationkey"), b.nn("c_custkey"), b.nn("c_nationkey")).
		InnerJoin(b.scanWhere("orders", strs("o_orderkey", "o_custkey", "o_orderdate"),
			b.nn("o_orderdate"), b.Ge(c("o_orderdate"), b.Date("1994-01-01")), b.Lt(c("o_orderdate"), b.DateAdd("1994-01-01", 1, 0, 0)),
			b.nn("o_custkey"), b.nn("o_orderkey")).Keep("o_orderkey", "o_custkey"), "c_custkey", "o_custkey").
		Keep("c_nationkey", "o_orderkey").
		InnerJoin(b.scanWhere("lineitem", strs("l_orderkey", "l_suppkey", "l_extendedprice", "l_discount"), b.nn("l_orderkey"), b.nn("l_suppkey")), "o_orderkey", "l_orderkey").
		Keep("c_nationkey", "l_suppkey", "l_extendedprice", "l_discount").
		InnerJoin(b.scanWhere("supplier", strs("s_suppkey", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")), "l_suppkey", "s_suppkey", "c_nationkey", "s_nationkey").
		Keep("l_extendedprice", "l_discount", "s_nationkey").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name", "n_regionkey"), b.nn("n_nationkey"), b.nn("n_regionkey")), "s_nationkey", "n_nationkey").
		Keep("l_extendedprice", "l_discount", "n_name", "n_regionkey").
		InnerJoin(b.scanWhere("region", strs("r_regionkey", "r_name"), b.nn("r_name"), b.Eq(c("r_name"), b.Str("ASIA")), b.nn("r_regionkey")).Keep("r_regionkey"), "n_regionkey", "r_regionkey").
		Keep("l_extendedprice", "l_discount", "n_name").
		Aggregate(b.Cols("n_name"), []AggFn{b.Sum(b.disc()).As("revenue")}).
		OrderBy(b.Desc(c("revenue")))
}

// q6 is the forecasting revenue change query (DATE 1994-01-01, DISCOUNT
// 0.06, QUANTITY 24).
func q6(b *Builder) *Rel {
	c := b.Col
	return b.scanWhere("lineitem", strs("l_quantity", "l_extendedprice", "l_discount", "l_shipdate"),
		b.nn("l_shipdate"), b.nn("l_discount"), b.nn("l_quantity"),
		b.Ge(c("l_shipdate"), b.Date("1994-01-01")), b.Lt(c("l_shipdate"), b.DateAdd("1994-01-01", 1, 0, 0)),
		b.Ge(c("l_discount"), b.Dec("0.05")), b.Le(c("l_discount"), b.Dec("0.07")), b.Lt(c("l_quantity"), b.Int(24))).
		Keep("l_extendedprice", "l_discount").
		Aggregate(nil, []AggFn{b.Sum(b.Mul(c("l_extendedprice"), c("l_discount"))).As("revenue")})
}

// q7 is the volume shipping query (NATION1 FRANCE, NATION2 GERMANY).
//
// As written (Spark's approved plan), lineitem's 1.8M rows of 1995-1996
// join supplier, orders and customer before the two nation joins keep
// 5.8k of them. By size, the dimensions meet their nations first, the
// order DuckDB picks: the 800 French and German suppliers are broadcast
// (their runtime filter cuts lineitem at its scan to 146k rows), and the
// 120k orders of French and German customers are broadcast and joined on
// the nation pair condition.
func q7(b *Builder) *Rel {
	if b.opts.Joins == JoinsAsWritten {
		return q7AsWritten(b)
	}
	c := b.Col
	fr, de := b.Str("FRANCE"), b.Str("GERMANY")
	nations := b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_nationkey"),
		b.Or(b.Eq(c("n_name"), fr), b.Eq(c("n_name"), de))).Broadcast(c("n_nationkey"))
	suppliers := b.scanWhere("supplier", strs("s_suppkey", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")).
		InnerJoin(nations, "s_nationkey", "n_nationkey").
		Project(c("s_suppkey"), b.As(c("n_name"), "supp_nation"))
	orders := b.scanWhere("orders", strs("o_orderkey", "o_custkey"), b.nn("o_orderkey"), b.nn("o_custkey")).
		InnerJoin(b.scanWhere("customer", strs("c_custkey", "c_nationkey"), b.nn("c_custkey"), b.nn("c_nationkey")).
			InnerJoin(nations.Reuse(), "c_nationkey", "n_nationkey").
			Project(c("c_custkey"), b.As(c("n_name"), "cust_nation")), "o_custkey", "c_custkey").
		Keep("o_orderkey", "cust_nation")
	supp, cust := c("supp_nation"), c("cust_nation")
	cond := b.Or(b.And(b.Eq(supp, fr), b.Eq(cust, de)), b.And(b.Eq(supp, de), b.Eq(cust, fr)))
	return b.scanWhere("lineitem", strs("l_orderkey", "l_suppkey", "l_extendedprice", "l_discount", "l_shipdate"),
		b.nn("l_shipdate"), b.Ge(c("l_shipdate"), b.Date("1995-01-01")), b.Le(c("l_shipdate"), b.Date("1996-12-31")),
		b.nn("l_suppkey"), b.nn("l_orderkey")).
		InnerJoin(suppliers, "l_suppkey", "s_suppkey").
		Keep("l_orderkey", "l_extendedprice", "l_discount", "l_shipdate", "supp_nation").
		Join(orders, b.On("l_orderkey", "o_orderkey").Where(cond)).
		Project(supp, cust, b.As(b.Year(c("l_shipdate")), "l_year"), b.As(b.disc(), "volume")).
		Aggregate(b.Cols("supp_nation", "cust_nation", "l_year"), []AggFn{b.Sum(c("volume")).As("revenue")}).
		OrderBy(b.Asc(c("supp_nation")), b.Asc(c("cust_nation")), b.Asc(c("l_year")))
}

// q7AsWritten is q7 in the join order of Spark's approved plan.
func q7AsWritten(b *Builder) *Rel {
	c := b.Col
	nations := b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_nationkey"),
		b.Or(b.Eq(c("n_name"), b.Str("FRANCE")), b.Eq(c("n_name"), b.Str("GERMANY")))).Broadcast(c("n_nationkey"))
	left := b.scanWhere("supplier", strs("s_suppkey", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")).
		InnerJoin(b.scanWhere("lineitem", strs("l_orderkey", "l_suppkey", "l_extendedprice", "l_discount", "l_shipdate"),
			b.nn("l_shipdate"), b.Ge(c("l_shipdate"), b.Date("1995-01-01")), b.Le(c("l_shipdate"), b.Date("1996-12-31")),
			b.nn("l_suppkey"), b.nn("l_orderkey")), "s_suppkey", "l_suppkey").
		Keep("s_nationkey", "l_orderkey", "l_extendedprice", "l_discount", "l_shipdate").
		InnerJoin(b.scanWhere("orders", strs("o_orderkey", "o_custkey"), b.nn("o_orderkey"), b.nn("o_custkey")), "l_orderkey", "o_orderkey").
		Keep("s_nationkey", "l_extendedprice", "l_discount", "l_shipdate", "o_custkey").
		InnerJoin(b.scanWhere("customer", strs("c_custkey", "c_nationkey"), b.nn("c_custkey"), b.nn("c_nationkey")), "o_custkey", "c_custkey").
		Keep("s_nationkey", "l_extendedprice", "l_discount", "l_shipdate", "c_nationkey").
		InnerJoin(nations, "s_nationkey", "n_nationkey").
		Keep("l_extendedprice", "l_discount", "l_shipdate", "c_nationkey", "n_name")
	n2 := nations.Reuse()
	supp, cust := left.Col("n_name"), n2.Col("n_name")
	fr, de := b.Str("FRANCE"), b.Str("GERMANY")
	cond := b.Or(b.And(b.Eq(supp, fr), b.Eq(cust, de)), b.And(b.Eq(supp, de), b.Eq(cust, fr)))
	return left.Join(n2, b.On("c_nationkey", "n_nationkey").Where(cond)).
		Project(b.As(supp, "supp_nation"), b.As(cust, "cust_nation"), b.As(b.Year(c("l_shipdate")), "l_year"), b.As(b.disc(), "volume")).
		Aggregate(b.Cols("supp_nation", "cust_nation", "l_year"), []AggFn{b.Sum(c("volume")).As("revenue")}).
		OrderBy(b.Asc(c("supp_nation")), b.Asc(c("cust_nation")), b.Asc(c("l_year")))
}

// q8 is the national market share query (NATION BRAZIL, REGION AMERICA,
// TYPE ECONOMY ANODIZED STEEL).
func q8(b *Builder) *Rel {
	c := b.Col
	return b.scanWhere("part", strs("p_partkey", "p_type"), b.nn("p_type"), b.Eq(c("p_type"), b.Str("ECONOMY ANODIZED STEEL")), b.nn("p_partkey")).
		Keep("p_partkey").
		InnerJoin(b.scanWhere("lineitem", strs("l_orderkey", "l_partkey", "l_suppkey", "l_extendedprice", "l_discount"), b.nn("l_partkey"), b.nn("l_suppkey"), b.nn("l_orderkey")), "p_partkey", "l_partkey").
		Keep("l_orderkey", "l_suppkey", "l_extendedprice", "l_discount").
		InnerJoin(b.scanWhere("supplier", strs("s_suppkey", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")), "l_suppkey", "s_suppkey").
		Keep("l_orderkey", "l_extendedprice", "l_discount", "s_nationkey").
		InnerJoin(b.scanWhere("orders", strs("o_orderkey", "o_custkey", "o_orderdate"),
			b.nn("o_orderdate"), b.Ge(c("o_orderdate"), b.Date("1995-01-01")), b.Le(c("o_orderdate"), b.Date("1996-12-31")),
			b.nn("o_orderkey"), b.nn("o_custkey")), "l_orderkey", "o_orderkey").
		Keep("l_extendedprice", "l_discount", "s_nationkey", "o_custkey", "o_orderdate").
		InnerJoin(b.scanWhere("customer", strs("c_custkey", "c_nationkey"), b.nn("c_custkey"), b.nn("c_nationkey")), "o_custkey", "c_custkey").
		Keep("l_extendedprice", "l_discount", "s_nationkey", "o_orderdate", "c_nationkey").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_regionkey"), b.nn("n_nationkey"), b.nn("n_regionkey")), "c_nationkey", "n_nationkey").
		Keep("l_extendedprice", "l_discount", "s_nationkey", "o_orderdate", "n_regionkey").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_nationkey")), "s_nationkey", "n_nationkey").
		Keep("l_extendedprice", "l_discount", "o_orderdate", "n_regionkey", "n_name").
		InnerJoin(b.scanWhere("region", strs("r_regionkey", "r_name"), b.nn("r_name"), b.Eq(c("r_name"), b.Str("AMERICA")), b.nn("r_regionkey")).Keep("r_regionkey"), "n_regionkey", "r_regionkey").
		Project(b.As(b.Year(c("o_orderdate")), "o_year"), b.As(b.disc(), "volume"), b.As(c("n_name"), "nation")).
		Aggregate(b.Cols("o_year"), []AggFn{
			b.Sum(b.Case(b.Eq(c("nation"), b.Str("BRAZIL")), c("volume"), b.Int(0))).As("brazil"),
			b.Sum(c("volume")).As("total"),
		}, c("o_year"), b.As(b.Div(c("brazil"), c("total")), "mkt_share")).
		OrderBy(b.Asc(c("o_year")))
}
