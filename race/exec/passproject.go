package exec

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// passProjects switches pass-through projections (on; off builds every
// Project as a FilterProject, for A/B measurements and tests).
var passProjects = true

// passProjectsBuilt counts the pass-through projections built (tests).
var passProjectsBuilt atomic.Int64

// passProject is a Project whose every expression is a column reference
// (Spark's projections after a join that only pick, reorder or rename
// columns): each output batch is made of the input batch's own arrays,
// retained, with no device copy. A column picked twice is the same array
// twice (each reference retained). Next returns records the caller owns
// and releases; the input batch is released once its arrays are taken.
type passProject struct {
	child operators.Operator
	cols  []int // output column i is input column cols[i]
	out   *arrow.Schema
}

// newPassProject returns a pass-through projection of child for proj (with
// output names names), or false when proj is not made only of column
// references typed exactly as child's columns (then the projection must
// compute, and a FilterProject runs it).
func newPassProject(child operators.Operator, proj []*expr.Expr, names []string) (*passProject, bool) {
	if !passProjects || len(proj) == 0 || len(names) != len(proj) {
		return nil, false
	}
	in := child.Schema()
	cols := make([]int, len(proj))
	fields := make([]arrow.Field, len(proj))
	for i, e := range proj {
		if e == nil || e.Op != expr.OpColumn || e.Col < 0 || e.Col >= in.NumFields() {
			return nil, false
		}
		at, err := types.ToArrow(e.Type)
		if err != nil || !arrow.TypeEqual(at, in.Field(e.Col).Type) {
			return nil, false
		}
		cols[i] = e.Col
		fields[i] = arrow.Field{Name: names[i], Type: at, Nullable: true}
	}
	passProjectsBuilt.Add(1)
	return &passProject{child: child, cols: cols, out: arrow.NewSchema(fields, nil)}, true
}

func (p *passProject) Schema() *arrow.Schema { return p.out }

func (p *passProject) Open(ctx context.Context) error { return p.child.Open(ctx) }

func (p *passProject) Next(ctx context.Context) (arrow.Record, error) {
	in, err := p.child.Next(ctx)
	if in == nil || err != nil {
		if in != nil {
			in.Release()
		}
		return nil, err
	}
	defer in.Release()
	cols := make([]arrow.Array, len(p.cols))
	for i, c := range p.cols {
		if c >= int(in.NumCols()) || !arrow.TypeEqual(in.Column(c).DataType(), p.out.Field(i).Type) {
			return nil, fmt.Errorf("%w: projection of column %d (%s): the input batch does not hold it as %s",
				device.ErrInvalid, c, p.out.Field(i).Name, p.out.Field(i).Type)
		}
		cols[i] = in.Column(c)
	}
	// NewRecord retains each array (twice for a column picked twice).
	return array.NewRecord(p.out, cols, in.NumRows()), nil
}

func (p *passProject) Close() error { return p.child.Close() }
