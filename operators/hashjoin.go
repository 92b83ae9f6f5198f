package operators

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// HashJoin joins its two children on equi-keys (see the package's "Hash
// join" notes in join.go). It also executes Spark's SortMergeJoin: same
// keys, same result; when the build side exceeds the memory quota and the
// target can spill, it runs as a grace hash join instead, which stands in
// for the sort-merge join's spilling.
//
// The operator owns its children (Close closes them), its hash table
// (unless it probes a shared BroadcastTable, of which it holds one
// reference until Close), the probe batches whose output it has not yet
// gathered (hashjoin_output.go) and, in a grace hash join, its spill runs
// and the partition join in progress (Close removes and closes them).
// Every batch Next returns belongs to the caller.
type HashJoin struct {
	t    *Target
	spec JoinSpec
	plan joinPlan
	out  *arrow.Schema

	probeSide, buildSide side
	shared               *BroadcastTable             // NewBroadcastHashJoin
	pending              func(context.Context) error // NewBroadcastHashJoinLazy: sets shared (in Open)
	table                *joinTable
	cond                 *joinCondition

	matched      []bool
	probeRows    int64      // rows probed (null-aware anti join with the left side built)
	probeNullKey bool       // a probe row had a null key (same)
	emptyResult  bool       // a null-aware anti join whose right side has a null key
	work         []joinWork // output not yet gathered, oldest first
	incoming     []joinWork // output of the probe batch in progress (step), moved to work when it is done
	level        int        // grace recursion depth: 0 for the plan's join, n for a partition of level n-1
	grace        *graceJoin // set when the build side did not fit
	unsplittable bool       // a grace partition holding every build row of its parent
	opened, done bool
	closed       bool
	stats        Stats
}

// side is one child of a join: the operator (wrapped in a projection that
// appends the key columns when some key is an expression), how many of its
// columns are the child's own, and which columns are the keys.
type side struct {
	op     Operator
	schema *arrow.Schema // the child's own columns
	data   int
	keys   []int
}

// newSide prepares a child whose keys are exprs.
func newSide(t *Target, op Operator, keys []*expr.Expr) (side, error) {
	s := side{op: op, schema: op.Schema(), data: op.Schema().NumFields()}
	plain := true
	for _, k := range keys {
		if k.Op != expr.OpColumn {
			plain = false
		}
	}
	if plain {
		for _, k := range keys {
			s.keys = append(s.keys, k.Col)
		}
		return s, nil
	}
	var proj []*expr.Expr
	var names []string
	for i, f := range s.schema.Fields() {
		dt, err := types.FromArrow(f.Type)
		if err != nil {
			return s, fmt.Errorf("hash join: column %s: %w", f.Name, err)
		}
		proj = append(proj, expr.Column(i, f.Name, dt))
		names = append(names, f.Name)
	}
	for i, k := range keys {
		s.keys = append(s.keys, len(proj))
		proj = append(proj, k)
		names = append(names, fmt.Sprintf("__key%d", i))
	}
	fp, err := NewFilterProject(t, op, nil, proj, names)
	if err != nil {
		return s, err
	}
	fp.inside = "HashJoin"
	s.op = fp
	return s, nil
}

// NewHashJoin builds a join of left and right; spec.Build says which side
// the hash table is built over.
func NewHashJoin(t *Target, left, right Operator, spec JoinSpec) (*HashJoin, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if err := spec.validate(left.Schema(), right.Schema()); err != nil {
		return nil, err
	}
	h, err := newHashJoin(t, spec, left.Schema(), right.Schema())
	if err != nil {
		return nil, err
	}
	buildOp, buildKeys, probeOp, probeKeys := right, spec.RightKeys, left, spec.LeftKeys
	if spec.Build == BuildLeft {
		buildOp, buildKeys, probeOp, probeKeys = left, spec.LeftKeys, right, spec.RightKeys
	}
	if h.buildSide, err = newSide(t, buildOp, buildKeys); err != nil {
		return nil, err
	}
	if h.probeSide, err = newSide(t, probeOp, probeKeys); err != nil {
		return nil, err
	}
	return h, nil
}

func newHashJoin(t *Target, spec JoinSpec, left, right *arrow.Schema) (*HashJoin, error) {
	out, err := joinOutputSchema(spec, left, right)
	if err != nil {
		return nil, err
	}
	h := &HashJoin{t: t, spec: spec, plan: planJoin(spec.Type, spec.Build), out: out}
	if spec.Condition != nil {
		if h.cond, err = newJoinCondition(t, spec.Condition, left, right); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (h *HashJoin) Schema() *arrow.Schema { return h.out }

// Stats reports what the operator did.
func (h *HashJoin) Stats() Stats { return h.stats }

func (h *HashJoin) Open(ctx context.Context) (err error) {
	defer func() { err = nameQuota(h.opName(), err) }()
	h.opened = true
	if err := h.probeSide.op.Open(ctx); err != nil {
		return err
	}
	if h.pending != nil {
		if err := h.pending(ctx); err != nil {
			return err
		}
	}
	if h.shared != nil {
		h.table = h.shared.table
	} else {
		if err := h.buildSide.op.Open(ctx); err != nil {
			return err
		}
		if err := h.openBuild(ctx); err != nil || h.grace != nil {
			return err
		}
	}
	if h.plan.track {
		h.matched = make([]bool, h.table.rows)
	}
	if h.spec.NullAwareAnti && h.plan.probeLeft && h.table.rows > 0 && h.table.nullKey {
		h.emptyResult = true
	}
	return nil
}

// openBuild reads the build side and builds its table in memory or, when
// it does not fit the quota and the target can spill, starts the grace
// hash join with what it has read.
func (h *HashJoin) openBuild(ctx context.Context) error {
	var fits func(rows int, bytes uint64) bool
	if h.t.Spill != nil {
		fits = h.fitsInMemory
	}
	recs, complete, err := readBuild(ctx, h.buildSide.op, fits)
	if err != nil {
		return err
	}
	var cause error
	if complete {
		var rec arrow.Record
		rec, err = concatBuild(h.t, h.buildSide.op.Schema(), recs)
		if err == nil {
			h.table, err = buildTable(ctx, h.t, rec, h.buildSide.data, h.buildSide.keys, h.spec.NullSafe)
		}
		if err == nil || !isQuota(err) || h.t.Spill == nil {
			releaseRecords(recs)
			if err != nil && isQuota(err) {
				return QuotaExceeded("HashJoin", err, "no spill directory")
			}
			return err
		}
		cause = err
	} else {
		rows, bytes := recordsSize(recs)
		a := h.t.Account
		cause = fmt.Errorf("hash join: a build side of over %d rows (%s read so far) does not fit half of what is left: %w",
			rows, hmem.FormatBytes(bytes), &hmem.QuotaError{Account: a.Name(), Requested: bytes + joinStateBytes(rows),
				InUse: a.InUse(), Limit: a.Limit()})
	}
	return h.startGrace(ctx, recs, complete, cause)
}

// fitsInMemory reports whether a build side of rows rows and bytes bytes
// can be joined in memory under the task's quota: its records concatenated
// and the device's hash table over them may take half of what the quota
// has left (the probe buffers and the output batches need the rest).
func (h *HashJoin) fitsInMemory(rows int, bytes uint64) bool {
	a := h.t.Account
	if a == nil || a.Limit() == 0 {
		return true
	}
	left := a.Limit() - min(a.Limit(), a.InUse())
	return bytes+joinStateBytes(rows) <= left/2
}

// readBuild reads op's non-empty batches to the end (complete) or until
// fits, if set, says they no longer fit in memory. The caller releases the
// records.
func readBuild(ctx context.Context, op Operator, fits func(rows int, bytes uint64) bool) (recs []arrow.Record, complete bool, err error) {
	rows, bytes := 0, uint64(0)
	for {
		r, err := op.Next(ctx)
		if err != nil {
			releaseRecords(recs)
			return nil, false, err
		}
		if r == nil {
			return recs, true, nil
		}
		if r.NumRows() == 0 {
			r.Release()
			continue
		}
		recs = append(recs, r)
		rows += int(r.NumRows())
		bytes += recordBytes(r)
		if fits != nil && !fits(rows, bytes) {
			return recs, false, nil
		}
	}
}

// concatBuild is recs as one record (an empty one of schema when there is
// none); recs stay the caller's.
func concatBuild(t *Target, schema *arrow.Schema, recs []arrow.Record) (arrow.Record, error) {
	if len(recs) == 0 {
		return emptyRecord(schema, 0, t.OutputAllocator()), nil
	}
	return ConcatRecords(t, recs)
}

// collectBuild reads every batch of op into one record (an empty one when
// there is none).
func collectBuild(ctx context.Context, t *Target, op Operator) (arrow.Record, error) {
	recs, _, err := readBuild(ctx, op, nil)
	if err != nil {
		return nil, err
	}
	defer releaseRecords(recs)
	return concatBuild(t, op.Schema(), recs)
}

// recordsSize is the rows and buffer bytes of recs.
func recordsSize(recs []arrow.Record) (rows int, bytes uint64) {
	for _, r := range recs {
		rows += int(r.NumRows())
		bytes += recordBytes(r)
	}
	return rows, bytes
}

func (h *HashJoin) Next(ctx context.Context) (_ arrow.Record, err error) {
	defer func() { err = nameQuota(h.opName(), err) }()
	if h.grace != nil {
		r, err := h.grace.next(ctx)
		if r != nil {
			h.stats.RowsOut += r.NumRows()
		}
		return r, err
	}
	for {
		if len(h.work) > 0 {
			// While the last queued output is gathered, the next probe
			// batch is read and probed on another goroutine: its host work
			// and device ops overlap the gather's, keeping every engine
			// core busy. Only step touches the probe side and the state it
			// updates; its output waits in h.incoming until both are done.
			var ahead chan error
			if len(h.work) == 1 && !h.done && h.roomToProbeAhead() {
				ahead = make(chan error, 1)
				go func() { ahead <- h.step(ctx) }()
			}
			r, err := h.emitNext(ctx)
			if ahead != nil {
				aerr := <-ahead
				h.work = append(h.work, h.incoming...)
				h.incoming = nil
				if err == nil && aerr != nil {
					r.Release()
					r, err = nil, aerr
				}
			}
			if err != nil || r == nil {
				return nil, err
			}
			h.stats.RowsOut += r.NumRows()
			return r, nil
		}
		if h.done {
			return nil, nil
		}
		err := h.step(ctx)
		h.work = append(h.work, h.incoming...)
		h.incoming = nil
		if err != nil {
			return nil, err
		}
	}
}

// roomToProbeAhead reports whether to probe the next batch while
// gathering: only with several engine cores (on one, the probe waits for
// the gather's op anyway: measured slower), and only where holding a
// second batch's pairs and outputs is safe: not in a grace partition
// (spilling: memory is short by definition), and while the task's
// account is under a quarter full and the queued work is one output
// batch that the quota does not cut short (outputRows): the probe's
// buffers and pairs then have the half of what is left that the batch
// does not take. A join whose output the quota splits probes in turn.
func (h *HashJoin) roomToProbeAhead() bool {
	a := h.t.Account
	if h.t.cores() <= 1 || h.level != 0 {
		return false
	}
	if a == nil || a.Limit() == 0 {
		return true
	}
	w := h.work[0]
	return a.InUse() < a.Limit()/4 && w.off == 0 && w.cap == 0 && h.outputRows(w.data) >= w.rows.len()
}

// step reads and joins the next probe batch or, after the last one,
// finishes the join (h.done); the output goes to h.incoming.
func (h *HashJoin) step(ctx context.Context) error {
	in, err := h.probeSide.op.Next(ctx)
	if err != nil {
		return err
	}
	if in == nil {
		h.done = true
		return h.finish(ctx)
	}
	defer in.Release()
	return h.process(ctx, in)
}

// process joins one probe batch.
func (h *HashJoin) process(ctx context.Context, in arrow.Record) error {
	rows := int(in.NumRows())
	if rows == 0 {
		return nil
	}
	h.stats.RowsIn += int64(rows)
	h.stats.Batches++
	h.probeRows += int64(rows)
	if hasNull(in, h.probeSide.keys) {
		h.probeNullKey = true
	}
	if h.emptyResult {
		return nil
	}
	keys := columnsRecord(in, h.probeSide.keys)
	var pp, bb []int32
	var err error
	inProbe := h.condInProbe()
	if inProbe {
		pp, bb, err = h.probeWithCond(ctx, in, keys)
	} else {
		pp, bb, err = h.table.probe(ctx, h.t, keys, h.plan.probeFlags(h.cond != nil), nil)
	}
	keys.Release()
	if err != nil {
		return err
	}
	var pass []bool
	if h.cond != nil && !inProbe {
		if pass, err = h.evalCondition(ctx, in, pp, bb); err != nil {
			return err
		}
	}
	var skip func(int32) bool
	if h.spec.NullAwareAnti && h.table.rows > 0 {
		key := in.Column(h.probeSide.keys[0])
		skip = func(r int32) bool { return key.IsNull(int(r)) }
	}
	h.queue(dataRecord(in, h.probeSide.data), h.plan.resolve(pp, bb, pass, h.matched, skip))
	return nil
}

// emit gathers output rows into a record.
func (h *HashJoin) emit(ctx context.Context, probeData arrow.Record, jr joinRows) (arrow.Record, error) {
	n := jr.len()
	var probeCols, buildCols []arrow.Array
	release := func(as []arrow.Array) {
		for _, a := range as {
			a.Release()
		}
	}
	gatherInto := func(rec arrow.Record, rows []int32) ([]arrow.Array, error) {
		if rows == nil { // a side of nulls
			return takeColumns(emptyRecord(gatherSchema(rec.Schema(), true), n, h.t.OutputAllocator())), nil
		}
		if lo, ok := h.t.sliceable(rec, rows); ok { // consecutive rows: a zero-copy slice
			return takeColumns(rec.NewSlice(lo, lo+int64(len(rows)))), nil
		}
		g, err := h.t.Gather(ctx, rec, rows)
		if err != nil {
			return nil, err
		}
		return takeColumns(g), nil
	}
	// The two sides are gathered concurrently: one side's host work
	// (staging, uploading row numbers, output buffers) overlaps the
	// other's device ops, and both keep every engine core busy.
	var probeErr, buildErr error
	var wg sync.WaitGroup
	if h.plan.mode == modePairs || h.plan.mode == modeMark {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bd := dataRecord(h.table.rec, h.table.data)
			buildCols, buildErr = gatherInto(bd, jr.build)
			bd.Release()
		}()
	}
	if h.plan.mode == modePairs || len(jr.probe) > 0 {
		probeCols, probeErr = gatherInto(probeData, jr.probe)
	}
	wg.Wait()
	if err := firstError([]error{probeErr, buildErr}); err != nil {
		release(probeCols)
		release(buildCols)
		return nil, err
	}
	var cols []arrow.Array
	switch {
	case h.plan.mode == modePairs && h.plan.probeLeft:
		cols = append(probeCols, buildCols...)
	case h.plan.mode == modePairs:
		cols = append(buildCols, probeCols...)
	case h.plan.mode == modeMark:
		cols = buildCols
	default:
		cols = probeCols
	}
	if h.spec.Type == JoinExistence {
		ex, err := boolArray(h.t, jr.exists)
		if err != nil {
			release(cols)
			return nil, err
		}
		cols = append(cols, ex)
	}
	defer release(cols)
	for i, c := range cols {
		if !arrow.TypeEqual(c.DataType(), h.out.Field(i).Type) {
			return nil, fmt.Errorf("%w: hash join: output column %d (%s) came out as %s, want %s", device.ErrInvalid, i,
				h.out.Field(i).Name, c.DataType(), h.out.Field(i).Type)
		}
	}
	return array.NewRecord(h.out, cols, int64(n)), nil
}

// minJoinOutputRows is the fewest rows a hash join gathers into one
// output batch however little memory its task has left (a gather that
// still does not fit fails with a named quota error).
const minJoinOutputRows = 64

// outputRows is how many rows the next output batch of probeData's work
// gathers: max(joinBatchRows, the probe batch's rows), or fewer under a
// quota, so that the batch's buffers and what the gather stages take at
// most half of what the task's account has left; at least
// minJoinOutputRows. The estimate counts the allocators' rounding up to
// powers of two and, on a discrete device, the device's output buffers
// besides their host copies and the upload of the inputs (the probe batch
// and the table's columns) the device cannot read in place. emitNext
// halves a batch the quota still refuses.
func (h *HashJoin) outputRows(probeData arrow.Record) int {
	rows := max(joinBatchRows, int(probeData.NumRows()))
	a := h.t.Account
	if a == nil || a.Limit() == 0 {
		return rows
	}
	left := a.Limit() - min(a.Limit(), a.InUse())
	per, factor := uint64(0), uint64(2)
	staged := uint64(0)
	if !h.t.HostVisible() {
		factor = 4
	}
	if h.plan.mode == modePairs || h.plan.mode == modeMark {
		per += rowBytes(h.table.rec, h.table.data)
		if !h.t.HostVisible() {
			d := dataRecord(h.table.rec, h.table.data)
			staged += recordBytes(d)
			d.Release()
		}
	}
	if h.plan.mode != modeMark {
		per += rowBytes(probeData, int(probeData.NumCols()))
		staged += recordBytes(probeData)
	}
	if h.spec.Type == JoinExistence {
		per++
	}
	if left <= staged {
		return minJoinOutputRows
	}
	fit := (left - staged) / 2 / (factor * max(per, 1))
	return int(max(min(uint64(rows), fit), minJoinOutputRows))
}

// quotaLimited reports whether the task's account has a limit.
func (h *HashJoin) quotaLimited() bool {
	return h.t.Account != nil && h.t.Account.Limit() > 0
}

// rowBytes estimates the output bytes of one gathered row of rec's first
// cols columns: their buffers' bytes per row (the schema's widths when rec
// is empty), a row number and a byte of validity and offsets slack a
// column.
func rowBytes(rec arrow.Record, cols int) uint64 {
	n := uint64(4 + cols)
	if rows := rec.NumRows(); rows > 0 {
		d := dataRecord(rec, cols)
		defer d.Release()
		return n + (recordBytes(d)+uint64(rows)-1)/uint64(rows)
	}
	for _, f := range rec.Schema().Fields()[:cols] {
		if fw, ok := f.Type.(arrow.FixedWidthDataType); ok {
			n += uint64(max(fw.BitWidth()/8, 1))
		} else {
			n += 4 + 16 // an offset and a guess at a string
		}
	}
	return n
}

// takeColumns returns rec's columns with a reference each and releases rec.
func takeColumns(rec arrow.Record) []arrow.Array {
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		cols[i] = rec.Column(i)
		cols[i].Retain()
	}
	rec.Release()
	return cols
}

// boolArray is a non-null boolean array in output memory.
func boolArray(t *Target, v []bool) (arr arrow.Array, err error) {
	err = hmem.Catch(func() error {
		b := array.NewBooleanBuilder(t.OutputAllocator())
		defer b.Release()
		b.AppendValues(v, nil)
		arr = b.NewArray()
		return nil
	})
	return arr, err
}

// finish emits what the build side contributes after the last batch.
func (h *HashJoin) finish(context.Context) error {
	if !h.plan.buildOuter && h.plan.mode != modeMark {
		return nil
	}
	var keep func(int32) bool
	if h.spec.NullAwareAnti {
		switch {
		case h.probeRows == 0:
			keep = func(int32) bool { return true }
		case h.probeNullKey:
			keep = func(int32) bool { return false }
		default:
			key := h.table.rec.Column(h.table.keys[0])
			keep = func(r int32) bool { return !key.IsNull(int(r)) }
		}
	}
	h.queue(emptyRecord(h.probeSide.schema, 0, h.t.OutputAllocator()), h.plan.finish(h.spec.Type, h.table.rows, h.matched, keep))
	return nil
}

// Reset frees what the run holds — the hash table (a shared table stays
// shared), the output not yet gathered, a grace join's runs — and resets
// both children (a broadcast join's probe child only); see Resetter.
func (h *HashJoin) Reset(ctx context.Context) error {
	if h.closed {
		return fmt.Errorf("%w: hash join: Reset after Close", device.ErrInvalid)
	}
	errs := h.release()
	h.stats = Stats{}
	if h.shared == nil && h.buildSide.op != nil {
		errs = append(errs, Reset(ctx, h.buildSide.op))
	}
	errs = append(errs, Reset(ctx, h.probeSide.op))
	return errors.Join(errs...)
}

func (h *HashJoin) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	errs := h.release()
	if h.shared != nil {
		h.shared.Release()
	} else if h.buildSide.op != nil { // nil: a lazy broadcast join never opened
		errs = append(errs, h.buildSide.op.Close())
	}
	errs = append(errs, h.probeSide.op.Close())
	if h.cond != nil {
		h.cond.close()
	}
	return errors.Join(errs...)
}

// release frees what a run holds (the shared table of a broadcast join is
// only let go of) and forgets the run's state.
func (h *HashJoin) release() []error {
	for _, w := range append(h.work, h.incoming...) {
		w.data.Release()
	}
	h.work, h.incoming = nil, nil
	var errs []error
	if h.grace != nil {
		errs = append(errs, h.grace.close())
		h.grace = nil
	}
	if h.shared == nil && h.table != nil {
		errs = append(errs, h.table.free(context.Background()))
	}
	if h.cond != nil {
		h.cond.dropBuild() // the condition's columns staged from the table
	}
	h.table, h.matched = nil, nil
	h.probeRows, h.probeNullKey, h.emptyResult = 0, false, false
	h.opened, h.done = false, false
	return errs
}
