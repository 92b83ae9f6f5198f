package operators

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/spill"
)

// Spilling a hash aggregation.
//
// When an update needs more state than the budget allows, the device
// leaves the vector that needed it without effect (vectors before it are
// folded). The operator then emits every per-core state as partial buffers
// (the ordinary emit path: keys, then Spark's buffer columns), splits the
// groups by a Murmur3 hash of the keys into spillPartitions runs, frees
// the states, creates empty ones and resumes the update at the first
// vector not folded. At the end of the input the last states go to the
// runs too, and each run is merged by a merge-mode HashAggregate of its
// own — every group lives in exactly one run, so each merge's result is
// final for its groups. A merge that still does not fit spills again, with
// another hash seed so the groups spread, up to maxSpillLevel levels.
//
// Because partial buffers merge exactly (decimal sums with their isEmpty
// flags, avg's sum and count, count, min, max, first's valueSet), the
// result equals the unspilled one; first() takes the first value in run
// order, so merges of aggregations with first() use one state. With
// several cores, though, the per-core states of the spilling aggregation
// itself reach the runs state by state at each spill, so first() may pick
// another row of the group than the unspilled run would (both are rows of
// the group; Spark's first is as order-dependent).

const (
	maxSpillLevel = 6
	spillSeed     = 42
)

// spillPartitions is how many runs a spill splits the groups into.
var spillPartitions = 8

// spillState is a HashAggregate's spilling: the partition writers while
// it consumes input, then the runs it merges one at a time.
type spillState struct {
	level    int  // 0: an aggregation of its input; n: the merge of a level n-1 run
	oneState bool // one state (a merge keeping first() in run order)
	writers  []*spill.Writer
	buffers  spillBuffers // the writers' host memory (quota.go)
	merging  bool         // the input is consumed and the runs are being merged
	runs     []*spill.Run // finished, not yet merged
	cur      *spill.Run   // the run sub merges
	sub      *HashAggregate
	hashes   []int32
}

func (s *spillState) active() bool { return s.writers != nil || s.merging }

// reserveBudget charges the states' byte budget to the task's account: a
// third of what it has left, split among n states (none without a limit).
func (h *HashAggregate) reserveBudget(n int) error {
	a := h.t.Account
	if a == nil || a.Limit() == 0 || h.reserved > 0 {
		return nil
	}
	left := a.Limit() - min(a.Limit(), a.InUse())
	per := max(1, left/3/uint64(n))
	if err := a.Reserve(per * uint64(n)); err != nil {
		return h.quotaError(fmt.Errorf("hash aggregate: state budget: %w", err), "")
	}
	h.budget, h.reserved = per, per*uint64(n)
	return nil
}

// stateNeeds finds what a device said an aggregation state needs.
var stateNeeds = regexp.MustCompile(`needs (\d+) bytes`)

// quotaError turns a device out-of-memory or quota error into
// QuotaExceeded naming the state budget; other errors pass unchanged.
func (h *HashAggregate) quotaError(err error, why string) error {
	if !isNoMemory(err) && !errors.Is(err, hmem.ErrQuotaExceeded) {
		return err
	}
	if h.budget > 0 {
		err = fmt.Errorf("%w (each of %d states may hold %s, a third of what %s had left of its %s)", err,
			max(1, len(h.states)), hmem.FormatBytes(h.budget), h.t.Account.Name(), hmem.FormatBytes(h.t.Account.Limit()))
		var q *hmem.QuotaError
		if a := h.t.Account; !errors.As(err, &q) {
			// the device refused the state its budget: say so in the
			// account's terms (what the state needed, from the device's
			// message when it says, else the budget)
			need := h.budget
			if m := stateNeeds.FindStringSubmatch(err.Error()); m != nil {
				if n, perr := strconv.ParseUint(m[1], 10, 64); perr == nil {
					need = n
				}
			}
			err = fmt.Errorf("%w: %w", &hmem.QuotaError{Account: a.Name() + "'s aggregation budget",
				Requested: need, InUse: a.InUse(), Limit: a.Limit()}, err)
		}
	}
	if why == "" && h.t.Spill == nil {
		why = "no spill directory"
	}
	return QuotaExceeded("HashAggregate", err, why)
}

// resumeRow finds where a failed update of rows [pr[0], pr[1]) stopped:
// the start of the vector that failed, given how many rows reached the
// sink before it. With a fused filter that count is of selected rows, so
// a count pipeline counts each vector's selected rows to find it.
func (h *HashAggregate) resumeRow(ctx context.Context, cols []device.Column, pr [2]int, folded uint64) (int, error) {
	if h.counter == nil {
		return pr[0] + int(folded), nil
	}
	p := *h.counter
	p.Columns = cols
	enc, err := p.Encode()
	if err != nil {
		return 0, err
	}
	desc, err := h.t.upload(ctx, enc)
	if err != nil {
		return 0, h.quotaError(err, "")
	}
	defer desc.Free()
	const opsPerProgram = 64
	var seen uint64
	for lo := pr[0]; lo < pr[1]; {
		var ops []device.Op
		for ; lo < pr[1] && len(ops) < opsPerProgram; lo += device.VectorSize {
			ops = append(ops, pipelineOp(desc, lo, min(lo+device.VectorSize, pr[1]), 0))
		}
		c, err := h.t.DMA.Exec(ctx, device.Program{Ops: ops})
		if err != nil {
			return 0, wrapOp("hash aggregate: count selected rows", err)
		}
		for k, n := range c.Results {
			if seen == folded {
				return lo - (len(ops)-k)*device.VectorSize, nil
			}
			seen += n
		}
	}
	return 0, fmt.Errorf("hash aggregate: a failed update folded %d selected rows of %d: no vector boundary matches", folded, seen)
}

// spillStates moves every state to the spill runs and starts again with
// empty states of descriptor enc.
func (h *HashAggregate) spillStates(ctx context.Context, enc []byte) error {
	n := len(h.states)
	if err := h.spillAll(ctx, h.states); err != nil {
		return err
	}
	return h.createStates(ctx, enc, n)
}

// spillAll emits the given states into the partition writers and frees
// all of the operator's states.
func (h *HashAggregate) spillAll(ctx context.Context, states []device.Addr) error {
	for _, s := range states {
		rec, err := h.emit(ctx, s)
		if err != nil {
			return err
		}
		err = h.writePartitioned(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return h.freeStates()
}

// writePartitioned writes the groups of rec to the runs their key hash
// picks (copies; rec stays the caller's).
func (h *HashAggregate) writePartitioned(rec arrow.Record) error {
	s := &h.spill
	if s.writers == nil {
		n := spillPartitions
		if len(h.keys) == 0 {
			n = 1
		}
		for range n {
			w, err := h.t.Spill.Create("HashAggregate", h.out)
			if err != nil {
				return err
			}
			s.buffers.charge(h.t, "HashAggregate", w)
			s.writers = append(s.writers, w)
		}
	}
	if rec.NumRows() == 0 {
		return nil
	}
	if len(s.writers) == 1 {
		return s.writers[0].Write(rec)
	}
	rows := int(rec.NumRows())
	if cap(s.hashes) < rows {
		s.hashes = make([]int32, rows)
	}
	ids := s.hashes[:rows]
	if err := exchange.HashColumns(rec.Columns()[:len(h.keys)], int32(spillSeed+s.level), ids); err != nil {
		return fmt.Errorf("hash aggregate: spill: %w", err)
	}
	for i, v := range ids {
		ids[i] = exchange.Pmod(v, int32(len(s.writers)))
	}
	return writePartitions("hash aggregate: spill", rec, ids, len(s.writers), func(p int, part arrow.Record) error {
		return s.writers[p].Write(part)
	})
}

// nextSpilled returns the results of a spilled aggregation: at the end of
// the input it spills the last states and finishes the runs, then merges
// them one by one.
func (h *HashAggregate) nextSpilled(ctx context.Context) (arrow.Record, error) {
	s := &h.spill
	if !s.merging {
		if len(h.states) > 0 {
			if err := h.spillAll(ctx, h.states); err != nil {
				return nil, err
			}
		}
		if h.reserved > 0 { // no states any more: the merges need the memory
			h.t.Account.Release(h.reserved)
			h.reserved = 0
		}
		writers := s.writers
		s.writers, s.merging = nil, true
		for i, w := range writers {
			r, err := w.Finish()
			if err != nil {
				for _, w := range writers[i+1:] {
					w.Abort()
				}
				return nil, err
			}
			h.stats.addSpill(r)
			if r.Rows() == 0 {
				r.Remove()
				continue
			}
			s.runs = append(s.runs, r)
		}
	}
	for {
		if s.sub != nil {
			rec, err := s.sub.Next(ctx)
			if err != nil {
				return nil, err
			}
			if rec != nil {
				h.stats.RowsOut += rec.NumRows()
				return rec, nil
			}
			if err := h.closeMerge(); err != nil {
				return nil, err
			}
		}
		if len(s.runs) == 0 {
			h.done = true
			return nil, nil
		}
		if s.level >= maxSpillLevel {
			return nil, QuotaExceeded("HashAggregate", fmt.Errorf("a partition of %d groups (%s on disk) does not fit after %d levels of spilling",
				s.runs[0].Rows(), hmem.FormatBytes(uint64(s.runs[0].Bytes())), s.level), "")
		}
		s.cur, s.runs = s.runs[0], s.runs[1:]
		sub, err := h.mergeOf(s.cur)
		if err != nil {
			return nil, err
		}
		s.sub = sub
		if err := sub.Open(ctx); err != nil {
			return nil, err
		}
	}
}

// mergeOf builds the merge-mode aggregation of one run of partial buffers.
func (h *HashAggregate) mergeOf(run *spill.Run) (*HashAggregate, error) {
	names := make([]string, h.out.NumFields())
	for i, f := range h.out.Fields() {
		names[i] = f.Name
	}
	keys := make([]*expr.Expr, len(h.keys))
	for i, k := range h.keys {
		keys[i] = expr.Column(i, names[i], k.Type)
	}
	calls := make([]AggCall, len(h.calls))
	col, first := len(keys), false
	for i, c := range h.calls {
		bt, err := c.BufferTypes()
		if err != nil {
			return nil, err
		}
		calls[i] = AggCall{Func: c.Func, IgnoreNulls: c.IgnoreNulls, Input: c.Input}
		for _, dt := range bt {
			calls[i].Args = append(calls[i].Args, expr.Column(col, names[col], dt))
			col++
		}
		first = first || c.Func == "first"
	}
	m, err := NewHashAggregate(h.t, &runSource{run: run, schema: h.out}, nil, keys, calls, AggMerge, names)
	if err != nil {
		return nil, err
	}
	m.spill.level = h.spill.level + 1
	m.spill.oneState = first
	return m, nil
}

// closeMerge closes the current run's merge and removes the run.
func (h *HashAggregate) closeMerge() error {
	s := &h.spill
	var err error
	if s.sub != nil {
		err = s.sub.Close()
		st := s.sub.Stats()
		h.stats.SpillFiles += st.SpillFiles
		h.stats.SpillBytes += st.SpillBytes
		h.stats.SpillRows += st.SpillRows
		s.sub = nil
	}
	if s.cur != nil {
		if e := s.cur.Remove(); e != nil && err == nil {
			err = e
		}
		s.cur = nil
	}
	return err
}

// closeSpill aborts unfinished runs, closes a merge in progress and
// removes the runs not merged; the spilling configuration (level, one
// state) stays.
func (h *HashAggregate) closeSpill() error {
	s := &h.spill
	for _, w := range s.writers {
		w.Abort()
	}
	s.writers, s.merging = nil, false
	err := h.closeMerge()
	if e := s.buffers.close(); e != nil && err == nil {
		err = e
	}
	for _, r := range s.runs {
		if e := r.Remove(); e != nil && err == nil {
			err = e
		}
	}
	s.runs = nil
	return err
}

// runSource is an operator reading one spill run; its records are in Go
// memory and belong to the caller.
type runSource struct {
	run    *spill.Run
	schema *arrow.Schema
	rd     *spill.Reader
}

func (r *runSource) Schema() *arrow.Schema { return r.schema }

func (r *runSource) Open(context.Context) (err error) {
	r.rd, err = r.run.Open(memory.DefaultAllocator)
	return err
}

func (r *runSource) Next(context.Context) (arrow.Record, error) {
	if r.rd == nil {
		return nil, errors.New("operators: spill run read before Open")
	}
	return r.rd.Next()
}

// Reset closes the reader; Open reads the run again from its start.
func (r *runSource) Reset(context.Context) error { return r.Close() }

func (r *runSource) Close() error {
	if r.rd == nil {
		return nil
	}
	rd := r.rd
	r.rd = nil
	return rd.Close()
}
