package planbuilder

import "github.com/hados-io/hados/race/plan"

// q9 is the product type profit measure query (COLOR green).
func q9(b *Builder) *Rel {
	c := b.Col
	amount := b.Sub(b.disc(), b.Mul(c("ps_supplycost"), c("l_quantity")))
	return b.scanWhere("part", strs("p_partkey", "p_name"), b.nn("p_name"), b.Like(c("p_name"), "%green%"), b.nn("p_partkey")).
		Keep("p_partkey").
		InnerJoin(b.scanWhere("lineitem", strs("l_orderkey", "l_partkey", "l_suppkey", "l_quantity", "l_extendedprice", "l_discount"),
			b.nn("l_partkey"), b.nn("l_suppkey"), b.nn("l_orderkey")), "p_partkey", "l_partkey").
		Keep("l_orderkey", "l_partkey", "l_suppkey", "l_quantity", "l_extendedprice", "l_discount").
		InnerJoin(b.scanWhere("supplier", strs("s_suppkey", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")), "l_suppkey", "s_suppkey").
		Keep("l_orderkey", "l_partkey", "l_suppkey", "l_quantity", "l_extendedprice", "l_discount", "s_nationkey").
		InnerJoin(b.scanWhere("partsupp", strs("ps_partkey", "ps_suppkey", "ps_supplycost"), b.nn("ps_suppkey"), b.nn("ps_partkey")),
			"l_suppkey", "ps_suppkey", "l_partkey", "ps_partkey").
		Keep("l_orderkey", "l_quantity", "l_extendedprice", "l_discount", "s_nationkey", "ps_supplycost").
		InnerJoin(b.scanWhere("orders", strs("o_orderkey", "o_orderdate"), b.nn("o_orderkey")), "l_orderkey", "o_orderkey").
		Keep("l_quantity", "l_extendedprice", "l_discount", "s_nationkey", "ps_supplycost", "o_orderdate").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_nationkey")), "s_nationkey", "n_nationkey").
		Project(b.As(c("n_name"), "nation"), b.As(b.Year(c("o_orderdate")), "o_year"), b.As(amount, "amount")).
		Aggregate(b.Cols("nation", "o_year"), []AggFn{b.Sum(c("amount")).As("sum_profit")}).
		OrderBy(b.Asc(c("nation")), b.Desc(c("o_year")))
}

// q10 is the returned item reporting query (DATE 1993-10-01).
//
// As written (Spark's approved plan), the 115k returned lineitems of the
// quarter's orders carry their customer's name, address, phone and
// comment through two joins into an aggregation keyed by all of them. By
// size, the revenue is aggregated by o_custkey first (39k groups; the same
// groups, since c_custkey is customer's key and n_nationkey nation's, so
// every other grouping column is a function of it) and only then joined
// with customer and nation: the strings are gathered once per customer,
// not once per lineitem, and the aggregation has one integer key.
func q10(b *Builder) *Rel {
	if b.opts.Joins == JoinsAsWritten {
		return q10AsWritten(b)
	}
	c := b.Col
	revenue := b.scanWhere("orders", strs("o_orderkey", "o_custkey", "o_orderdate"),
		b.nn("o_orderdate"), b.Ge(c("o_orderdate"), b.Date("1993-10-01")), b.Lt(c("o_orderdate"), b.DateAdd("1993-10-01", 0, 3, 0)),
		b.nn("o_custkey"), b.nn("o_orderkey")).Keep("o_orderkey", "o_custkey").
		InnerJoin(b.scanWhere("lineitem", strs("l_orderkey", "l_extendedprice", "l_discount", "l_returnflag"),
			b.nn("l_returnflag"), b.Eq(c("l_returnflag"), b.Str("R")), b.nn("l_orderkey")).Keep("l_orderkey", "l_extendedprice", "l_discount"), "o_orderkey", "l_orderkey").
		Keep("o_custkey", "l_extendedprice", "l_discount").
		Aggregate(b.Cols("o_custkey"), []AggFn{b.Sum(b.disc()).As("revenue")})
	return b.scanWhere("customer", strs("c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_comment"), b.nn("c_custkey"), b.nn("c_nationkey")).
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_nationkey")), "c_nationkey", "n_nationkey").
		Keep("c_custkey", "c_name", "c_address", "c_phone", "c_acctbal", "c_comment", "n_name").
		InnerJoin(revenue, "c_custkey", "o_custkey").
		Keep("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone", "c_comment").
		TakeOrdered(20, []*plan.Expr{b.Desc(c("revenue"))})
}

// q10AsWritten is q10 in the shape of Spark's approved plan.
func q10AsWritten(b *Builder) *Rel {
	c := b.Col
	return b.scanWhere("customer", strs("c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_comment"), b.nn("c_custkey"), b.nn("c_nationkey")).
		InnerJoin(b.scanWhere("orders", strs("o_orderkey", "o_custkey", "o_orderdate"),
			b.nn("o_orderdate"), b.Ge(c("o_orderdate"), b.Date("1993-10-01")), b.Lt(c("o_orderdate"), b.DateAdd("1993-10-01", 0, 3, 0)),
			b.nn("o_custkey"), b.nn("o_orderkey")).Keep("o_orderkey", "o_custkey"), "c_custkey", "o_custkey").
		Keep("c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_comment", "o_orderkey").
		InnerJoin(b.scanWhere("lineitem", strs("l_orderkey", "l_extendedprice", "l_discount", "l_returnflag"),
			b.nn("l_returnflag"), b.Eq(c("l_returnflag"), b.Str("R")), b.nn("l_orderkey")).Keep("l_orderkey", "l_extendedprice", "l_discount"), "o_orderkey", "l_orderkey").
		Keep("c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_comment", "l_extendedprice", "l_discount").
		InnerJoin(b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_nationkey")), "c_nationkey", "n_nationkey").
		Keep("c_custkey", "c_name", "c_address", "c_phone", "c_acctbal", "c_comment", "l_extendedprice", "l_discount", "n_name").
		Aggregate(b.Cols("c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address", "c_comment"), []AggFn{b.Sum(b.disc()).As("revenue")},
			b.Cols("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone", "c_comment")...).
		TakeOrdered(20, []*plan.Expr{b.Desc(c("revenue"))})
}

// q11 is the important stock identification query (NATION GERMANY,
// FRACTION 0.0001): the threshold is a scalar subquery reusing the main
// plan's broadcasts.
//
// As written (Spark's approved plan), partsupp joins all suppliers (800k
// rows kept) and then GERMANY. By size, supplier joins GERMANY first and
// the 400 German suppliers are the one broadcast both copies of partsupp
// join (and their runtime filter cuts partsupp to 32k rows at its scan),
// the order DuckDB picks.
func q11(b *Builder) *Rel {
	c := b.Col
	// stock keeps the rows of a copy of partsupp (cols of them) whose
	// supplier is German; second: the subquery's copy, which reuses the
	// first one's broadcasts
	var stock func(r *Rel, second bool, cols ...string) *Rel
	if b.opts.Joins == JoinsAsWritten {
		supp := b.scanWhere("supplier", strs("s_suppkey", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")).Broadcast(c("s_suppkey"))
		nation := b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_name"), b.Eq(c("n_name"), b.Str("GERMANY")), b.nn("n_nationkey")).
			Keep("n_nationkey").Broadcast(c("n_nationkey"))
		stock = func(r *Rel, second bool, cols ...string) *Rel {
			s, n := supp, nation
			if second {
				s, n = supp.Reuse(), nation.Reuse()
			}
			return r.InnerJoin(s, "ps_suppkey", "s_suppkey").Keep(append(cols, "s_nationkey")...).InnerJoin(n, "s_nationkey", "n_nationkey").Keep(cols...)
		}
	} else {
		nation := b.scanWhere("nation", strs("n_nationkey", "n_name"), b.nn("n_name"), b.Eq(c("n_name"), b.Str("GERMANY")), b.nn("n_nationkey")).
			Keep("n_nationkey")
		german := b.scanWhere("supplier", strs("s_suppkey", "s_nationkey"), b.nn("s_suppkey"), b.nn("s_nationkey")).
			InnerJoin(nation, "s_nationkey", "n_nationkey").Keep("s_suppkey").Broadcast(c("s_suppkey"))
		stock = func(r *Rel, second bool, cols ...string) *Rel {
			g := german
			if second {
				g = german.Reuse()
			}
			return r.InnerJoin(g, "ps_suppkey", "s_suppkey").Keep(cols...)
		}
	}
	value := b.Mul(c("ps_supplycost"), c("ps_availqty"))
	main := stock(b.scanWhere("partsupp", strs("ps_partkey", "ps_suppkey", "ps_availqty", "ps_supplycost"), b.nn("ps_suppkey")), false,
		"ps_partkey", "ps_availqty", "ps_supplycost")
	total := stock(b.scanWhere("partsupp", strs("ps_suppkey", "ps_availqty", "ps_supplycost"), b.nn("ps_suppkey")), true,
		"ps_availqty", "ps_supplycost").
		Aggregate(nil, []AggFn{b.Sum(value).As("total")}, b.As(b.Mul(c("total"), b.Dec("0.0001")), "(sum((ps_supplycost * ps_availqty)) * 0.0001)"))
	threshold := b.ScalarSubquery(total)
	return main.Aggregate(b.Cols("ps_partkey"), []AggFn{b.Sum(value).As("value")}).
		Filter(b.And(b.nn("value"), b.Gt(c("value"), threshold))).
		OrderBy(b.Desc(c("value")))
}

// q12 is the shipping modes and order priority query (SHIPMODE1 MAIL,
// SHIPMODE2 SHIP, DATE 1994-01-01).
func q12(b *Builder) *Rel {
	c := b.Col
	urgent, high := b.Str("1-URGENT"), b.Str("2-HIGH")
	prio := c("o_orderpriority")
	return b.scanWhere("orders", strs("o_orderkey", "o_orderpriority"), b.nn("o_orderkey")).
		InnerJoin(b.scanWhere("lineitem", strs("l_orderkey", "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipmode"),
			b.nn("l_commitdate"), b.nn("l_receiptdate"), b.nn("l_shipdate"), b.In(c("l_shipmode"), b.Strs("MAIL", "SHIP")...),
			b.Lt(c("l_commitdate"), c("l_receiptdate")), b.Lt(c("l_shipdate"), c("l_commitdate")),
			b.Ge(c("l_receiptdate"), b.Date("1994-01-01")), b.Lt(c("l_receiptdate"), b.DateAdd("1994-01-01", 1, 0, 0)), b.nn("l_orderkey")).
			Keep("l_orderkey", "l_shipmode"), "o_orderkey", "l_orderkey").
		Keep("o_orderpriority", "l_shipmode").
		Aggregate(b.Cols("l_shipmode"), []AggFn{
			b.Sum(b.Case(b.Or(b.Eq(prio, urgent), b.Eq(prio, high)), b.Int(1), b.Int(0))).As("high_line_count"),
			b.Sum(b.Case(b.And(b.Ne(prio, urgent), b.Ne(prio, high)), b.Int(1), b.Int(0))).As("low_line_count"),
		}).
		OrderBy(b.Asc(c("l_shipmode")))
}

// q13 is the customer distribution query (WORD1 special, WORD2 requests):
// a left outer join and two levels of aggregation.
func q13(b *Builder) *Rel {
	c := b.Col
	orders := b.scanWhere("orders", strs("o_orderkey", "o_custkey", "o_comment"),
		b.nn("o_comment"), b.Not(b.Like(c("o_comment"), "%special%requests%")), b.nn("o_custkey")).Keep("o_orderkey", "o_custkey")
	return b.Scan("customer", "c_custkey").
		Join(orders, b.OnType(plan.JoinLeftOuter, "c_custkey", "o_custkey")).
		Keep("c_custkey", "o_orderkey").
		Aggregate(b.Cols("c_custkey"), []AggFn{b.Count(c("o_orderkey")).As("c_count")}, c("c_count")).
		Aggregate(b.Cols("c_count"), []AggFn{b.CountStar().As("custdist")}).
		OrderBy(b.Desc(c("custdist")), b.Desc(c("c_count")))
}

// q14 is the promotion effect query (DATE 1995-09-01).
func q14(b *Builder) *Rel {
	c := b.Col
	return b.scanWhere("lineitem", strs("l_partkey", "l_extendedprice", "l_discount", "l_shipdate"),
		b.nn("l_shipdate"), b.Ge(c("l_shipdate"), b.Date("1995-09-01")), b.Lt(c("l_shipdate"), b.DateAdd("1995-09-01", 0, 1, 0)), b.nn("l_partkey")).
		Keep("l_partkey", "l_extendedprice", "l_discount").
		InnerJoin(b.scanWhere("part", strs("p_partkey", "p_type"), b.nn("p_partkey")), "l_partkey", "p_partkey").
		Keep("l_extendedprice", "l_discount", "p_type").
		Aggregate(nil, []AggFn{
			b.Sum(b.Case(b.Like(c("p_type"), "PROMO%"), b.disc(), b.Int(0))).As("promo"),
			b.Sum(b.disc()).As("total"),
		}, b.As(b.Div(b.Mul(b.Dec("100.00"), c("promo")), c("total")), "promo_revenue"))
}

// revenue0Rows are the rows of Q15's view (revenue per supplier in
// 1996-Q1) before it aggregates them; notNullSupplier adds the
// isnotnull(l_suppkey) Spark infers from the main query's join.
func revenue0Rows(b *Builder, notNullSupplier bool) *Rel {
	c := b.Col
	var nn *plan.Expr
	if notNullSupplier {
		nn = b.nn("l_suppkey")
	}
	return b.scanWhere("lineitem", strs("l_suppkey", "l_extendedprice", "l_discount", "l_shipdate"),
		b.nn("l_shipdate"), b.Ge(c("l_shipdate"), b.Date("1996-01-01")), b.Lt(c("l_shipdate"), b.DateAdd("1996-01-01", 0, 3, 0)), nn).
		Keep("l_suppkey", "l_extendedprice", "l_discount")
}

// q15 is the top supplier query (DATE 1996-01-01): the view's maximum is a
// scalar subquery.
//
// As written (Spark's approved plan), the main query's copy of the view
// filters isnotnull(l_suppkey) below its aggregation (inferred from the
// join and pushed through the grouping key), so the two copies differ and
// lineitem is scanned and aggregated twice. By size, the filter stays
// above the final aggregation, where it means the same (it tests the
// grouping key), the two copies are one exchange, and the subquery reads a
// ReusedExchange of it: one scan and one partial aggregation of lineitem.
func q15(b *Builder) *Rel {
	c := b.Col
	sum := b.Sum(b.disc()).As("total_revenue")
	// view is a copy of the view: the main query's or the subquery's;
	// best are the tests of the main query's copy, before its comparison
	// with the maximum
	var view func(main bool, results ...*plan.Expr) *Rel
	best := []*plan.Expr{b.nn("total_revenue")}
	if b.opts.Joins == JoinsAsWritten {
		view = func(main bool, results ...*plan.Expr) *Rel {
			return revenue0Rows(b, main).Aggregate(b.Cols("l_suppkey"), []AggFn{sum}, results...)
		}
	} else {
		ex := revenue0Rows(b, false).PartialAgg(b.Cols("l_suppkey"), sum).HashExchange(c("l_suppkey"))
		view = func(main bool, results ...*plan.Expr) *Rel {
			if main {
				return ex.FinalAgg(results...)
			}
			return ex.Reuse().FinalAgg(results...)
		}
		best = append([]*plan.Expr{b.nn("supplier_no")}, best...)
	}
	top := view(false, c("total_revenue")).
		Aggregate(nil, []AggFn{b.Max(c("total_revenue")).As("max(total_revenue)")})
	maxRevenue := b.ScalarSubquery(top)
	supplier := view(true, b.As(c("l_suppkey"), "supplier_no"), c("total_revenue")).
		Filter(b.And(append(best, b.Eq(c("total_revenue"), maxRevenue))...)).Expect(1)
	return b.scanWhere("supplier", strs("s_suppkey", "s_name", "s_address", "s_phone"), b.nn("s_suppkey")).
		InnerJoin(supplier, "s_suppkey", "supplier_no").
		Keep("s_suppkey", "s_name", "s_address", "s_phone", "total_revenue").
		OrderBy(b.Asc(c("s_suppkey")))
}

// q16 is the parts/supplier relationship query (BRAND Brand#45, TYPE
// MEDIUM POLISHED, SIZEs 49 14 23 45 19 3 36 9): NOT IN as a null-aware
// left anti join and count(distinct) as two aggregation levels.
//
// By size, the distinct level skips its partial step: its input is
// partsupp's rows (unique by part and supplier) with their part's brand,
// type and size, so the partial aggregation reduces 120,255 rows to
// 120,224 at SF 1 and costs a quarter of the query. The rows are
// exchanged by the four grouping columns and one aggregation without
// functions (the same node partial or final) keeps each once.
func q16(b *Builder) *Rel {
	c := b.Col
	complaints := b.scanWhere("supplier", strs("s_suppkey", "s_comment"), b.nn("s_comment"), b.Like(c("s_comment"), "%Customer%Complaints%")).
		Keep("s_suppkey")
	anti := b.OnType(plan.JoinLeftAnti, "ps_suppkey", "s_suppkey")
	anti.NullAware = true
	keys := b.Cols("p_brand", "p_type", "p_size")
	distinct := append(b.Cols("p_brand", "p_type", "p_size"), c("ps_suppkey"))
	pairs := b.scanWhere("partsupp", strs("ps_partkey", "ps_suppkey"), b.nn("ps_partkey")).
		Join(complaints, anti).
		InnerJoin(b.scanWhere("part", strs("p_partkey", "p_brand", "p_type", "p_size"),
			b.nn("p_brand"), b.nn("p_type"), b.Ne(c("p_brand"), b.Str("Brand#45")), b.Not(b.Like(c("p_type"), "MEDIUM POLISHED%")),
			b.In(c("p_size"), b.Ints(49, 14, 23, 45, 19, 3, 36, 9)...), b.nn("p_partkey")), "ps_partkey", "p_partkey").
		Keep("ps_suppkey", "p_brand", "p_type", "p_size")
	if b.opts.Joins == JoinsAsWritten {
		pairs = pairs.Aggregate(distinct, nil)
	} else {
		pairs = pairs.HashExchange(distinct...).PartialAgg(distinct)
	}
	return pairs.Aggregate(keys, []AggFn{b.CountDistinct(c("ps_suppkey")).As("supplier_cnt")}).
		OrderBy(b.Desc(c("supplier_cnt")), b.Asc(c("p_brand")), b.Asc(c("p_type")), b.Asc(c("p_size")))
}
