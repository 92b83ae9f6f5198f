package exchange

import (
	"bytes"
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// encodeIPC appends to buf one Arrow IPC stream (schema, dictionaries, the
// records, end-of-stream marker) holding recs.
func encodeIPC(buf *bytes.Buffer, schema *arrow.Schema, recs []arrow.RecordBatch, mem memory.Allocator) error {
	w := ipc.NewWriter(buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			w.Close()
			return fmt.Errorf("exchange: arrow ipc write: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("exchange: arrow ipc close: %w", err)
	}
	return nil
}

// schemaMessage returns the bytes an Arrow IPC stream of schema starts
// with: its encapsulated schema message, as encodeIPC writes it.
func schemaMessage(schema *arrow.Schema) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("exchange: encode schema: %w", err)
	}
	b := buf.Bytes()
	if len(b) < 8 {
		return nil, fmt.Errorf("exchange: encode schema: %d-byte stream", len(b))
	}
	return b[:len(b)-8], nil // drop the end-of-stream marker
}

// decodeIPC reads every record of the Arrow IPC stream raw into buffers
// from mem; the caller releases the records. raw must start with exactly
// the bytes of schemaMsg (the expected schema's message): arrow-go parses a
// schema's flatbuffer without bounds checks and can be made to allocate
// without limit by a forged one, so only a schema known to be good is ever
// parsed. Other malformed input returns an error: arrow's reader panics on
// some bad flatbuffers (recovered here), message sizes are capped by
// len(raw), and all allocations together by a budget proportional to it.
func decodeIPC(raw, schemaMsg []byte, mem memory.Allocator) ([]arrow.RecordBatch, error) {
	if !bytes.HasPrefix(raw, schemaMsg) {
		return nil, fmt.Errorf("bad arrow ipc stream: it does not start with the expected schema message")
	}
	capped := &cappedAllocator{mem: mem, limit: 4*int64(len(raw)) + 1<<20}
	recs, err := readIPC(raw, capped)
	if err != nil {
		for _, rec := range recs {
			rec.Release()
		}
		capped.freeLeaked()
		return nil, fmt.Errorf("bad arrow ipc stream: %w", err)
	}
	return recs, nil
}

// readIPC reads the records of raw; on error it returns those read so far
// for the caller to release.
func readIPC(raw []byte, mem memory.Allocator) (recs []arrow.RecordBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	// ipc.NewReader ignores the size limits; a MessageReader honours them.
	limit := int64(len(raw)) + 1
	opts := []ipc.Option{ipc.WithAllocator(mem), ipc.WithBodySizeLimit(limit), ipc.WithMetadataSizeLimit(limit)}
	rd, err := ipc.NewReaderFromMessageReader(ipc.NewMessageReader(bytes.NewReader(raw), opts...), opts...)
	if err != nil {
		return nil, err
	}
	defer rd.Release()
	for rd.Next() {
		rec := rd.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	return recs, rd.Err()
}

// cappedAllocator refuses (by panicking, as arrow allocators do) to hand
// out more than limit bytes in all, so that a damaged stream whose sizes
// passed the reader's checks still cannot exhaust memory. It remembers what
// it handed out: arrow's reader leaks buffers on some malformed input, and
// after a failed decode freeLeaked returns them. Records decoded through it
// free through it. Safe for concurrent use.
type cappedAllocator struct {
	mem   memory.Allocator
	limit int64
	mu    sync.Mutex
	total int64
	live  map[*byte][]byte
}

func (c *cappedAllocator) reserve(delta int64) {
	if c.total+delta > c.limit {
		panic(fmt.Sprintf("allocation of %d bytes exceeds the %d-byte budget of the block", delta, c.limit))
	}
	c.total += delta
}

func (c *cappedAllocator) track(b []byte) {
	if cap(b) > 0 {
		if c.live == nil {
			c.live = map[*byte][]byte{}
		}
		c.live[unsafe.SliceData(b)] = b
	}
}

func (c *cappedAllocator) untrack(b []byte) {
	if cap(b) > 0 {
		delete(c.live, unsafe.SliceData(b))
	}
}

func (c *cappedAllocator) Allocate(n int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reserve(int64(n))
	b := c.mem.Allocate(n)
	c.track(b)
	return b
}

func (c *cappedAllocator) Reallocate(n int, b []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reserve(int64(n - len(b)))
	c.untrack(b)
	nb := c.mem.Reallocate(n, b)
	c.track(nb)
	return nb
}

func (c *cappedAllocator) Free(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total -= int64(len(b))
	c.untrack(b)
	c.mem.Free(b)
}

// freeLeaked frees whatever is still allocated; only for after a failed
// decode, when no record made through c survives.
func (c *cappedAllocator) freeLeaked() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.live {
		c.mem.Free(b)
	}
	clear(c.live)
	c.total = 0
}
