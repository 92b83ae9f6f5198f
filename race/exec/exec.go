package exec

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/race/rules"
)

// Env is where a query runs and reads from.
type Env struct {
	Runtime   *hados.Runtime
	Warehouse string // tables are directories Warehouse/<table>
	Device    string // device address (default "0")
}

// Result is a query's output and what each operator did.
type Result struct {
	Schema  *arrow.Schema
	Records []arrow.Record // the caller releases them (Release)
	Stats   []OperatorStats
}

// OperatorStats reports one operator's work.
type OperatorStats struct {
	Name string
	operators.Stats
}

// Release releases the result's records.
func (r *Result) Release() {
	for _, rec := range r.Records {
		rec.Release()
	}
	r.Records = nil
}

// ErrNotExecutable is wrapped when a plan holds an operator the executor
// cannot run yet (or one that stays on the host).
var ErrNotExecutable = fmt.Errorf("%w: not executable by hados yet", device.ErrNotSupported)

// Run executes a converted plan and returns its rows.
func Run(ctx context.Context, env Env, res *rules.Result) (*Result, error) {
	if env.Runtime == nil || res == nil || res.Root == nil {
		return nil, fmt.Errorf("%w: exec: a runtime and a converted plan are required", device.ErrInvalid)
	}
	if env.Device == "" {
		env.Device = "0"
	}
	task, err := env.Runtime.BeginTask(hados.TaskSpec{Devices: []string{env.Device}})
	if err != nil {
		return nil, err
	}
	b := &builder{env: env, target: task.Targets()[0]}
	root, err := b.build(res.Root)
	if err != nil {
		task.End()
		return nil, err
	}
	recs, err := operators.Collect(ctx, root)
	if err == nil {
		// the rows leave the device (Spark's ColumnarToRow at the top): copy
		// them to host memory so the task can give its device memory back
		recs, err = toHost(recs)
	}
	out := &Result{Schema: root.Schema(), Records: recs}
	for _, s := range b.stats {
		out.Stats = append(out.Stats, OperatorStats{Name: s.name, Stats: s.op.Stats()})
	}
	if err != nil {
		task.End()
		return nil, err
	}
	if err := task.End(); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// toHost copies records into Go memory and releases the originals.
func toHost(recs []arrow.Record) ([]arrow.Record, error) {
	out := make([]arrow.Record, 0, len(recs))
	var err error
	for _, r := range recs {
		if err == nil {
			cols := make([]arrow.Array, r.NumCols())
			for i, c := range r.Columns() {
				if cols[i], err = array.Concatenate([]arrow.Array{c}, memory.DefaultAllocator); err != nil {
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

type statser interface{ Stats() operators.Stats }

type builder struct {
	env    Env
	target *operators.Target
	stats  []struct {
		name string
		op   statser
	}
}

func (b *builder) track(name string, op statser) {
	b.stats = append(b.stats, struct {
		name string
		op   statser
	}{name, op})
}

func notExecutable(n *rules.Node, why string) error {
	return fmt.Errorf("exec: %s: %w (%s)", n.Name(), ErrNotExecutable, why)
}

// build turns a converted node into an operator.
func (b *builder) build(n *rules.Node) (operators.Operator, error) {
	switch n.Kind {
	case rules.ColumnarToRow, rules.RowToColumnar:
		// everything runs columnar here: transitions are pass-throughs
		return b.build(n.Children[0])
	case rules.DpuExchange:
		// one task sees every partition: the final aggregation above is exact
		return b.build(n.Children[0])
	case rules.DpuScan:
		return b.scan(n)
	case rules.DpuFilter, rules.DpuProject:
		return b.filterProject(n)
	case rules.DpuHashAggregate:
		return b.aggregate(n)
	case rules.KindHost:
		why := n.Verdict.Reason
		return nil, notExecutable(n, fmt.Sprintf("it stays on the host: %s", why))
	}
	return nil, notExecutable(n, "this operator is planned but not built")
}

// filterProject fuses a projection over a filter into one FilterProject.
func (b *builder) filterProject(n *rules.Node) (operators.Operator, error) {
	p := n.Device
	if p == nil {
		return nil, notExecutable(n, "no converted payload")
	}
	if n.Kind == rules.DpuProject && len(n.Children) == 1 && n.Children[0].Kind == rules.DpuFilter && n.Children[0].Device != nil {
		f := n.Children[0]
		child, err := b.build(f.Children[0])
		if err != nil {
			return nil, err
		}
		op, err := operators.NewFilterProject(b.target, child, f.Device.Filter, p.Project, p.Names)
		if err == nil {
			b.track("DpuFilter+DpuProject", op)
		}
		return op, err
	}
	child, err := b.build(n.Children[0])
	if err != nil {
		return nil, err
	}
	var op *operators.FilterProject
	if n.Kind == rules.DpuFilter {
		op, err = operators.NewFilterProject(b.target, child, p.Filter, nil, nil)
	} else {
		op, err = operators.NewFilterProject(b.target, child, nil, p.Project, p.Names)
	}
	if err == nil {
		b.track(n.Name(), op)
	}
	return op, err
}

// tableDir maps a scan's table identifier ("spark_catalog.default.lineitem")
// to its directory in the warehouse, refusing anything that leaves it.
func (b *builder) tableDir(table string) (string, error) {
	name := table
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Trim(name, "`")
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("%w: exec: table %q is not a plain table name", device.ErrInvalid, table)
	}
	if b.env.Warehouse == "" {
		return "", fmt.Errorf("%w: exec: no warehouse directory to read table %s from", device.ErrInvalid, name)
	}
	return filepath.Join(b.env.Warehouse, name), nil
}
