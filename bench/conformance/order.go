package conformance

import "fmt"

// tpchOrder lists, per TPC-H query, the result columns (0-based) of its
// ORDER BY in order; the specification's and Spark's texts select the same
// columns in the same order. Q6, Q14, Q17 and Q19 return one row.
var tpchOrder = [22][]int{
	{0, 1},       // Q1  l_returnflag, l_linestatus
	{0, 2, 1, 3}, // Q2  s_acctbal desc, n_name, s_name, p_partkey
	{1, 2},       // Q3  revenue desc, o_orderdate
	{0},          // Q4  o_orderpriority
	{1},          // Q5  revenue desc
	{},           // Q6
	{0, 1, 2},    // Q7  supp_nation, cust_nation, l_year
	{0},          // Q8  o_year
	{0, 1},       // Q9  nation, o_year desc
	{2},          // Q10 revenue desc
	{1},          // Q11 value desc
	{0},          // Q12 l_shipmode
	{1, 0},       // Q13 custdist desc, c_count desc
	{},           // Q14
	{0},          // Q15 s_suppkey
	{3, 0, 1, 2}, // Q16 supplier_cnt desc, p_brand, p_type, p_size
	{},           // Q17
	{4, 3},       // Q18 o_totalprice desc, o_orderdate
	{},           // Q19
	{0},          // Q20 s_name
	{1, 0},       // Q21 numwait desc, s_name
	{0},          // Q22 cntrycode
}

// TPCHOrder returns the ORDER BY columns of TPC-H query q (1..22) as
// result column indices, for Compare.
func TPCHOrder(q int) ([]int, error) {
	if q < 1 || q > len(tpchOrder) {
		return nil, fmt.Errorf("conformance: TPC-H query %d does not exist (want 1..22)", q)
	}
	return tpchOrder[q-1], nil
}
