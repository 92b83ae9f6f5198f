package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/pipeline"
	"github.com/hados-io/hados/operators/types"
)

// AggMode says what a HashAggregate's input is: rows to aggregate (Spark's
// Partial and Complete modes) or aggregation buffers to merge (PartialMerge
// and Final).
type AggMode uint8

const (
	AggUpdate AggMode = iota
	AggMerge
)

// AggCall is one aggregate function. In AggUpdate mode Args are its inputs
// over the child's columns (none, or a literal, for count(*)); in AggMerge
// mode Args are the buffer columns a partial aggregation produced, in the
// order it emits them.
type AggCall struct {
	Func        string // sum, count, avg, min, max, first
	Args        []*expr.Expr
	IgnoreNulls bool           // first(x, true)
	Input       types.DataType // the aggregated value's type (the argument of the original call)
}

// BufferTypes are Spark's aggregation buffer columns of the call: sum:
// sum[, isEmpty for decimals]; count: count; avg: sum, count; min/max:
// value; first: value, valueSet.
func (a AggCall) BufferTypes() ([]types.DataType, error) {
	bt, err := types.AggregateBuffer(a.Func, a.Input)
	if err != nil {
		return nil, err
	}
	if a.Func == "first" && len(bt) == 1 {
		bt = append(bt, types.DataType{Kind: types.Boolean})
	}
	return bt, nil
}

// HashAggregate groups its input by keys on the device and emits, per
// group, the keys followed by every call's buffer columns (Spark's partial
// aggregation output). Results of a Final aggregation are a projection over
// those buffers (a FilterProject after it). Per-core partial states are
// merged in core order at the end, so results are deterministic.
//
// Memory: under a task quota (an Account with a limit) the per-core states
// share a byte budget of a third of what the task has left when the
// operator opens, reserved from the account until Close. When a state
// outgrows it, the operator spills (aggregate_spill.go) if the target has a
// spill manager, and fails with QuotaExceeded otherwise. Close frees the
// states, the reservation and any spill runs.
type HashAggregate struct {
	t     *Target
	child Operator
	where *expr.Expr
	keys  []*expr.Expr
	calls []AggCall
	mode  AggMode
	out   *arrow.Schema

	tmpl    *device.Pipeline
	counter *device.Pipeline // tmpl's filter into a count sink (where != nil): see resumeRow
	emits   []emitCol        // the columns the device emits, in its order
	states  []device.Addr
	done    bool
	stats   Stats

	budget   uint64 // bytes each state may hold (0: no limit)
	reserved uint64 // charged to the account for the states
	stateEnc []byte // the encoded template (Open): what later states are made of
	spill    spillState
	flush    partialFlush // a partial aggregation's flushing (aggregate_flush.go)
}

// emitCol is one column AGG_EMIT writes; hidden ones (the isEmpty flag of
// an avg's decimal sum, which Spark's avg buffer lacks) are dropped.
//
// nullIsZero marks the double sum of an avg. Spark's Average buffer starts
// at (sum = 0.0, count = 0) and its sum never becomes null (Average.scala:
// initialValues Literal.default(sumType), update sum + coalesce(x, 0.0),
// merge sum.left + sum.right), while the device's SUM is null until a
// non-null input arrives, like Spark's Sum. A null there means "no input"
// and is emitted as 0.0: otherwise a group whose inputs are all null (or
// the global group of an empty input) would hand Spark's Final a null sum,
// which nulls the merged average of the whole group. The decimal sum of an
// avg needs no fix: the device's decimal SUM starts at 0 (with an isEmpty
// flag, as Spark's decimal Sum) and is null only after an overflow.
type emitCol struct {
	dt         types.DataType
	hidden     bool
	nullIsZero bool
}

// NewHashAggregate builds the operator; names name the output columns
// (keys, then buffers). where, if not nil, is a filter fused in front of
// the aggregation (the rows of a Filter → Project → partial aggregate chain
// never leave the device).
func NewHashAggregate(t *Target, child Operator, where *expr.Expr, keys []*expr.Expr, calls []AggCall, mode AggMode, names []string) (*HashAggregate, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	var fields []arrow.Field
	add := func(dt types.DataType) error {
		at, err := types.ToArrow(dt)
		if err != nil {
			return err
		}
		if len(fields) >= len(names) {
			return fmt.Errorf("%w: hash aggregate: fewer output names than columns", device.ErrInvalid)
		}
		fields = append(fields, arrow.Field{Name: names[len(fields)], Type: at, Nullable: true})
		return nil
	}
	for _, k := range keys {
		if err := add(k.Type); err != nil {
			return nil, err
		}
	}
	for _, c := range calls {
		bt, err := c.BufferTypes()
		if err != nil {
			return nil, err
		}
		for _, dt := range bt {
			if err := add(dt); err != nil {
				return nil, err
			}
		}
	}
	if len(fields) != len(names) {
		return nil, fmt.Errorf("%w: hash aggregate: %d names for %d columns", device.ErrInvalid, len(names), len(fields))
	}
	return &HashAggregate{t: t, child: child, where: where, keys: keys, calls: calls, mode: mode, out: arrow.NewSchema(fields, nil)}, nil
}

func (h *HashAggregate) Schema() *arrow.Schema { return h.out }

var aggFuncs = map[string]uint16{"sum": device.AggSum, "count": device.AggCount, "min": device.AggMin,
	"max": device.AggMax, "first": device.AggFirst}

// Compile builds the device pipeline; its error says why the aggregation
// cannot run on the device.
func (h *HashAggregate) Compile() error {
	if h.tmpl != nil {
		return nil
	}
	b, nin, err := newBuilder(h.child.Schema())
	if err != nil {
		return err
	}
	if h.where != nil {
		if err := b.Filter(h.where); err != nil {
			return err
		}
	}
	spec := &device.AggSpec{}
	for _, k := range h.keys {
		r, err := b.Expr(k)
		if err != nil {
			return err
		}
		vt, err := pipeline.VTypeOf(k.Type)
		if err != nil {
			return err
		}
		spec.KeyRegs = append(spec.KeyRegs, r)
		spec.KeyVTypes = append(spec.KeyVTypes, vt)
	}
	arg := func(e *expr.Expr) (uint16, device.VType, error) {
		if e == nil || e.Op == expr.OpLiteral {
			return device.NoReg, 0, nil
		}
		r, err := b.Expr(e)
		if err != nil {
			return 0, 0, err
		}
		vt, err := pipeline.VTypeOf(e.Type)
		return r, vt, err
	}
	h.emits = nil
	for _, k := range h.keys {
		h.emits = append(h.emits, emitCol{dt: k.Type})
	}
	for _, c := range h.calls {
		bt, err := c.BufferTypes()
		if err != nil {
			return err
		}
		funcs := []string{c.Func}
		if c.Func == "avg" {
			funcs = []string{"sum", "count"}
		}
		for i, fn := range funcs {
			g := device.Agg{Func: aggFuncs[fn], Arg: device.NoReg, Arg2: device.NoReg}
			if g.Func == 0 {
				return &pipeline.Unsupported{Code: pipeline.ReasonExpression, Msg: fmt.Sprintf("aggregate function %s is not supported on the device", c.Func)}
			}
			var in *expr.Expr
			switch {
			case h.mode == AggMerge && c.Func == "avg":
				in = c.Args[i]
			case len(c.Args) > 0:
				in = c.Args[0]
			}
			in = avgSumInput(c, h.mode, fn, in)
			if g.Arg, g.InVType, err = arg(in); err != nil {
				return err
			}
			out := bt[0]
			if c.Func == "avg" {
				out = bt[i]
			}
			if g.OutVType, err = pipeline.VTypeOf(out); err != nil {
				return err
			}
			h.emits = append(h.emits, emitCol{dt: out, nullIsZero: c.Func == "avg" && fn == "sum" && out.Kind == types.Double})
			if fn == "sum" && out.Kind == types.Decimal {
				g.Flags |= device.AggDecimal // the device adds an isEmpty column
				if c.Func == "sum" {
					h.emits = append(h.emits, emitCol{dt: bt[1]})
				} else {
					h.emits = append(h.emits, emitCol{dt: types.DataType{Kind: types.Boolean}, hidden: true})
				}
			}
			if fn == "first" {
				h.emits = append(h.emits, emitCol{dt: bt[1]})
			}
			if c.IgnoreNulls {
				g.Flags |= device.AggIgnoreNulls
			}
			if h.mode == AggMerge {
				g.Flags |= device.AggMerge
				switch {
				case c.Func == "avg" && g.Flags&device.AggDecimal != 0:
					// Spark's avg buffer has no isEmpty flag: a partial
					// sum is never empty (null means it overflowed)
					if g.Arg2, err = b.Expr(expr.Literal(false, types.DataType{Kind: types.Boolean})); err != nil {
						return err
					}
				case (g.Flags&device.AggDecimal != 0 || fn == "first") && len(c.Args) > 1:
					if g.Arg2, _, err = arg(c.Args[1]); err != nil {
						return err
					}
				}
			}
			spec.Aggs = append(spec.Aggs, g)
		}
	}
	if h.tmpl, err = b.Pipeline(make([]device.Column, nin), device.SinkAgg, nil, spec); err != nil {
		return err
	}
	if h.where != nil {
		h.counter, err = b.Pipeline(make([]device.Column, nin), device.SinkCount, nil, nil)
	}
	return err
}

// avgSumInput is the value an avg's sum adds up in update mode. Spark's
// Average over an integral or float input keeps a double sum
// (sum + coalesce(cast(x as double), 0.0)), so the input is cast to double
// before the device SUM (which adds integers into integers only); null
// inputs add nothing, and a sum that saw none is made Spark's 0.0 at emit
// (emitCol.nullIsZero). A decimal average keeps its decimal sum, and merged
// buffers are already the sum's type.
func avgSumInput(c AggCall, mode AggMode, fn string, in *expr.Expr) *expr.Expr {
	if c.Func != "avg" || fn != "sum" || mode != AggUpdate || in == nil || in.Type.Kind == types.Decimal || in.Type == types.DoubleType {
		return in
	}
	return expr.Call(expr.OpCast, types.DoubleType, in)
}

func (h *HashAggregate) Open(ctx context.Context) (err error) {
	defer func() { err = nameQuota("HashAggregate", err) }()
	if err := h.Compile(); err != nil {
		return err
	}
	if err := h.child.Open(ctx); err != nil {
		return err
	}
	enc, err := h.tmpl.Encode()
	if err != nil {
		return err
	}
	n := max(1, h.t.cores())
	if h.spill.oneState {
		n = 1
	}
	if err := h.reserveBudget(n); err != nil {
		return err
	}
	h.stateEnc = enc
	return h.createStates(ctx, enc, n)
}

// createStates creates n empty per-core states of the descriptor enc.
func (h *HashAggregate) createStates(ctx context.Context, enc []byte, n int) error {
	desc, err := h.t.upload(ctx, enc)
	if err != nil {
		return err
	}
	defer desc.Free()
	cell, err := h.t.Pool.Alloc(h.t.Account, 8)
	if err != nil {
		return err
	}
	defer cell.Free()
	for i := 0; i < n; i++ {
		c, err := h.t.DMA.Exec(ctx, device.Program{Ops: []device.Op{{Code: device.OpAggCreate, Src: desc.Addr,
			Len: desc.Size, Dst: cell.Addr, Args: [4]uint64{h.budget, h.flush.runsHint()}}}})
		if err != nil {
			return h.quotaError(wrapOp("hash aggregate: create state", err), "")
		}
		h.states = append(h.states, device.Addr(c.Results[0]))
	}
	return nil
}

// growStates adds empty states up to n when the task's share of the cores
// grew after Open (Target.CoreShare: the other tasks of its stage ended),
// each with the budget of those made in Open; it reports whether there
// are n now. Not while spilling or with one state by design (a merge), nor
// when the account cannot reserve their budget: the batch then runs on
// the states there are.
func (h *HashAggregate) growStates(ctx context.Context, n int) bool {
	more := n - len(h.states)
	if more <= 0 {
		return true
	}
	if h.spill.oneState || h.spill.active() || h.stateEnc == nil || len(h.states) == 0 {
		return false
	}
	var charge uint64
	if h.reserved > 0 {
		charge = h.budget * uint64(more)
		if h.t.Account.Reserve(charge) != nil {
			return false
		}
		h.reserved += charge
	}
	// a failure leaves the states made so far, empty and valid (merged and
	// freed as the others); their reservation stays until Close
	return h.createStates(ctx, h.stateEnc, more) == nil
}

// consume folds one input batch into the per-core states.
func (h *HashAggregate) consume(ctx context.Context, in arrow.Record) error {
	rows := int(in.NumRows())
	if rows == 0 {
		return nil
	}
	h.stats.RowsIn += int64(rows)
	st, err := h.t.stagePipeline(ctx, in)
	if err != nil {
		return h.quotaError(err, "the input batch does not fit")
	}
	defer st.release()
	p := *h.tmpl
	p.Columns = st.cols
	enc, err := p.Encode()
	if err != nil {
		return err
	}
	desc, err := h.t.upload(ctx, enc)
	if err != nil {
		return err
	}
	defer desc.Free()
	h.stats.Batches++
	todo := h.t.parts(rows)
	if len(todo) > len(h.states) && !h.growStates(ctx, len(todo)) {
		// a state serves one core at a time
		todo = [][2]int{{0, rows}}
	}
	for attempt := 0; len(todo) > 0; attempt++ {
		ops := make([]device.Op, len(todo))
		for i, pr := range todo {
			ops[i] = pipelineOp(desc, pr[0], pr[1], h.states[i%len(h.states)])
		}
		folded, errs := h.t.exec(ctx, ops)
		var again [][2]int
		for i, err := range errs {
			if err == nil {
				continue
			}
			if !isNoMemory(err) {
				return wrapOp("hash aggregate", err)
			}
			if h.t.Spill == nil {
				return h.quotaError(wrapOp("hash aggregate", err), "no spill directory")
			}
			from, rerr := h.resumeRow(ctx, st.cols, todo[i], folded[i])
			if rerr != nil {
				return rerr
			}
			if attempt > 0 && from == todo[i][0] { // fresh states, and not one vector fits
				return h.quotaError(wrapOp("hash aggregate", err),
					fmt.Sprintf("one vector of %d rows does not fit in an empty state", device.VectorSize))
			}
			again = append(again, [2]int{from, todo[i][1]})
		}
		if len(again) > 0 {
			if err := h.spillStates(ctx, enc); err != nil {
				return err
			}
		}
		todo = again
	}
	return nil
}

func (h *HashAggregate) Next(ctx context.Context) (_ arrow.Record, err error) {
	defer func() { err = nameQuota("HashAggregate", err) }()
	if r := h.flush.popPending(); r != nil {
		return r, nil
	}
	if h.done {
		return nil, nil
	}
	if h.spill.merging {
		return h.nextSpilled(ctx)
	}
	for {
		in, err := h.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		if in == nil {
			break
		}
		if h.flush.flushing() {
			h.flush.count(in)
		}
		err = h.consume(ctx, in)
		in.Release()
		if err != nil {
			return nil, err
		}
		if h.flushDue() {
			if err := h.flushStates(ctx); err != nil {
				return nil, err
			}
			if r := h.flush.popPending(); r != nil {
				return r, nil
			}
		}
	}
	if h.spill.active() {
		return h.nextSpilled(ctx)
	}
	if h.flush.mode == flushOn { // the last segment: every state as it is
		h.done = true
		if err := h.flushLast(ctx); err != nil {
			return nil, err
		}
		return h.flush.popPending(), nil
	}
	for i, s := range h.states[1:] {
		if _, err := h.t.DMA.Exec(ctx, device.Program{Ops: []device.Op{{Code: device.OpAggMerge, Dst: h.states[0], Src: s}}}); err != nil {
			if !isNoMemory(err) {
				return nil, wrapOp("hash aggregate: merge", err)
			}
			if h.t.Spill == nil {
				return nil, h.quotaError(wrapOp("hash aggregate: merge", err), "no spill directory")
			}
			// state 0 cannot hold the merge: spill the states still apart
			// and merge them from disk
			if err := h.spillAll(ctx, append(h.states[:1:1], h.states[i+1:]...)); err != nil {
				return nil, err
			}
			return h.nextSpilled(ctx)
		}
	}
	h.done = true
	rec, err := h.emit(ctx, h.states[0])
	if err == nil {
		h.stats.RowsOut += rec.NumRows()
	}
	return rec, err
}

// emit writes the groups into output columns, asking the device first how
// many there are.
func (h *HashAggregate) emit(ctx context.Context, state device.Addr) (arrow.Record, error) {
	return h.emitHint(ctx, state, 0)
}

// emitHint is emit with a first guess of the groups (0: none).
func (h *HashAggregate) emitHint(ctx context.Context, state device.Addr, hint int) (arrow.Record, error) {
	// a first guess that fits most aggregations; the device says how many
	// groups there are when it does not (and the emit is retried)
	groups, strBytes := max(1024, hint+hint/8), 64<<10
	if len(h.keys) == 0 {
		groups = 1
	}
	for attempt := 0; attempt < 8; attempt++ {
		o := newOutputs(h.t)
		rec, need, err := h.emitInto(ctx, o, state, groups, strBytes)
		o.release()
		if err == nil {
			return rec, nil
		}
		if !isNoMemory(err) {
			return nil, h.quotaError(err, "the groups' output does not fit")
		}
		if need > uint64(groups) {
			groups = int(need)
		}
		strBytes = max(strBytes*4, 32*groups)
	}
	return nil, fmt.Errorf("hash aggregate: emit did not fit after 8 attempts")
}

func (h *HashAggregate) emitInto(ctx context.Context, o *outputs, state device.Addr, groups, strBytes int) (arrow.Record, uint64, error) {
	cols := make([]*outColumn, len(h.emits))
	descs := make([]device.Column, len(cols))
	for i, ec := range h.emits {
		at, err := types.ToArrow(ec.dt)
		if err != nil {
			return nil, 0, err
		}
		vt, err := pipeline.VTypeOf(ec.dt)
		if err != nil {
			return nil, 0, err
		}
		if cols[i], err = o.newColumn(at, vt, groups, strBytes); err != nil {
			return nil, 0, err
		}
		descs[i] = cols[i].desc()
	}
	spec, err := h.t.upload(ctx, device.EncodeColumns(descs, uint64(groups)))
	if err != nil {
		return nil, 0, err
	}
	defer spec.Free()
	res, errs := h.t.exec(ctx, []device.Op{{Code: device.OpAggEmit, Src: state, Dst: spec.Addr}})
	if err := firstError(errs); err != nil {
		return nil, res[0], err
	}
	n := int(res[0])
	var arrays []arrow.Array
	for i, c := range cols {
		if h.emits[i].hidden {
			continue
		}
		a, err := o.array(ctx, c, n)
		if err != nil {
			for _, x := range arrays {
				x.Release()
			}
			return nil, 0, err
		}
		if h.emits[i].nullIsZero {
			a = zeroNullDoubles(a)
		}
		arrays = append(arrays, a)
	}
	rec := array.NewRecord(h.out, arrays, int64(n))
	for _, a := range arrays {
		a.Release()
	}
	return rec, uint64(n), nil
}

// Stats reports what the operator did.
func (h *HashAggregate) Stats() Stats { return h.stats }

// Reset frees the states, the budget reserved and the spill runs, and
// resets the child; the compiled pipeline stays (see Resetter).
func (h *HashAggregate) Reset(ctx context.Context) error {
	err := h.release()
	h.done, h.budget, h.stats = false, 0, Stats{}
	if e := Reset(ctx, h.child); e != nil && err == nil {
		err = e
	}
	return err
}

func (h *HashAggregate) Close() error {
	err := h.release()
	if e := h.child.Close(); e != nil && err == nil {
		err = e
	}
	return err
}

// release frees what a run holds: the states, the reservation and the
// spill runs.
func (h *HashAggregate) release() error {
	h.flush.reset()
	err := h.freeStates()
	if h.reserved > 0 {
		h.t.Account.Release(h.reserved)
		h.reserved = 0
	}
	if e := h.closeSpill(); e != nil && err == nil {
		err = e
	}
	return err
}

// freeStates frees the per-core states.
func (h *HashAggregate) freeStates() error {
	var err error
	for _, s := range h.states {
		if _, e := h.t.DMA.Exec(context.Background(), device.Program{Ops: []device.Op{{Code: device.OpAggFree, Src: s}}}); e != nil && err == nil {
			err = wrapOp("hash aggregate: free state", e)
		}
	}
	h.states = h.states[:0]
	return err
}

// zeroNullDoubles returns a float64 array like a with its nulls replaced by
// 0.0 (no validity bitmap), taking over a. The values are rewritten in
// place: a is a fresh emit output the caller owns alone.
func zeroNullDoubles(a arrow.Array) arrow.Array {
	if a.NullN() == 0 {
		return a
	}
	f := a.(*array.Float64)
	vals := f.Float64Values()
	for i := range vals {
		if f.IsNull(i) {
			vals[i] = 0
		}
	}
	d := a.Data()
	nd := array.NewData(d.DataType(), d.Len(), []*memory.Buffer{nil, d.Buffers()[1]}, nil, 0, d.Offset())
	a.Release()
	defer nd.Release()
	return array.MakeFromData(nd)
}
