package tpchgen

// tableSpec is how a table is generated. Rows are produced in "units": a
// unit is one row for most tables, one part (four partsupp rows) for
// partsupp and one order (one to seven rows) for lineitem. Every row is a
// pure function of (seed, unit), so any unit range can be generated alone.
type tableSpec struct {
	name string
	cols []ColumnDef
	// units is the number of generation units at cardinality c.
	units func(c cardinality) int64
	// rowsPerUnit is the exact (or, for lineitem, average) rows per unit.
	rowsPerUnit int64
	// fill appends the rows of units [lo, hi) to c.
	fill func(g *gen, c *cols, lo, hi int64)
	// unitRows is the exact row count of unit u when it varies; nil means
	// rowsPerUnit.
	unitRows func(g *gen, u int64) int64
}

func (t *tableSpec) rowCount(g *gen, lo, hi int64) int64 {
	if t.unitRows == nil {
		return (hi - lo) * t.rowsPerUnit
	}
	var n int64
	for u := lo; u < hi; u++ {
		n += t.unitRows(g, u)
	}
	return n
}

// unitRange is a range [lo, hi) of units and its row count.
type unitRange struct{ lo, hi, rows int64 }

// split cuts units [0, units) into ranges of at most maxRows rows each
// (a single unit larger than maxRows gets a range of its own). There is
// always at least one range.
func (t *tableSpec) split(g *gen, units, maxRows int64) []unitRange {
	maxRows = max(maxRows, 1)
	if t.unitRows == nil {
		per := max(1, maxRows/t.rowsPerUnit)
		var out []unitRange
		for lo := int64(0); lo < units || lo == 0; lo += per {
			hi := min(units, lo+per)
			out = append(out, unitRange{lo, hi, (hi - lo) * t.rowsPerUnit})
		}
		return out
	}
	out := []unitRange{{}}
	for u := int64(0); u < units; u++ {
		n := t.unitRows(g, u)
		if cur := &out[len(out)-1]; cur.rows > 0 && cur.rows+n > maxRows {
			out = append(out, unitRange{lo: u, hi: u})
		}
		cur := &out[len(out)-1]
		cur.hi, cur.rows = u+1, cur.rows+n
	}
	return out
}

func fixed(n int64) func(cardinality) int64 { return func(cardinality) int64 { return n } }

// registry lists the tables largest first, the order Generate schedules
// them in so that the long jobs start early.
var registry = []*tableSpec{
	{
		name: "lineitem",
		cols: []ColumnDef{
			col("l_orderkey", kindID), col("l_partkey", kindID), col("l_suppkey", kindID),
			col("l_linenumber", kindInt), col("l_quantity", kindMoney),
			col("l_extendedprice", kindMoney), col("l_discount", kindMoney), col("l_tax", kindMoney),
			col("l_returnflag", kindString), col("l_linestatus", kindString),
			col("l_shipdate", kindDate), col("l_commitdate", kindDate), col("l_receiptdate", kindDate),
			col("l_shipinstruct", kindString), col("l_shipmode", kindString), col("l_comment", kindString),
		},
		units:       func(c cardinality) int64 { return c.orders },
		rowsPerUnit: 4,
		fill:        fillLineitem,
		unitRows:    linesOfOrder,
	},
	{
		name: "orders",
		cols: []ColumnDef{
			col("o_orderkey", kindID), col("o_custkey", kindID), col("o_orderstatus", kindString),
			col("o_totalprice", kindMoney), col("o_orderdate", kindDate),
			col("o_orderpriority", kindString), col("o_clerk", kindString),
			col("o_shippriority", kindInt), col("o_comment", kindString),
		},
		units:       func(c cardinality) int64 { return c.orders },
		rowsPerUnit: 1,
		fill:        fillOrders,
	},
	{
		name: "partsupp",
		cols: []ColumnDef{
			col("ps_partkey", kindID), col("ps_suppkey", kindID), col("ps_availqty", kindInt),
			col("ps_supplycost", kindMoney), col("ps_comment", kindString),
		},
		units:       func(c cardinality) int64 { return c.part },
		rowsPerUnit: 4,
		fill:        fillPartSupp,
	},
	{
		name: "part",
		cols: []ColumnDef{
			col("p_partkey", kindID), col("p_name", kindString), col("p_mfgr", kindString),
			col("p_brand", kindString), col("p_type", kindString), col("p_size", kindInt),
			col("p_container", kindString), col("p_retailprice", kindMoney), col("p_comment", kindString),
		},
		units:       func(c cardinality) int64 { return c.part },
		rowsPerUnit: 1,
		fill:        fillPart,
	},
	{
		name: "customer",
		cols: []ColumnDef{
			col("c_custkey", kindID), col("c_name", kindString), col("c_address", kindString),
			col("c_nationkey", kindID), col("c_phone", kindString), col("c_acctbal", kindMoney),
			col("c_mktsegment", kindString), col("c_comment", kindString),
		},
		units:       func(c cardinality) int64 { return c.customer },
		rowsPerUnit: 1,
		fill:        fillCustomer,
	},
	{
		name: "supplier",
		cols: []ColumnDef{
			col("s_suppkey", kindID), col("s_name", kindString), col("s_address", kindString),
			col("s_nationkey", kindID), col("s_phone", kindString), col("s_acctbal", kindMoney),
			col("s_comment", kindString),
		},
		units:       func(c cardinality) int64 { return c.supplier },
		rowsPerUnit: 1,
		fill:        fillSupplier,
	},
	{
		name: "nation",
		cols: []ColumnDef{
			col("n_nationkey", kindID), col("n_name", kindString), col("n_regionkey", kindID),
			col("n_comment", kindString),
		},
		units:       fixed(int64(len(nations))),
		rowsPerUnit: 1,
		fill:        fillNation,
	},
	{
		name: "region",
		cols: []ColumnDef{
			col("r_regionkey", kindID), col("r_name", kindString), col("r_comment", kindString),
		},
		units:       fixed(int64(len(regionNames))),
		rowsPerUnit: 1,
		fill:        fillRegion,
	},
}
