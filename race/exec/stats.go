package exec

import (
	"context"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/exchange"
)

type statser interface{ Stats() operators.Stats }

// tracked is one operator of a task, for the query's statistics.
type tracked struct {
	name  string
	s     statser
	timer *timed
	extra func(*OperatorStats)
}

// track records op under name and returns it wrapped so that the time
// spent in it is measured.
func (b *builder) track(name string, op operators.Operator, extra ...func(*OperatorStats)) operators.Operator {
	st, ok := op.(statser)
	if !ok {
		c := &countingOp{Operator: op}
		st, op = c, c
	}
	t := &timed{Operator: op}
	x := tracked{name: name, s: st, timer: t}
	if len(extra) > 0 {
		x.extra = extra[0]
	}
	b.stats = append(b.stats, x)
	return t
}

// trackStats records something that is not an operator (a shuffle
// writer).
func (b *builder) trackStats(name string, s statser, extra func(*OperatorStats)) {
	b.stats = append(b.stats, tracked{name: name, s: s, extra: extra})
}

// timed measures the time spent in an operator's Open and Next (its
// children's included).
type timed struct {
	operators.Operator
	d time.Duration
}

func (t *timed) Open(ctx context.Context) error {
	t0 := time.Now()
	err := t.Operator.Open(ctx)
	t.d += time.Since(t0)
	return err
}

func (t *timed) Next(ctx context.Context) (arrow.Record, error) {
	t0 := time.Now()
	r, err := t.Operator.Next(ctx)
	t.d += time.Since(t0)
	return r, err
}

// statsTable sums operator statistics over tasks, keeping the order in
// which operators were first seen.
type statsTable struct {
	mu    sync.Mutex
	order []string
	by    map[string]*OperatorStats
}

func newStatsTable() *statsTable { return &statsTable{by: map[string]*OperatorStats{}} }

func (t *statsTable) add(ts []tracked) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, x := range ts {
		o := t.by[x.name]
		if o == nil {
			o = &OperatorStats{Name: x.name}
			t.by[x.name] = o
			t.order = append(t.order, x.name)
		}
		s := x.s.Stats()
		o.RowsIn += s.RowsIn
		o.RowsOut += s.RowsOut
		o.Batches += s.Batches
		o.Tasks++
		if x.timer != nil {
			o.Time += x.timer.d
		}
		if x.extra != nil {
			x.extra(o)
		}
	}
}

func (t *statsTable) list() []OperatorStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]OperatorStats, 0, len(t.order))
	for _, n := range t.order {
		out = append(out, *t.by[n])
	}
	return out
}

// writerStats reports a shuffle writer as an operator: rows in, bytes
// written.
type writerStats struct {
	w      *exchange.ShuffleWriter
	rowsIn int64
	closed bool
}

func (w *writerStats) Stats() operators.Stats {
	s := w.w.Stats()
	return operators.Stats{RowsIn: w.rowsIn, RowsOut: s.Rows, Batches: s.Records}
}
