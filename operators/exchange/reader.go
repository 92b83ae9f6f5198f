package exchange

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ShuffleReader is the reduce side of an exchange: it reads reduce
// partitions [lo, hi) from a list of map outputs and returns, partition
// after partition, each one's records in map order, and within a map
// output in the order they were written. It holds one block's records at
// a time. A map output whose PartitionLengths say it has nothing for a
// partition is skipped without opening its files; a file output's index
// is read once per reader; a MemoryOutput's records are copied, and
// consecutive ones (across map outputs and partitions, up to GatherRows
// rows) into one record: one copy where a consumer would otherwise copy
// each and then concatenate them.
//
// Memory: every record Next returns is allocated from the reader's
// allocator and owned by the caller, who releases it. Close releases what
// the reader still holds and closes files; it is idempotent. Not safe for
// concurrent use.
type ShuffleReader struct {
	outputs   []MapOutput
	partition int // the partition being read
	hi        int // end of the range
	mem       memory.Allocator
	schemaMsg []byte

	next    int       // next map output of the partition to open
	offsets [][]int64 // per map output: its validated index, once read
	file    *os.File
	path    string
	pos     int64 // next block offset in file
	end     int64 // end of the partition's segment
	pending []arrow.RecordBatch
	kept    []arrow.RecordBatch // a MemoryOutput's records still to gather
	// consecutive MemoryOutput records (borrowed, not retained) to copy
	// into one record, and their rows
	gather     []arrow.RecordBatch
	gatherRows int64
	scratch    []byte
	stored     []byte
	stats      Stats
	closed     bool
}

// NewShuffleReader reads reduce partition p of outputs, whose records have
// the given schema (the exchange's output schema, which the consuming stage
// knows; a block with another schema is an error). mem (nil means
// memory.DefaultAllocator) allocates the records. Files are opened lazily.
func NewShuffleReader(outputs []MapOutput, p int, schema *arrow.Schema, mem memory.Allocator) (*ShuffleReader, error) {
	return NewShuffleRangeReader(outputs, p, p+1, schema, mem)
}

// NewShuffleRangeReader reads reduce partitions [lo, hi) of outputs one
// after the other (a coalesced group of partitions, read by one task),
// like NewShuffleReader reading each in turn.
func NewShuffleRangeReader(outputs []MapOutput, lo, hi int, schema *arrow.Schema, mem memory.Allocator) (*ShuffleReader, error) {
	if hi < lo {
		return nil, fmt.Errorf("exchange: partition range [%d, %d) is reversed", lo, hi)
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	msg, err := schemaMessage(schema)
	if err != nil {
		return nil, err
	}
	return &ShuffleReader{outputs: outputs, partition: lo, hi: hi, mem: mem, schemaMsg: msg,
		offsets: make([][]int64, len(outputs))}, nil
}

// Next returns the next record, or nil and a nil error at the end. A
// damaged file gives a *CorruptError (errors.Is(err, ErrCorrupt)) naming
// the file, the partition and the offset.
func (r *ShuffleReader) Next() (arrow.RecordBatch, error) {
	if r.closed {
		return nil, errors.New("exchange: read from a closed shuffle reader")
	}
	t0 := time.Now()
	defer func() { r.stats.Duration += time.Since(t0) }()
	for len(r.pending) == 0 {
		if len(r.kept) > 0 { // gathered, then copied in one piece (flushGather)
			rec := r.kept[0]
			n := rec.NumRows()
			if len(r.gather) > 0 && r.gatherRows+n > GatherRows {
				if err := r.flushGather(); err != nil {
					return nil, err
				}
				break
			}
			r.kept = r.kept[1:]
			if n > 0 {
				r.gather = append(r.gather, rec)
				r.gatherRows += n
			}
			continue
		}
		if r.file != nil && r.pos < r.end {
			if len(r.gather) > 0 { // the memory records before the file's
				if err := r.flushGather(); err != nil {
					return nil, err
				}
				break
			}
			if err := r.readBlock(); err != nil {
				return nil, err
			}
			continue
		}
		if err := r.closeFile(); err != nil {
			return nil, err
		}
		if r.next >= len(r.outputs) && r.partition+1 < r.hi {
			r.partition++
			r.next = 0
			continue
		}
		if r.next >= len(r.outputs) || r.partition >= r.hi {
			if len(r.gather) > 0 {
				if err := r.flushGather(); err != nil {
					return nil, err
				}
				break
			}
			return nil, nil
		}
		if err := r.open(r.next); err != nil {
			return nil, err
		}
		r.next++
	}
	rec := r.pending[0]
	r.pending[0] = nil
	r.pending = r.pending[1:]
	r.stats.Records++
	r.stats.Rows += rec.NumRows()
	return rec, nil
}

// GatherRows bounds the rows of a record the reader gathers from
// consecutive MemoryOutput records (a record of more rows is returned
// alone). It equals the batch the exec layer coalesces shuffle records
// into, so its batches of gathered records need no second copy.
const GatherRows = 64 << 10

// flushGather copies the gathered records into one record of r.pending.
func (r *ShuffleReader) flushGather() error {
	recs := r.gather
	r.gather, r.gatherRows = r.gather[:0], 0
	var rec arrow.RecordBatch
	var err error
	if len(recs) == 1 {
		rec, err = copyRecord(recs[0], r.mem)
	} else {
		err = catchPanic(func() (err error) { rec, err = Concat(recs, r.mem); return })
	}
	clear(recs)
	if err != nil {
		return err
	}
	r.pending = append(r.pending, rec)
	return nil
}

// open positions on the current partition of map output m: its records
// when it is in memory, nothing when its lengths say it has no rows
// there, else its validated index's segment of the data file.
func (r *ShuffleReader) open(m int) error {
	out := r.outputs[m]
	if out.Memory != nil {
		if n := out.Memory.Partitions(); r.partition < 0 || r.partition >= n {
			return fmt.Errorf("exchange: partition %d out of range: map output %d in memory has %d partitions", r.partition, m, n)
		}
		r.kept = out.Memory.Part(r.partition)
		return nil
	}
	offsets := r.offsets[m]
	if offsets != nil { // read before: open the data file only for rows
		if err := r.inRange(offsets, out); err != nil {
			return err
		}
		if offsets[r.partition] == offsets[r.partition+1] {
			return nil
		}
	}
	f, err := os.Open(out.DataPath)
	if err != nil {
		return fmt.Errorf("exchange: open shuffle data: %w", err)
	}
	if offsets == nil {
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return fmt.Errorf("exchange: stat shuffle data: %w", err)
		}
		if offsets, err = readIndex(out.IndexPath, st.Size()); err != nil {
			f.Close()
			return err
		}
		r.offsets[m] = offsets
		r.stats.FileBytes += int64(8 * len(offsets))
		if err := r.inRange(offsets, out); err != nil {
			f.Close()
			return err
		}
	}
	r.file, r.path = f, out.DataPath
	r.pos, r.end = offsets[r.partition], offsets[r.partition+1]
	return nil
}

// inRange checks that the current partition is one of the index's.
func (r *ShuffleReader) inRange(offsets []int64, out MapOutput) error {
	if n := len(offsets) - 1; r.partition < 0 || r.partition >= n {
		return fmt.Errorf("exchange: partition %d out of range: %s has %d partitions", r.partition, out.IndexPath, n)
	}
	return nil
}

func (r *ShuffleReader) closeFile() error {
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	if err != nil {
		return fmt.Errorf("exchange: close %s: %w", r.path, err)
	}
	return nil
}

// readBlock reads and decodes the block at r.pos into r.pending.
func (r *ShuffleReader) readBlock() error {
	at := r.pos
	bad := func(reason string, err error) error {
		return &CorruptError{File: r.path, Partition: r.partition, Offset: at, Reason: reason, Err: err}
	}
	if r.end-at < blockHeaderSize {
		return bad(fmt.Sprintf("%d bytes left in the partition, too few for a block header", r.end-at), nil)
	}
	var hdr [blockHeaderSize]byte
	if _, err := r.file.ReadAt(hdr[:], at); err != nil {
		return bad("reading block header", err)
	}
	h, err := parseBlockHeader(hdr[:])
	if err != nil {
		return bad("bad block header", err)
	}
	if int(h.partition) != r.partition {
		return bad(fmt.Sprintf("block belongs to partition %d", h.partition), nil)
	}
	if int64(h.storedLen) > r.end-at-blockHeaderSize {
		return bad(fmt.Sprintf("block payload of %d bytes runs past the partition end (%d bytes left)", h.storedLen, r.end-at-blockHeaderSize), nil)
	}
	r.stored = grow(r.stored, int(h.storedLen))
	if _, err := r.file.ReadAt(r.stored, at+blockHeaderSize); err != nil {
		if errors.Is(err, io.EOF) {
			return bad("truncated block payload", err)
		}
		return bad("reading block payload", err)
	}
	raw, err := openBlock(hdr[:], h, r.stored, r.scratch)
	if err != nil {
		return bad("bad block payload", err)
	}
	r.scratch = raw
	recs, err := decodeIPC(raw, r.schemaMsg, r.mem)
	if err != nil {
		return bad("bad block contents", err)
	}
	r.pending = append(r.pending, recs...)
	r.pos = at + blockHeaderSize + int64(h.storedLen)
	r.stats.Blocks++
	r.stats.IPCBytes += int64(h.rawLen)
	r.stats.CompressedBytes += int64(h.storedLen)
	r.stats.FileBytes += blockHeaderSize + int64(h.storedLen)
	return nil
}

// Stats returns what the reader has read so far.
func (r *ShuffleReader) Stats() Stats { return r.stats }

// Close releases records not yet returned and closes the open file.
func (r *ShuffleReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	for _, rec := range r.pending {
		rec.Release()
	}
	r.pending = nil
	r.kept = nil
	r.gather = nil
	return r.closeFile()
}
