package exec

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
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
	cols, ok := operators.ColumnPicks(in, proj)
	if !ok {
		return nil, false
	}
	fields := make([]arrow.Field, len(proj))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: names[i], Type: in.Field(c).Type, Nullable: true}
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
	rec, bad := operators.PickColumns(in, p.out, p.cols)
	if rec == nil {
		return nil, fmt.Errorf("%w: projection of column %d (%s): the input batch does not hold it as %s",
			device.ErrInvalid, p.cols[bad], p.out.Field(bad).Name, p.out.Field(bad).Type)
	}
	return rec, nil
}

func (p *passProject) Close() error { return p.child.Close() }
