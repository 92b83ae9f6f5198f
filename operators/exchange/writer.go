package exchange

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/arrowsize"
)

// DefaultMemoryLimit is how many bytes of partitioned records a
// ShuffleWriter buffers before it spills them to a temporary run.
const DefaultMemoryLimit = 64 << 20

// WriterOptions configures a ShuffleWriter.
type WriterOptions struct {
	Dir         string           // directory for the data, index and spill files; must exist
	ShuffleID   int              // names the files like Spark: shuffle_<shuffle>_<map>_0.{data,index}
	MapID       int              // the map task
	Codec       Codec            // block compression; the zero value is LZ4
	MemoryLimit int64            // buffered bytes before spilling; 0 means DefaultMemoryLimit
	Allocator   memory.Allocator // for partitioned records; nil means memory.DefaultAllocator
	// KeepInMemory, when positive, lets Close keep an output of at most
	// that many buffered bytes that never spilled in memory (MapOutput.Memory)
	// instead of writing its files.
	KeepInMemory int64
}

// DataFileName and IndexFileName are the names Spark's sort shuffle gives
// the outputs of map task mapID of shuffle shuffleID.
func DataFileName(shuffleID, mapID int) string {
	return fmt.Sprintf("shuffle_%d_%d_0.data", shuffleID, mapID)
}

// IndexFileName: see DataFileName.
func IndexFileName(shuffleID, mapID int) string {
	return fmt.Sprintf("shuffle_%d_%d_0.index", shuffleID, mapID)
}

// MapOutput describes the committed output of one map task.
type MapOutput struct {
	DataPath  string
	IndexPath string
	// PartitionLengths holds the bytes of each reduce partition in the data
	// file (what Spark reports in its MapStatus), or in memory for a
	// MemoryOutput. Readers use it, when present, to skip the partitions
	// a map output has no rows for without opening its files.
	PartitionLengths []int64
	// Memory, when not nil, is the output itself, kept in memory (no
	// files; DataPath and IndexPath are empty). See MemoryOutput for who
	// releases it.
	Memory *MemoryOutput
}

// ShuffleWriter is the map side of an exchange, shaped like Spark's sort
// shuffle: Write partitions each record and buffers the pieces per reduce
// partition; when the buffer exceeds the memory limit it spills them, in
// partition order, as blocks to a temporary run file; Close writes one data
// file holding, for each partition in turn, its blocks from every run and
// then from memory (so rows keep their input order), and an index of n+1
// offsets. Both files are written under temporary names (mode 0600) and
// renamed into place, the index last, so a reader never sees a partial
// output.
//
// Memory: records passed to Write stay owned by the caller (the writer
// gathers what it keeps into buffers from the allocator); buffered pieces
// are released when spilled, by Close and by Abort. A writer must end with
// Close or Abort; after Write fails, Abort it. Not safe for concurrent use.
type ShuffleWriter struct {
	part     Partitioner
	opts     WriterOptions
	mem      memory.Allocator
	n        int
	schema   *arrow.Schema
	buffered [][]arrow.RecordBatch
	bufBytes int64
	spills   []*spillRun
	comp     compressor
	ipcBuf   bytes.Buffer
	ids      []int32
	stats    Stats
	done     bool
}

// spillRun is one temporary file of blocks, partition by partition.
type spillRun struct {
	f    *os.File
	segs [][2]int64 // per partition: offset, length
}

// NewShuffleWriter returns a writer partitioning with part.
func NewShuffleWriter(part Partitioner, opts WriterOptions) (*ShuffleWriter, error) {
	if err := checkN(part.NumPartitions()); err != nil {
		return nil, err
	}
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	if opts.Codec > NoCompression {
		return nil, fmt.Errorf("%w: codec %s", ErrNotSupported, opts.Codec)
	}
	if st, err := os.Stat(opts.Dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("exchange: shuffle directory %q is not a directory (%v)", opts.Dir, err)
	}
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	n := part.NumPartitions()
	return &ShuffleWriter{part: part, opts: opts, mem: mem, n: n,
		buffered: make([][]arrow.RecordBatch, n), comp: compressor{codec: opts.Codec}}, nil
}

// Write partitions rec and buffers its rows; rec is not retained.
func (w *ShuffleWriter) Write(rec arrow.RecordBatch) error {
	if w.done {
		return errors.New("exchange: write to a closed shuffle writer")
	}
	t0 := time.Now()
	defer func() { w.stats.Duration += time.Since(t0) }()
	if w.schema == nil {
		w.schema = rec.Schema()
	} else if !w.schema.Equal(rec.Schema()) {
		return fmt.Errorf("exchange: record schema %s differs from the first record's %s", rec.Schema(), w.schema)
	}
	if rec.NumRows() == 0 {
		return nil
	}
	if cap(w.ids) < int(rec.NumRows()) {
		w.ids = make([]int32, rec.NumRows())
	}
	ids := w.ids[:rec.NumRows()]
	if err := w.part.PartitionIDs(rec, ids); err != nil {
		return err
	}
	var parts []arrow.RecordBatch
	if err := catchPanic(func() (err error) { parts, err = Partition(rec, ids, w.n, w.mem); return }); err != nil {
		return err
	}
	counted := false
	for p, r := range parts {
		if r == nil {
			continue
		}
		if !counted { // the pieces share one set of buffers
			w.bufBytes += arrowsize.Record(r)
			counted = true
		}
		w.buffered[p] = append(w.buffered[p], r)
	}
	w.stats.Records++
	w.stats.Rows += rec.NumRows()
	if w.bufBytes > w.opts.MemoryLimit {
		return w.spill()
	}
	return nil
}

// catchPanic turns a panic inside fn (an allocator refusing memory, as
// arrow allocators do) into an error.
func catchPanic(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("exchange: %w", e)
				return
			}
			err = fmt.Errorf("exchange: %v", r)
		}
	}()
	return fn()
}

// spill writes every buffered partition as a block into a new run file.
func (w *ShuffleWriter) spill() error {
	f, err := os.CreateTemp(w.opts.Dir, fmt.Sprintf(".shuffle_%d_%d.spill*", w.opts.ShuffleID, w.opts.MapID))
	if err != nil {
		return fmt.Errorf("exchange: create spill file: %w", err)
	}
	run := &spillRun{f: f, segs: make([][2]int64, w.n)}
	w.spills = append(w.spills, run)
	cw := &countingWriter{w: bufio.NewWriterSize(f, 1<<20)}
	for p := 0; p < w.n; p++ {
		start := cw.n
		if err := w.flushPartition(cw, p); err != nil {
			return err
		}
		run.segs[p] = [2]int64{start, cw.n - start}
	}
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		return fmt.Errorf("exchange: write spill file %s: %w", f.Name(), err)
	}
	w.bufBytes = 0
	w.stats.Spills++
	return nil
}

// flushPartition writes partition p's buffered records as one block and
// releases them.
func (w *ShuffleWriter) flushPartition(out io.Writer, p int) error {
	recs := w.buffered[p]
	if len(recs) == 0 {
		return nil
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
		w.buffered[p] = nil
	}()
	// The pieces go into the stream as they are (one IPC record batch
	// each): concatenating them first would cost a copy of every byte.
	w.ipcBuf.Reset()
	if err := catchPanic(func() error { return encodeIPC(&w.ipcBuf, w.schema, recs, w.mem) }); err != nil {
		return err
	}
	raw := w.ipcBuf.Bytes()
	if len(raw) > maxBlockSize {
		return fmt.Errorf("exchange: partition %d block of %d bytes exceeds %d; lower the memory limit", p, len(raw), maxBlockSize)
	}
	payload, id, err := w.comp.compress(raw)
	if err != nil {
		return err
	}
	var hdr [blockHeaderSize]byte
	putBlockHeader(hdr[:], id, p, len(raw), payload)
	if _, err := out.Write(hdr[:]); err != nil {
		return fmt.Errorf("exchange: write block: %w", err)
	}
	if _, err := out.Write(payload); err != nil {
		return fmt.Errorf("exchange: write block: %w", err)
	}
	w.stats.Blocks++
	w.stats.IPCBytes += int64(len(raw))
	w.stats.CompressedBytes += int64(len(payload))
	return nil
}

// Close writes and commits the data and index files and returns where they
// are. On error nothing is committed and all temporary files are removed.
func (w *ShuffleWriter) Close() (MapOutput, error) {
	if w.done {
		return MapOutput{}, errors.New("exchange: shuffle writer already closed")
	}
	t0 := time.Now()
	out, err := w.commit()
	w.stats.Duration += time.Since(t0)
	w.Abort() // releases buffers and removes runs; committed files stay
	return out, err
}

func (w *ShuffleWriter) commit() (MapOutput, error) {
	if w.opts.KeepInMemory > 0 && len(w.spills) == 0 && w.bufBytes <= w.opts.KeepInMemory {
		return w.keep(), nil
	}
	dataPath := filepath.Join(w.opts.Dir, DataFileName(w.opts.ShuffleID, w.opts.MapID))
	indexPath := filepath.Join(w.opts.Dir, IndexFileName(w.opts.ShuffleID, w.opts.MapID))
	df, err := os.CreateTemp(w.opts.Dir, "."+filepath.Base(dataPath)+".*.tmp")
	if err != nil {
		return MapOutput{}, fmt.Errorf("exchange: create shuffle data file: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			df.Close()
			os.Remove(df.Name())
		}
	}()
	bw := bufio.NewWriterSize(df, 1<<20)
	cw := &countingWriter{w: bw}
	offsets := make([]int64, w.n+1)
	lengths := make([]int64, w.n)
	for p := 0; p < w.n; p++ {
		for _, run := range w.spills {
			seg := run.segs[p]
			if seg[1] == 0 {
				continue
			}
			if _, err := io.Copy(cw, io.NewSectionReader(run.f, seg[0], seg[1])); err != nil {
				return MapOutput{}, fmt.Errorf("exchange: copy spill run %s: %w", run.f.Name(), err)
			}
		}
		if err := w.flushPartition(cw, p); err != nil {
			return MapOutput{}, err
		}
		offsets[p+1] = cw.n
		lengths[p] = cw.n - offsets[p]
	}
	if err := bw.Flush(); err != nil {
		return MapOutput{}, fmt.Errorf("exchange: write shuffle data file: %w", err)
	}
	if err := df.Close(); err != nil {
		return MapOutput{}, fmt.Errorf("exchange: close shuffle data file: %w", err)
	}
	idx := encodeIndex(offsets)
	itmp, err := writeTemp(w.opts.Dir, "."+filepath.Base(indexPath)+".*.tmp", idx)
	if err != nil {
		return MapOutput{}, err
	}
	if err := os.Rename(df.Name(), dataPath); err != nil {
		os.Remove(itmp)
		return MapOutput{}, fmt.Errorf("exchange: commit shuffle data file: %w", err)
	}
	committed = true
	if err := os.Rename(itmp, indexPath); err != nil {
		os.Remove(itmp)
		os.Remove(dataPath)
		return MapOutput{}, fmt.Errorf("exchange: commit shuffle index file: %w", err)
	}
	w.stats.FileBytes += cw.n + int64(len(idx))
	return MapOutput{DataPath: dataPath, IndexPath: indexPath, PartitionLengths: lengths}, nil
}

// keep hands the buffered records over to a MemoryOutput (partition
// lengths are the bytes of their rows: see sliceBytes).
func (w *ShuffleWriter) keep() MapOutput {
	m := &MemoryOutput{parts: w.buffered, bytes: w.bufBytes}
	lengths := make([]int64, w.n)
	for p, recs := range w.buffered {
		for _, r := range recs {
			for _, c := range r.Columns() {
				lengths[p] += sliceBytes(c)
			}
		}
	}
	w.buffered = make([][]arrow.RecordBatch, w.n)
	w.bufBytes = 0
	return MapOutput{PartitionLengths: lengths, Memory: m}
}

func writeTemp(dir, pattern string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("exchange: create shuffle index file: %w", err)
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("exchange: write shuffle index file: %w", errors.Join(werr, cerr))
	}
	return f.Name(), nil
}

// Abort releases buffered records and removes spill runs without committing
// anything. It is idempotent and is called by Close.
func (w *ShuffleWriter) Abort() {
	w.done = true
	for p, recs := range w.buffered {
		for _, r := range recs {
			r.Release()
		}
		w.buffered[p] = nil
	}
	w.bufBytes = 0
	for _, run := range w.spills {
		run.f.Close()
		os.Remove(run.f.Name())
	}
	w.spills = nil
}

// Stats returns what the writer has done so far.
func (w *ShuffleWriter) Stats() Stats { return w.stats }

// Buffered is the bytes of partitioned records held in memory (not
// spilled), and whether the writer spilled at all.
func (w *ShuffleWriter) Buffered() (bytes int64, spilled bool) { return w.bufBytes, len(w.spills) > 0 }

// SetKeepInMemory changes WriterOptions.KeepInMemory before Close (a
// caller sharing a memory budget between map tasks decides at the end).
func (w *ShuffleWriter) SetKeepInMemory(limit int64) { w.opts.KeepInMemory = limit }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
