package planbuilder

import (
	"fmt"

	"github.com/hados-io/hados/race/plan"
)

// TPCHQueries is the number of TPC-H queries.
const TPCHQueries = 22

// TPCH returns TPC-H query n (1..22) as a hados plan with the
// specification's validation substitution parameters, shaped as Spark 3.x
// plans it (see the package documentation for where it differs). The
// plan's name is "tpch-qN".
func TPCH(n int, opts Options) (*plan.Plan, error) {
	if n < 1 || n > TPCHQueries {
		return nil, fmt.Errorf("planbuilder: TPC-H query %d does not exist (want 1..%d)", n, TPCHQueries)
	}
	b := NewWith(opts)
	return b.Build(fmt.Sprintf("tpch-q%d", n), tpchQueries[n-1](b))
}

var tpchQueries = [TPCHQueries]func(*Builder) *Rel{
	q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11,
	q12, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22,
}

// scanWhere scans cols of table and filters them by the conjunction of
// conds (nil conds are skipped), the Scan → ColumnarToRow → Filter
// pipeline Spark plans for a table with predicates.
func (b *Builder) scanWhere(table string, cols []string, conds ...*plan.Expr) *Rel {
	return b.Scan(table, cols...).Filter(b.And(conds...))
}

// nn is isnotnull(col).
func (b *Builder) nn(col string) *plan.Expr { return b.IsNotNull(b.Col(col)) }

// disc is l_extendedprice * (1 - l_discount).
func (b *Builder) disc() *plan.Expr {
	return b.Mul(b.Col("l_extendedprice"), b.Sub(b.Int(1), b.Col("l_discount")))
}

func strs(s ...string) []string { return s }
