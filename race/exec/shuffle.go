package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// shuffleOut is a map stage's output: one committed MapOutput per map
// task, partitioned as the exchange says. A range exchange is written
// twice: map tasks write their rows (with the sort keys appended) to one
// partition while sampling the keys; once every task is done the bounds
// are picked and each map output is re-partitioned by range.
type shuffleOut struct {
	id      int
	part    *rules.Partitioning
	n       int // reduce partitions (a range exchange's after sampling)
	mu      sync.Mutex
	outputs []exchange.MapOutput
	schema  *arrow.Schema // of the shuffled rows

	// range exchanges, first pass
	sampler *exchange.Sampler
	staged  []exchange.MapOutput
	sSchema *arrow.Schema // the staged rows: the shuffled columns then the keys
	width   int           // shuffled columns (the staged rows' first width)
	keys    []int         // key columns in the staged rows

	inMemory atomic.Int64 // bytes of the map outputs kept in memory (see keepBudget)
}

// keepBudget is how many bytes of one shuffle's map outputs stay in host
// memory (exchange.MemoryOutput) instead of files: the exchanges then
// skip encoding, compression, files and decoding; a big shuffle writes
// files past it. 128 MiB keeps the shuffles of TPC-H at scale factor 1
// (Q18's partial aggregates are the largest) in memory: at 16 MiB, Q13,
// Q17 and Q18 spent 10-25% more CPU on LZ4 and IPC. A variable for the
// tests only.
var keepBudget int64 = 128 << 20

// keep decides at the end of a map task whether its output, of the given
// buffered bytes, stays in memory, taking that much of the budget.
func (o *shuffleOut) keep(w *exchange.ShuffleWriter) {
	n, spilled := w.Buffered()
	if spilled {
		return
	}
	if o.inMemory.Add(n) > keepBudget {
		o.inMemory.Add(-n)
		return
	}
	w.SetKeepInMemory(max(n, 1))
}

// release frees the map outputs kept in memory (their files go with the
// query's shuffle directory). Idempotent.
func (o *shuffleOut) release() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, list := range [][]exchange.MapOutput{o.outputs, o.staged} {
		for _, m := range list {
			m.Release()
		}
	}
}

// rangeStaging offsets the shuffle ids of a range exchange's first pass.
const rangeStaging = 1 << 20

func (q *query) newShuffleOut(s *stage, maps int) (*shuffleOut, error) {
	pl := s.at.Device
	if pl == nil || pl.Partitioning == nil {
		return nil, notExecutable(s.at, "no converted partitioning")
	}
	o := &shuffleOut{id: s.id, part: pl.Partitioning, n: pl.Partitioning.N, outputs: make([]exchange.MapOutput, maps)}
	switch o.part.Kind {
	case plan.PartSingle:
		o.n = 1
	case plan.PartRange:
		o.staged = make([]exchange.MapOutput, maps)
		orders := make([]exchange.SortOrder, len(o.part.Orders))
		for k, so := range o.part.Orders {
			orders[k] = exchange.SortOrder{Column: k, Descending: so.Descending, NullsFirst: so.NullsFirst}
		}
		var err error
		if o.sampler, err = exchange.NewSampler(orders, min(20*max(o.n, 1), 1<<20), int64(s.id)); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// lengths are the bytes of each reduce partition over all map outputs.
func (o *shuffleOut) lengths() []int64 {
	out := make([]int64, o.n)
	for _, m := range o.outputs {
		for p, b := range m.PartitionLengths {
			if p < len(out) {
				out[p] += b
			}
		}
	}
	return out
}

// precomputed is a Partitioner handing out ids computed beforehand (from
// key columns that are not written).
type precomputed struct {
	n   int
	ids []int32
}

func (p *precomputed) NumPartitions() int { return p.n }

func (p *precomputed) PartitionIDs(rec arrow.RecordBatch, ids []int32) error {
	if len(ids) != len(p.ids) {
		return fmt.Errorf("exec: %d partition ids for %d rows", len(p.ids), len(ids))
	}
	copy(ids, p.ids)
	return nil
}

// withKeys returns op extended with the partitioning keys as columns
// (when they are not plain columns already), the key columns' indices and
// the number of columns the exchange shuffles.
func (b *builder) withKeys(op operators.Operator, keys []*expr.Expr) (operators.Operator, []int, int, error) {
	width := op.Schema().NumFields()
	idx := make([]int, 0, len(keys))
	plain := true
	for _, k := range keys {
		if k.Op != expr.OpColumn {
			plain = false
			break
		}
		idx = append(idx, k.Col)
	}
	if plain {
		return op, idx, width, nil
	}
	var proj []*expr.Expr
	var names []string
	for i, f := range op.Schema().Fields() {
		dt, err := types.FromArrow(f.Type)
		if err != nil {
			return nil, nil, 0, err
		}
		proj = append(proj, expr.Column(i, f.Name, dt))
		names = append(names, f.Name)
	}
	idx = idx[:0]
	for i, k := range keys {
		idx = append(idx, len(proj))
		proj = append(proj, k)
		names = append(names, fmt.Sprintf("_key%d", i))
	}
	fp, err := operators.NewFilterProject(b.target, op, nil, proj, names)
	if err != nil {
		return nil, nil, 0, err
	}
	return fp, idx, width, nil
}

// slice returns rec's first width columns (a new reference).
func slice(rec arrow.Record, width int, schema *arrow.Schema) arrow.Record {
	if int(rec.NumCols()) == width {
		rec.Retain()
		return rec
	}
	if schema == nil {
		schema = arrow.NewSchema(rec.Schema().Fields()[:width], nil)
	}
	return array.NewRecord(schema, rec.Columns()[:width], rec.NumRows())
}

// writeMap drains a map task's operator into its shuffle files.
func (q *query) writeMap(ctx context.Context, b *builder, op operators.Operator, p int) (err error) {
	o := b.s.shuffle
	var keys []*expr.Expr
	switch o.part.Kind {
	case plan.PartHash:
		keys = o.part.Keys
	case plan.PartRange:
		for _, k := range o.part.Orders {
			keys = append(keys, k.Expr)
		}
	}
	op, keyCols, width, err := b.withKeys(op, keys)
	if err != nil {
		return err
	}
	var inner exchange.Partitioner
	shuffleID := o.id
	switch o.part.Kind {
	case plan.PartHash:
		inner, err = exchange.NewHash(keyCols, o.n)
	case plan.PartRoundRobin:
		inner, err = exchange.NewRoundRobin(o.n, p)
	case plan.PartRange:
		inner, shuffleID = exchange.Single{}, o.id+rangeStaging
	default:
		inner = exchange.Single{}
	}
	if err != nil {
		return err
	}
	pre := &precomputed{n: inner.NumPartitions()}
	w, err := exchange.NewShuffleWriter(pre, exchange.WriterOptions{Dir: q.dir, ShuffleID: shuffleID, MapID: p, Codec: q.env.ShuffleCodec})
	if err != nil {
		return err
	}
	ws := &writerStats{w: w}
	b.trackStats(label(b.s.at)+" write", ws, func(os *OperatorStats) {
		st := w.Stats()
		os.Bytes += st.FileBytes
		os.Time += st.Duration
	})
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	if err = op.Open(ctx); err != nil {
		op.Close()
		return err
	}
	written := width // the columns written: a range exchange's first pass keeps its keys
	if o.part.Kind == plan.PartRange {
		written = op.Schema().NumFields()
	}
	var schema *arrow.Schema
	for {
		rec, nerr := op.Next(ctx)
		if nerr != nil || rec == nil {
			err = errors.Join(nerr, op.Close())
			break
		}
		ws.rowsIn += rec.NumRows()
		if err = q.mapRecord(o, inner, pre, w, rec, keyCols, written, &schema); err != nil {
			rec.Release()
			op.Close()
			break
		}
		rec.Release()
	}
	if err != nil {
		return err
	}
	if schema == nil {
		schema = arrow.NewSchema(op.Schema().Fields()[:written], nil)
	}
	o.keep(w)
	mo, err := w.Close()
	if err != nil {
		return err
	}
	ws.closed = true
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.part.Kind == plan.PartRange {
		o.staged[p], o.sSchema, o.keys, o.width = mo, schema, keyCols, width
	} else {
		o.outputs[p] = mo
	}
	if o.schema == nil {
		o.schema = arrow.NewSchema(schema.Fields()[:width], nil)
	}
	return nil
}

// mapRecord partitions one record and writes its shuffled columns.
func (q *query) mapRecord(o *shuffleOut, inner exchange.Partitioner, pre *precomputed, w *exchange.ShuffleWriter,
	rec arrow.Record, keyCols []int, width int, schema **arrow.Schema) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if cap(pre.ids) < int(rec.NumRows()) {
		pre.ids = make([]int32, rec.NumRows())
	}
	pre.ids = pre.ids[:rec.NumRows()]
	if err := inner.PartitionIDs(rec, pre.ids); err != nil {
		return err
	}
	out := slice(rec, width, *schema)
	defer out.Release()
	if *schema == nil {
		*schema = out.Schema()
	}
	if o.sampler != nil {
		if err := o.sample(rec, keyCols); err != nil {
			return err
		}
	}
	return w.Write(out)
}

// sample shows the key columns of rec (copied to the Go heap: the sampler
// keeps them) to the range exchange's sampler.
func (o *shuffleOut) sample(rec arrow.Record, keyCols []int) error {
	cols := make([]arrow.Array, len(keyCols))
	fields := make([]arrow.Field, len(keyCols))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for k, c := range keyCols {
		var err error
		if cols[k], err = array.Concatenate([]arrow.Array{rec.Column(c)}, memory.DefaultAllocator); err != nil {
			return err
		}
		fields[k] = rec.Schema().Field(c)
	}
	keys := array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	defer keys.Release()
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sampler.Add(keys)
}

// finishShuffle ends a map stage: a range exchange picks its bounds from
// the sample and re-partitions every staged map output by them.
func (q *query) finishShuffle(ctx context.Context, s *stage) error {
	o := s.shuffle
	if o.part.Kind != plan.PartRange {
		return nil
	}
	defer o.sampler.Release()
	var bounds arrow.Record
	// No row at all: one (empty) partition. A range exchange whose rows
	// fit in one coalesced reduce partition gets one partition too: its
	// reduce side would read all of them in one task anyway, in the same
	// order, so the bounds (a sort of the sample) are not worth picking.
	if o.sampler.Seen() > 0 && !q.fitsOnePartition(o.staged) {
		var err error
		if bounds, err = o.sampler.Bounds(max(o.part.N, 1), memory.DefaultAllocator); err != nil {
			return fmt.Errorf("exec: %s: range bounds: %w", s.name(), err)
		}
	}
	o.n = 1
	var rp *exchange.Range
	if bounds != nil {
		defer bounds.Release()
		orders := make([]exchange.SortOrder, len(o.part.Orders))
		for k, so := range o.part.Orders {
			orders[k] = exchange.SortOrder{Column: o.keys[k], Descending: so.Descending, NullsFirst: so.NullsFirst}
		}
		var err error
		if rp, err = exchange.NewRange(orders, bounds); err != nil {
			return fmt.Errorf("exec: %s: %w", s.name(), err)
		}
		defer rp.Release()
		o.n = rp.NumPartitions()
	}
	errs := make([]error, len(o.staged))
	var wg sync.WaitGroup
	for m := range o.staged {
		wg.Add(1)
		go func(m int) {
			defer wg.Done()
			if errs[m] = q.slots.acquire(ctx, prioNormal); errs[m] != nil {
				return
			}
			defer q.slots.release()
			errs[m] = q.repartition(o, m, rp)
		}(m)
	}
	wg.Wait()
	if err := firstCause(errs); err != nil {
		return fmt.Errorf("exec: %s: %w", s.name(), err)
	}
	return nil
}

// fitsOnePartition reports whether map outputs are small enough for their
// reduce partitions to be coalesced into one (advisoryBytes).
func (q *query) fitsOnePartition(outs []exchange.MapOutput) bool {
	target := q.advisoryBytes()
	if target < 0 {
		return false
	}
	var total int64
	for _, m := range outs {
		for _, b := range m.PartitionLengths {
			total += b
		}
	}
	return total <= target
}

// repartition rewrites staged map output m by range (rp nil: everything
// to the one partition) and removes it.
func (q *query) repartition(o *shuffleOut, m int, rp *exchange.Range) (err error) {
	st := o.staged[m]
	defer func() {
		if st.Memory != nil {
			o.inMemory.Add(-st.Memory.Bytes())
		}
		err = errors.Join(err, removeOutput(st))
	}()
	var inner exchange.Partitioner = exchange.Single{}
	if rp != nil {
		inner = rp
	}
	pre := &precomputed{n: inner.NumPartitions()}
	w, err := exchange.NewShuffleWriter(pre, exchange.WriterOptions{Dir: q.dir, ShuffleID: o.id, MapID: m, Codec: q.env.ShuffleCodec})
	if err != nil {
		return err
	}
	if st.DataPath != "" || st.Memory != nil {
		r, err := exchange.NewShuffleReader([]exchange.MapOutput{st}, 0, o.sSchema, memory.DefaultAllocator)
		if err != nil {
			w.Abort()
			return err
		}
		var schema *arrow.Schema
		for {
			rec, rerr := r.Next()
			if rerr != nil || rec == nil {
				err = errors.Join(rerr, r.Close())
				break
			}
			err = q.mapRecord(&shuffleOut{}, inner, pre, w, rec, nil, o.width, &schema)
			rec.Release()
			if err != nil {
				r.Close()
				break
			}
		}
		if err != nil {
			w.Abort()
			return err
		}
	}
	o.keep(w)
	mo, err := w.Close()
	if err != nil {
		return err
	}
	o.mu.Lock()
	o.outputs[m] = mo
	o.mu.Unlock()
	return nil
}

// removeOutput drops a map output: its memory or its files.
func removeOutput(m exchange.MapOutput) error {
	m.Release()
	var errs []error
	for _, p := range []string{m.DataPath, m.IndexPath} {
		if p != "" {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
