package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/pipeline"
	"github.com/hados-io/hados/operators/types"
)

// FilterProject is Spark's Filter and Project fused: for every input batch
// one device pipeline evaluates the condition (narrowing the selection
// conjunct by conjunct) and writes the projections of the surviving rows.
// A nil condition keeps every row; nil projections keep every column.
// A batch the condition cannot narrow (isnotnull terms over columns
// without nulls) under projections that only pick columns is handed on as
// it is, with no device pass (filterpass.go).
type FilterProject struct {
	t     *Target
	child Operator
	cond  *expr.Expr
	proj  []*expr.Expr
	out   *arrow.Schema

	tmpl    *device.Pipeline
	regs    []uint16
	pass    *passPlan // batches handed on unchanged (filterpass.go); nil: none
	pending []arrow.Record
	opened  bool
	stats   Stats
	inside  string // the operator it works inside (Sort, TopN, HashJoin), which its quota errors name
}

// NewFilterProject builds the operator; names name the output columns.
func NewFilterProject(t *Target, child Operator, cond *expr.Expr, proj []*expr.Expr, names []string) (*FilterProject, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	in := child.Schema()
	if proj == nil {
		for i, f := range in.Fields() {
			dt, err := types.FromArrow(f.Type)
			if err != nil {
				return nil, err
			}
			proj = append(proj, expr.Column(i, f.Name, dt))
			names = append(names, f.Name)
		}
	}
	if len(names) != len(proj) {
		return nil, fmt.Errorf("%w: %d names for %d projections", device.ErrInvalid, len(names), len(proj))
	}
	fields := make([]arrow.Field, len(proj))
	for i, e := range proj {
		at, err := types.ToArrow(e.Type)
		if err != nil {
			return nil, err
		}
		fields[i] = arrow.Field{Name: names[i], Type: at, Nullable: true}
	}
	return &FilterProject{t: t, child: child, cond: cond, proj: proj, out: arrow.NewSchema(fields, nil)}, nil
}

func (f *FilterProject) Schema() *arrow.Schema { return f.out }

// Compile builds the device pipeline (Open does it too); its error says
// why an expression cannot run on the device (*pipeline.Unsupported).
func (f *FilterProject) Compile() error {
	if f.tmpl != nil {
		return nil
	}
	b, nin, err := newBuilder(f.child.Schema())
	if err != nil {
		return err
	}
	if f.cond != nil {
		if err := b.Filter(f.cond); err != nil {
			return err
		}
	}
	regs := make([]uint16, len(f.proj))
	for i, e := range f.proj {
		if regs[i], err = b.Expr(e); err != nil {
			return err
		}
	}
	f.tmpl, err = b.Pipeline(make([]device.Column, nin), device.SinkProject, regs, nil)
	f.regs = regs
	if err == nil && passBatches {
		f.pass = newPassPlan(f.child.Schema(), f.cond, f.proj)
	}
	return err
}

// newBuilder starts a pipeline over a schema's columns, with their types
// and physical storage.
func newBuilder(s *arrow.Schema) (*pipeline.Builder, int, error) {
	ts := make([]types.DataType, s.NumFields())
	vs := make([]device.VType, s.NumFields())
	for i, fl := range s.Fields() {
		dt, err := types.FromArrow(fl.Type)
		if err != nil {
			return nil, 0, fmt.Errorf("column %s: %w", fl.Name, err)
		}
		if vs[i], err = pipelineStorageOf(fl.Type); err != nil {
			return nil, 0, fmt.Errorf("column %s: %w", fl.Name, err)
		}
		ts[i] = dt
	}
	return pipeline.NewBuilderStorage(ts, vs), len(ts), nil
}

func (f *FilterProject) Open(ctx context.Context) (err error) {
	defer func() { err = nameQuota(f.quotaName(), err) }()
	if err := f.Compile(); err != nil {
		return err
	}
	f.opened = true
	return f.child.Open(ctx)
}

func (f *FilterProject) Next(ctx context.Context) (_ arrow.Record, err error) {
	defer func() { err = nameQuota(f.quotaName(), err) }()
	for len(f.pending) == 0 {
		in, err := f.child.Next(ctx)
		if err != nil || in == nil {
			return nil, err
		}
		err = f.process(ctx, in)
		in.Release()
		if err != nil {
			return nil, err
		}
	}
	r := f.pending[0]
	f.pending = f.pending[1:]
	return r, nil
}

// stringBytes estimates the string bytes a projection may produce.
func stringBytes(rec arrow.Record) int {
	n := 0
	for _, c := range rec.Columns() {
		switch a := c.(type) {
		case *array.String:
			n += len(a.ValueBytes())
		case *array.LargeString:
			n += len(a.ValueBytes())
		case *array.Dictionary:
			if s, ok := a.Dictionary().(*array.String); ok {
				n += len(s.ValueBytes()) * 4
			}
		}
	}
	return n + 24*int(rec.NumRows())
}

// process runs the pipeline over one input batch, one part per core.
func (f *FilterProject) process(ctx context.Context, in arrow.Record) error {
	rows := int(in.NumRows())
	if rows == 0 {
		return nil
	}
	f.stats.RowsIn += int64(rows)
	if f.pass != nil {
		if rec := f.pass.take(in, f.out); rec != nil {
			f.pending = append(f.pending, rec)
			f.stats.RowsOut += int64(rows)
			f.stats.Batches++
			return nil
		}
	}
	st, err := f.t.stagePipeline(ctx, in)
	if err != nil {
		return err
	}
	defer st.release()
	p := *f.tmpl
	p.Columns = st.cols
	enc, err := p.Encode()
	if err != nil {
		return err
	}
	desc, err := f.t.upload(ctx, enc)
	if err != nil {
		return err
	}
	defer desc.Free()
	strCap := stringBytes(in)
	for attempt := 0; ; attempt++ {
		recs, err := f.runParts(ctx, desc, rows, strCap)
		if err == nil {
			f.pending = append(f.pending, recs...)
			return nil
		}
		if !isNoMemory(err) || attempt == 3 {
			return err
		}
		strCap *= 4 // string output ran out of room: retry with more
	}
}

// runParts runs the pipeline on each core's range of rows, each part into
// its own output columns, and returns the non-empty outputs in row order.
func (f *FilterProject) runParts(ctx context.Context, desc *hmem.Buffer, rows, strCap int) ([]arrow.Record, error) {
	parts := f.t.parts(rows)
	o := newOutputs(f.t)
	o.uninit = true // the project sink writes every row's value and validity (soft_pipeline.c)
	defer o.release()
	vts := make([]device.VType, len(f.proj))
	for j := range vts {
		vts[j] = f.tmpl.RegTypes[f.regs[j]]
	}
	cols := make([][]*outColumn, len(parts))
	ops := make([]device.Op, len(parts))
	for i, pr := range parts {
		var spec device.Addr
		var err error
		if cols[i], spec, err = o.newPart(ctx, f.out, vts, pr[1]-pr[0], strCap); err != nil {
			return nil, err
		}
		ops[i] = pipelineOp(desc, pr[0], pr[1], spec)
	}
	res, errs := f.t.exec(ctx, ops)
	if err := firstError(errs); err != nil {
		return nil, err
	}
	var recs []arrow.Record
	for i := range parts {
		n := int(res[i])
		if n == 0 {
			continue
		}
		rec, err := o.record(ctx, f.out, cols[i], n)
		if err != nil {
			releaseRecords(recs)
			return nil, err
		}
		recs = append(recs, rec)
		f.stats.RowsOut += int64(n)
	}
	f.stats.Batches++
	return recs, nil
}

// PassesBatches reports whether some input batches may be handed on
// unchanged, without a device pass (filterpass.go): its output then holds
// the input's own arrays, typed as the input schema types them. It
// compiles the pipeline; false when that fails (Open reports why).
func (f *FilterProject) PassesBatches() bool {
	return f.Compile() == nil && f.pass != nil
}

// Stats reports what the operator did.
func (f *FilterProject) Stats() Stats { return f.stats }

// Reset returns the operator to its state after construction, keeping the
// compiled pipeline, and resets its child (see Resetter).
func (f *FilterProject) Reset(ctx context.Context) error {
	f.release()
	f.stats = Stats{}
	return Reset(ctx, f.child)
}

func (f *FilterProject) Close() error {
	f.release()
	return f.child.Close()
}

// release drops the batches not yet returned.
func (f *FilterProject) release() {
	releaseRecords(f.pending)
	f.pending, f.opened = nil, false
}
