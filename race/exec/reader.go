package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/race/rules"
)

// groupsOf is the reduce partition groups of shuffle leaf n (planGroups).
func (s *stage) groupsOf(n *rules.Node) [][2]int { return s.groups[n] }

// shuffleRead is the reduce side of an exchange for task p: the reduce
// partitions of its group, each read from every map output in map order.
func (b *builder) shuffleRead(n *rules.Node, dep *stage, p int) (operators.Operator, error) {
	if dep == nil || dep.shuffle == nil {
		return nil, notExecutable(n, "its map stage did not run")
	}
	o := dep.shuffle
	groups := b.s.groupsOf(n)
	lo, hi := 0, 0
	if p >= 0 && p < len(groups) {
		lo, hi = groups[p][0], groups[p][1]
	}
	src := &shuffleSource{out: o, lo: lo, hi: hi, mem: b.target.OutputAllocator(), target: b.target}
	return b.track(label(n)+" read", src, src.extra), nil
}

// shuffleSource is an operator over reduce partitions [lo, hi) of a
// shuffle, read by one exchange.ShuffleReader (partition after partition,
// each from every map output in map order), consecutive small records
// concatenated into batches of up to coalesceRows rows (order kept). Its
// records are allocated from the task's output allocator (device memory
// on a host-visible device) and owned by the caller.
type shuffleSource struct {
	out     *shuffleOut
	lo, hi  int
	mem     memory.Allocator
	target  *operators.Target
	r       *exchange.ShuffleReader
	pending arrow.Record // read ahead by the last batch (coalesceRows)
	done    bool
	stats   operators.Stats
	read    exchange.Stats
}

// coalesceRows is how many rows of consecutive small shuffle records
// (one per map output and reduce partition: a task of 200 coalesced
// partitions of 3 map outputs reads 600) are concatenated into one batch:
// every batch costs the operators above a device program or more, which
// dominated the final aggregations of small shuffles (Q15: 88 ms for 30k
// rows in 600 records). A record of this many rows passes as it is. It is
// the shuffle reader's own gathering bound, so the records it gathers from
// in-memory map outputs pass without a second copy.
var coalesceRows int64 = exchange.GatherRows

func (s *shuffleSource) Schema() *arrow.Schema      { return s.out.schema }
func (s *shuffleSource) Open(context.Context) error { return nil }

func (s *shuffleSource) Next(ctx context.Context) (arrow.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	if s.done || s.lo >= s.hi {
		return nil, nil
	}
	if s.r == nil {
		r, err := exchange.NewShuffleRangeReader(s.out.outputs, s.lo, s.hi, s.out.schema, s.mem)
		if err != nil {
			return nil, fmt.Errorf("shuffle %d partitions [%d, %d): %w", s.out.id, s.lo, s.hi, err)
		}
		s.r = r
	}
	var batch []arrow.Record
	defer func() {
		for _, r := range batch {
			r.Release()
		}
	}()
	var rows int64
	for rows < coalesceRows {
		rec := s.pending
		s.pending = nil
		if rec == nil {
			var err error
			if rec, err = s.r.Next(); err != nil {
				return nil, err
			}
		}
		if rec == nil {
			s.done = true
			break
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		if rows > 0 && rows+rec.NumRows() > coalesceRows {
			s.pending = rec
			break
		}
		batch = append(batch, rec)
		rows += rec.NumRows()
	}
	if len(batch) == 0 {
		return nil, s.closeReader()
	}
	out, err := operators.ConcatRecords(s.target, batch) // one record: handed on as it is
	if err != nil {
		return nil, fmt.Errorf("shuffle %d partitions [%d, %d): %w", s.out.id, s.lo, s.hi, err)
	}
	s.stats.RowsOut += out.NumRows()
	s.stats.Batches++
	return out, nil
}

func (s *shuffleSource) closeReader() error {
	if s.pending != nil {
		s.pending.Release()
		s.pending = nil
	}
	if s.r == nil {
		return nil
	}
	st := s.r.Stats()
	s.read.FileBytes += st.FileBytes
	s.read.Duration += st.Duration
	err := s.r.Close()
	s.r = nil
	return err
}

func (s *shuffleSource) Close() error           { return s.closeReader() }
func (s *shuffleSource) Stats() operators.Stats { return s.stats }

func (s *shuffleSource) extra(o *OperatorStats) { o.Bytes += s.read.FileBytes }
