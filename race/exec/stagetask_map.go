package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/plan"
)

// mapOutput is the output of a shuffle_map task when the host engine
// shuffles (RunStage): the exchange's rows in host memory, split by
// reduce partition with PartitionColumn first (Spark's partition ids:
// pmod(murmur3(keys), n) for hash, its round-robin order, 0 for single),
// or as they come for a range exchange, whose bounds the host engine
// computes over every map task.
func (q *query) mapOutput(ctx context.Context, b *builder, op operators.Operator, p int) error {
	part := b.s.at.Device.Partitioning
	var keys []*expr.Expr
	if part.Kind == plan.PartHash {
		keys = part.Keys
	}
	keyed, keyCols, width, err := b.withKeys(op, keys)
	if err != nil {
		return closeAfter(op, err)
	}
	op = keyed
	var pt exchange.Partitioner
	switch part.Kind {
	case plan.PartHash:
		pt, err = exchange.NewHash(keyCols, part.N)
	case plan.PartRoundRobin:
		pt, err = exchange.NewRoundRobin(part.N, p)
	case plan.PartSingle:
		pt = exchange.Single{}
	case plan.PartRange:
	default:
		err = notExecutable(b.s.at, fmt.Sprintf("partitioning %s", part.Kind))
	}
	if err != nil {
		return closeAfter(op, err)
	}
	schema := arrow.NewSchema(op.Schema().Fields()[:width], nil)
	recs, err := operators.Collect(ctx, op)
	if err != nil {
		return err
	}
	var out []arrow.Record
	if pt == nil {
		out, err = toHost(narrow(recs, width, schema), q.hostMem(b.s))
	} else {
		schema = withPartitionColumn(schema)
		out, err = splitByPartition(recs, pt, width, schema, q.hostMem(b.s))
	}
	if err != nil {
		return err
	}
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	b.s.schema = schema
	for _, r := range b.s.parts[p] { // an earlier attempt's output cannot remain, but be safe
		r.Release()
	}
	b.s.parts[p] = out
	return nil
}

// narrow keeps the first width columns of each record (releasing the
// originals).
func narrow(recs []arrow.Record, width int, schema *arrow.Schema) []arrow.Record {
	for i, r := range recs {
		recs[i] = slice(r, width, schema)
		r.Release()
	}
	return recs
}

func withPartitionColumn(s *arrow.Schema) *arrow.Schema {
	fields := append([]arrow.Field{{Name: PartitionColumn, Type: arrow.PrimitiveTypes.Int32}}, s.Fields()...)
	return arrow.NewSchema(fields, nil)
}

// splitByPartition partitions each record's first width columns into host
// records of one reduce partition each, PartitionColumn first, releasing
// the inputs.
func splitByPartition(recs []arrow.Record, pt exchange.Partitioner, width int, schema *arrow.Schema, mem memory.Allocator) (out []arrow.Record, err error) {
	defer func() {
		for _, r := range recs {
			if r != nil {
				r.Release()
			}
		}
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			out = nil
		}
	}()
	n := pt.NumPartitions()
	var ids []int32
	for i, rec := range recs {
		if rec.NumRows() == 0 {
			continue
		}
		ids = append(ids[:0], make([]int32, rec.NumRows())...)
		if err := pt.PartitionIDs(rec, ids); err != nil {
			return out, err
		}
		cols := slice(rec, width, nil)
		parts, err := exchange.Partition(cols, ids, n, mem)
		cols.Release()
		rec.Release()
		recs[i] = nil
		if err != nil {
			return out, err
		}
		for pid, pr := range parts {
			if pr != nil {
				out = append(out, tagPartition(schema, pr, int32(pid), mem))
			}
		}
	}
	return out, nil
}

// tagPartition puts a constant PartitionColumn before rec's columns
// (taking over rec's reference).
func tagPartition(schema *arrow.Schema, rec arrow.Record, pid int32, mem memory.Allocator) arrow.Record {
	defer rec.Release()
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.Reserve(int(rec.NumRows()))
	for range rec.NumRows() {
		b.UnsafeAppend(pid)
	}
	ids := b.NewArray()
	defer ids.Release()
	return array.NewRecord(schema, append([]arrow.Array{ids}, rec.Columns()...), rec.NumRows())
}
