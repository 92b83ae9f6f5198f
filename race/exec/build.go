package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// builder builds one task's operators: the stage's subtree for one
// partition, on the task's target. release drops what the task holds
// beyond its operators (broadcast table references).
type builder struct {
	ctx    context.Context
	q      *query
	s      *stage
	target *operators.Target
	addr   string
	stats  []tracked
	held   []func()
}

func (b *builder) release() {
	for _, f := range b.held {
		f()
	}
	b.held = nil
}

func notExecutable(n *rules.Node, why string) error {
	return fmt.Errorf("exec: %s: %w (%s)", n.Name(), ErrNotExecutable, why)
}

// payload is n's converted payload, with the scalar subqueries it reads
// bound to their values.
func (b *builder) payload(n *rules.Node) (*rules.Payload, error) {
	if n.Device == nil {
		return nil, notExecutable(n, "no converted payload")
	}
	if len(n.Device.Scalars) == 0 {
		return n.Device, nil
	}
	return b.q.bound(n)
}

// build turns the subtree n, for partition p (-1: none, an empty input),
// into an operator, under the runtime join filter pushed onto n's output
// if any (runtimefilter.go).
func (b *builder) build(n *rules.Node, p int) (operators.Operator, error) {
	op, err := b.buildNode(n, p)
	if err != nil || p < 0 {
		return op, err
	}
	if f := b.q.runtimeFilterAt(n); f != nil {
		return b.applyRuntimeFilter(f, op)
	}
	return op, nil
}

func (b *builder) buildNode(n *rules.Node, p int) (operators.Operator, error) {
	kind, dep := b.q.leaf(b.s, n)
	switch kind {
	case leafShuffle:
		if in, ok := b.q.external[n]; ok { // a stage run on its own: the host engine feeds the shuffle
			if p < 0 {
				return b.empty(n)
			}
			return b.track(label(n)+" input", in), nil
		}
		return b.shuffleRead(n, dep, p)
	case leafBroadcast, leafGather:
		if dep == nil {
			return nil, notExecutable(n, "its stage was not planned")
		}
		if kind == leafGather {
			return b.gatherFinal(n, dep, p)
		}
		return b.hostSource(label(n), dep, true), nil
	case leafInput:
		if p != 0 {
			return b.empty(n)
		}
		in := b.q.env.Inputs[b.q.inputs[n]]
		return b.track(fmt.Sprintf("host input %d", b.q.inputs[n]), &countingOp{Operator: in}), nil
	}
	switch n.Kind {
	case rules.ColumnarToRow, rules.RowToColumnar:
		// everything runs columnar here: transitions are pass-throughs
		return b.build(n.Children[0], p)
	case rules.DpuScan:
		op, err := b.scan(n, p)
		if err != nil {
			return nil, err
		}
		return b.partitionFilter(n, op)
	case rules.DpuFilter, rules.DpuProject:
		return b.filterProject(n, p)
	case rules.DpuHashAggregate:
		return b.aggregate(n, p)
	case rules.DpuSort:
		return b.sort(n, p)
	case rules.DpuTopN, rules.DpuLimit:
		return b.limit(n, p)
	case rules.DpuUnion:
		return b.union(n, p)
	case rules.DpuHashJoin:
		return b.join(n, p)
	case rules.KindHost:
		if n.IsEmptyInput() {
			op, err := b.empty(n)
			if err != nil {
				return nil, err
			}
			return b.track(label(n), op), nil
		}
		return nil, notExecutable(n, fmt.Sprintf("it stays on the host: %s", n.Verdict.Reason))
	}
	return nil, notExecutable(n, "this operator is planned but not built")
}

// empty is an input of no rows with n's output columns.
func (b *builder) empty(n *rules.Node) (operators.Operator, error) {
	s, err := schemaOf(n.Output())
	if err != nil {
		return nil, notExecutable(n, err.Error())
	}
	return operators.NewRecordSource(s), nil
}

func schemaOf(attrs []plan.Attr) (*arrow.Schema, error) {
	fields := make([]arrow.Field, 0, len(attrs))
	for _, a := range attrs {
		at, err := types.ToArrow(a.Type)
		if err != nil {
			return nil, err
		}
		fields = append(fields, arrow.Field{Name: a.Name, Type: at, Nullable: true})
	}
	return arrow.NewSchema(fields, nil), nil
}

// hostSource reads a collect stage's records (all of them: a broadcast,
// or a gather's final input).
func (b *builder) hostSource(name string, dep *stage, track bool) operators.Operator {
	src := operators.NewRecordSource(dep.schema, dep.records()...)
	if !track {
		return src
	}
	return b.track(name+" read", &countingOp{Operator: src})
}

// filterProject fuses a projection over a filter into one FilterProject.
func (b *builder) filterProject(n *rules.Node, p int) (operators.Operator, error) {
	pl, err := b.payload(n)
	if err != nil {
		return nil, err
	}
	if n.Kind == rules.DpuProject && len(n.Children) == 1 && n.Children[0].Kind == rules.DpuFilter && n.Children[0].Device != nil {
		f := n.Children[0]
		fpl, err := b.payload(f)
		if err != nil {
			return nil, err
		}
		child, err := b.build(f.Children[0], p)
		if err != nil {
			return nil, err
		}
		return b.filterProjectOver(f, n, child, b.pruneNotNull(f.Children[0], p, fpl.Filter), pl.Project, pl.Names)
	}
	child, err := b.build(n.Children[0], p)
	if err != nil {
		return nil, err
	}
	if n.Kind == rules.DpuFilter {
		return b.filterProjectOver(n, nil, child, b.pruneNotNull(n.Children[0], p, pl.Filter), nil, nil)
	}
	return b.filterProjectOver(nil, n, child, nil, pl.Project, pl.Names)
}

// filterProjectOver builds the operator of a filter node and/or a project
// node (either may be nil) over child: child itself when there is nothing
// to test or project (a scan's rows pass as they are), a pass-through when
// the projection only picks and renames columns and nothing is left to
// test (no copy), else one FilterProject. It closes child when it fails.
func (b *builder) filterProjectOver(filter, project *rules.Node, child operators.Operator, cond *expr.Expr, proj []*expr.Expr, names []string) (operators.Operator, error) {
	var name string
	switch {
	case filter != nil && project != nil:
		name = fmt.Sprintf("(%d) DpuFilter+(%d) DpuProject", filter.Spark.ID, project.Spark.ID)
	case project == nil:
		name = label(filter)
	default:
		name = label(project)
	}
	if cond == nil && project == nil {
		return b.track(name, child), nil
	}
	if cond == nil {
		if pp, ok := newPassProject(child, proj, names); ok {
			return b.track(name, pp), nil
		}
	}
	op, err := operators.NewFilterProject(b.target, child, cond, proj, names)
	if err != nil {
		return nil, closeAfter(child, err)
	}
	if !op.PassesBatches() { // every batch goes through the device pipeline
		scanDictsFor(child, cond)
	}
	return b.track(name, op), nil
}

// closeAfter closes an operator built for a parent that failed to build.
func closeAfter(op operators.Operator, err error) error {
	op.Close()
	return err
}

// toHost copies records into host memory from mem and releases the
// originals.
func toHost(recs []arrow.Record, mem memory.Allocator) ([]arrow.Record, error) {
	out := make([]arrow.Record, 0, len(recs))
	var err error
	for _, r := range recs {
		if err == nil {
			cols := make([]arrow.Array, r.NumCols())
			for i, c := range r.Columns() {
				if cols[i], err = array.Concatenate([]arrow.Array{c}, mem); err != nil {
					break
				}
			}
			if err == nil {
				out = append(out, array.NewRecord(r.Schema(), cols, r.NumRows()))
			}
			for _, c := range cols {
				if c != nil {
					c.Release()
				}
			}
		}
		r.Release()
	}
	if err != nil {
		for _, r := range out {
			r.Release()
		}
		return nil, err
	}
	return out, nil
}

// countingOp counts the rows and batches of an operator without stats.
type countingOp struct {
	operators.Operator
	stats operators.Stats
}

func (c *countingOp) Next(ctx context.Context) (arrow.Record, error) {
	r, err := c.Operator.Next(ctx)
	if r != nil {
		c.stats.RowsOut += r.NumRows()
		c.stats.Batches++
	}
	return r, err
}

func (c *countingOp) Stats() operators.Stats { return c.stats }
