package exchange

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/arrowsize"
)

// MemoryOutput is a map task's output kept in host memory instead of
// shuffle files: a small output (WriterOptions.KeepInMemory) skips the IPC
// encoding, compression, files, index and decoding, which dominate a
// small query's exchanges. Reduce partition p is the records of Part(p),
// in the order they were written.
//
// Memory: the MemoryOutput owns its records (buffers from the writer's
// allocator). Readers copy them into their own allocator and never keep
// a reference, so any number of readers, one after another or at the same
// time, may read it. Release frees the records once no reader is running;
// with the Go allocator an output that is never released is reclaimed by
// the garbage collector.
type MemoryOutput struct {
	parts [][]arrow.RecordBatch
	bytes int64
	once  sync.Once
}

// Partitions is the number of reduce partitions.
func (m *MemoryOutput) Partitions() int { return len(m.parts) }

// Part is reduce partition p's records (nil when it has none). They stay
// the output's: do not release them.
func (m *MemoryOutput) Part(p int) []arrow.RecordBatch {
	if p < 0 || p >= len(m.parts) {
		return nil
	}
	return m.parts[p]
}

// Bytes is the size of the buffers the output holds.
func (m *MemoryOutput) Bytes() int64 { return m.bytes }

// Release releases the records; it is idempotent.
func (m *MemoryOutput) Release() {
	m.once.Do(func() {
		for _, recs := range m.parts {
			for _, r := range recs {
				r.Release()
			}
		}
		m.parts = nil
	})
}

// Release frees what a map output holds in memory (a MemoryOutput); a
// file output's files are removed by whoever owns its directory.
func (o MapOutput) Release() {
	if o.Memory != nil {
		o.Memory.Release()
	}
}

// copyRecord deep-copies rec into buffers from mem (a record of a
// MemoryOutput handed to a reader, which owns the copy).
func copyRecord(rec arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	err := catchPanic(func() error {
		for i, c := range rec.Columns() {
			var err error
			if cols[i], err = array.Concatenate([]arrow.Array{c}, mem); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		release()
		return nil, err
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	release()
	return out, nil
}

// sliceBytes estimates the bytes of a's rows alone (a is typically a
// slice of a partitioned record sharing its buffers with the other
// partitions): the rows' share of fixed-width values and validity, or
// their offsets and value bytes for strings and binary; for other types
// the whole buffers, an overestimate.
func sliceBytes(a arrow.Array) int64 {
	n := int64(a.Len())
	bits := (n + 7) / 8
	switch a.DataType().ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
	default:
		if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok {
			return bits + (n*int64(fw.BitWidth())+7)/8
		}
		return arrowsize.Data(a.Data())
	}
	switch c := a.(type) {
	case interface{ ValueOffsets() []int32 }: // string, binary
		if o := c.ValueOffsets(); len(o) > 0 {
			return bits + 4*int64(len(o)) + int64(o[len(o)-1]-o[0])
		}
		return 0
	case interface{ ValueOffsets() []int64 }: // large string, large binary
		if o := c.ValueOffsets(); len(o) > 0 {
			return bits + 8*int64(len(o)) + o[len(o)-1] - o[0]
		}
		return 0
	}
	return arrowsize.Data(a.Data())
}
