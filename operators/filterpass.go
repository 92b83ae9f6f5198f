package operators

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// passBatches switches FilterProject's pass-through of batches its
// condition cannot narrow (on; off runs the device pipeline over every
// batch, for A/B measurements and tests).
var passBatches = true

// passPlan is what FilterProject needs to hand an input batch on as it
// is: the columns its condition tests for nulls (the condition is a
// conjunction of isnotnull(column) terms, or absent) and the input column
// each output column is (every projection is a column reference typed as
// the input column). A batch with no null in notNull then passes every
// row, and its output is made of the input's own arrays, retained — no
// device pass, no copy. Spark puts such filters on columns that hold no
// nulls (isnotnull of join keys read from required Parquet columns), so
// they are common.
type passPlan struct {
	notNull []int
	cols    []int
}

// newPassPlan returns the pass plan of a condition and projections over
// input schema in, or nil when a batch can never be handed on unchanged.
func newPassPlan(in *arrow.Schema, cond *expr.Expr, proj []*expr.Expr) *passPlan {
	p := &passPlan{}
	if cond != nil && !p.addNotNull(cond, in.NumFields()) {
		return nil
	}
	cols, ok := ColumnPicks(in, proj)
	if !ok {
		return nil
	}
	p.cols = cols
	return p
}

// ColumnPicks returns the input column each projection picks when every
// one of proj is a reference to a column of in typed exactly as that
// column (a projection that only picks, reorders or renames columns);
// false otherwise.
func ColumnPicks(in *arrow.Schema, proj []*expr.Expr) ([]int, bool) {
	cols := make([]int, len(proj))
	for i, e := range proj {
		if e == nil || e.Op != expr.OpColumn || e.Col < 0 || e.Col >= in.NumFields() {
			return nil, false
		}
		at, err := types.ToArrow(e.Type)
		if err != nil || !arrow.TypeEqual(at, in.Field(e.Col).Type) {
			return nil, false
		}
		cols[i] = e.Col
	}
	return cols, true
}

// PickColumns returns the record of schema out whose column i is in's
// column cols[i] (retained: the caller owns the record, in stays the
// caller's), or nil and the first output column in does not hold as out
// types it.
func PickColumns(in arrow.Record, out *arrow.Schema, cols []int) (arrow.Record, int) {
	arrays := make([]arrow.Array, len(cols))
	for i, c := range cols {
		if c >= int(in.NumCols()) || !arrow.TypeEqual(in.Column(c).DataType(), out.Field(i).Type) {
			return nil, i
		}
		arrays[i] = in.Column(c)
	}
	return array.NewRecord(out, arrays, in.NumRows()), -1 // retains each array (twice for a column picked twice)
}

// addNotNull adds the columns of a conjunction of isnotnull(column) terms;
// false if e is anything else.
func (p *passPlan) addNotNull(e *expr.Expr, ncols int) bool {
	switch {
	case e == nil:
		return false
	case e.Op == expr.OpAnd:
		for _, a := range e.Args {
			if !p.addNotNull(a, ncols) {
				return false
			}
		}
		return len(e.Args) > 0
	case e.Op == expr.OpIsNotNull && len(e.Args) == 1:
		c := e.Args[0]
		if c == nil || c.Op != expr.OpColumn || c.Col < 0 || c.Col >= ncols {
			return false
		}
		p.notNull = append(p.notNull, c.Col)
		return true
	}
	return false
}

// take returns the output record for batch in when the condition passes
// every row of it (the caller owns the record; in is left to the caller),
// or nil when the batch must run through the pipeline.
func (p *passPlan) take(in arrow.Record, out *arrow.Schema) arrow.Record {
	for _, c := range p.notNull {
		if c >= int(in.NumCols()) || in.Column(c).NullN() != 0 {
			return nil
		}
	}
	rec, _ := PickColumns(in, out, p.cols)
	return rec
}
