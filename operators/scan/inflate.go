package scan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
)

// Parallel decompression of a row group.
//
// pqarrow decodes a column chunk page after page on the goroutine asking
// for a batch, reading and decompressing each page when it reaches it, so
// decompression — for lineitem's l_extendedprice two thirds of Q6's scan —
// runs on one core whatever the parallelism. inflate moves the
// decompression of the largest compressed chunks of the row group (the
// fewest, largest first, holding at least (P-1)/P of the required columns'
// uncompressed bytes, P the goroutines that may run at once) to helper
// goroutines: it walks their page headers (reading only the headers,
// pageheader.go) and has the helpers read and decompress the pages ahead
// of the decoder, in the order the decoder will need them (by first row,
// then column), while the decoder decodes and decompresses the small
// chunks itself. The decoder sees a Parquet file (inflated, an io.ReaderAt)
// whose metadata says the large chunks are uncompressed, each page header
// being the original with compressed_page_size set to the uncompressed
// size; the other chunks are read as stored, at shifted offsets. A page the
// decoder reaches before a helper does is read and decompressed by the
// decoder itself, so no read ever waits for a helper that has not started,
// and one a helper is slow with is taken over (see stealAfter).
//
// Helpers stay at most window pages ahead of the furthest page the decoder
// has asked for, and hold a slot of the scan's semaphore (P-1 slots) while
// they work. A page's buffer returns to a cache once the decoder has read
// all of it.
//
// When the scan's device can decompress (devdecomp.go), every chunk whose
// codec it has is laid out this way too, large or not and with or without
// helpers: its pages are then decompressed by the device, into device
// memory, by whichever goroutine (helper or decoder) takes them first; a
// page the device has no memory for is decompressed on the host instead
// (arrow-go's codecs; for snappy the C decoder, codec.go). Anything
// inflate does not handle (encryption, data page v2 in a large chunk, an
// unknown codec, a header it cannot walk, the PARQUET-816 padding of old
// parquet-mr files) makes it decline, and the row group is
// decoded from the file as before, which also reports what is wrong with a
// bad file.

type pageState uint8

const (
	pagePending pageState = iota // not decompressed
	pageRunning                  // being decompressed (claimed); done is closed after
	pageDone                     // data (or err) is set
	pageFreed                    // read to its end; data went back to the pool
)

// inflPage is one page of the virtual file.
type inflPage struct {
	off, end int64          // virtual span: header, then payload
	hdr      []byte         // the header as the decoder sees it
	at       int64          // the payload's offset in the file
	stored   int            // the payload's size in the file
	size     int            // the payload's size once decompressed
	codec    compress.Codec // nil: the payload is stored uncompressed
	dcodec   device.Codec   // nonzero: the device decompresses it (devdecomp.go)
	direct   bool           // a whole chunk read as stored: hdr is empty, no task
	task     int            // position in decompression order; -1 if direct

	// guarded by inflated.mu
	state  pageState
	data   []byte
	buf    *[]byte      // pooled buffer behind data
	dbuf   *hmem.Buffer // or device buffer behind data
	err    error
	done   chan struct{} // closed when a claim publishes
	claims int           // claims so far; the latest one publishes
}

// inflated is one row group's required column chunks laid out as a
// Parquet file with md its metadata: the large chunks page by page,
// uncompressed, the others whole, as stored. It owns its page buffers (from
// the scratch cache) and its helper goroutines; close stops the helpers and
// returns the buffers.
type inflated struct {
	ctx    context.Context
	dev    *devDecomp // nil: every page is decompressed on the host
	file   io.ReaderAt
	read   *atomic.Int64 // counts the bytes read from file
	md     *metadata.FileMetaData
	size   int64
	pages  []*inflPage // by virtual offset
	order  []*inflPage // decompression order
	slots  chan struct{}
	window int

	mu       sync.Mutex
	cond     *sync.Cond
	next     int // next page of order a helper takes
	frontier int // furthest page of order the decoder has asked for
	stop     bool
	wg       sync.WaitGroup
	unwatch  func() bool
}

// scratch keeps page buffers for reuse across row groups and
// scans, so their memory is neither allocated nor zeroed again (Go zeroes
// every new slice; a sync.Pool would drop them at each collection, which
// decoding into the heap makes frequent). It holds at most
// scratchMaxBytes; buffers beyond that are left to the collector. Buffers
// have power-of-two capacities; free[i] holds those of capacity 1<<i.
var scratch struct {
	mu    sync.Mutex
	free  [48][]*[]byte
	bytes int
}

const scratchMaxBytes = 64 << 20

func getBuf(n int) *[]byte {
	c := bits.Len(uint(max(n, 1) - 1))
	scratch.mu.Lock()
	if l := len(scratch.free[c]); l > 0 {
		b := scratch.free[c][l-1]
		scratch.free[c] = scratch.free[c][:l-1]
		scratch.bytes -= cap(*b)
		scratch.mu.Unlock()
		*b = (*b)[:n]
		return b
	}
	scratch.mu.Unlock()
	b := make([]byte, n, 1<<c)
	return &b
}

func putBuf(b *[]byte) {
	if b == nil || cap(*b) == 0 || cap(*b)&(cap(*b)-1) != 0 {
		return
	}
	scratch.mu.Lock()
	if scratch.bytes+cap(*b) <= scratchMaxBytes {
		c := bits.Len(uint(cap(*b) - 1))
		scratch.free[c] = append(scratch.free[c], b)
		scratch.bytes += cap(*b)
	}
	scratch.mu.Unlock()
}

// inflateEveryChunk makes inflate take every compressed chunk, not only
// the large ones; tests set it to run every type through the parallel
// path.
var inflateEveryChunk = false

// maxPageHeader bounds the bytes a page header may take (arrow-go's own
// limit), so a corrupted one cannot make inflate read without end.
const maxPageHeader = 16 << 20

// inflateRowGroup prepares row group rg of f, read through r (whose reads
// are counted in read), for decoding the given leaves with parallel
// decompression; ok is false when it declines (see above). helpers
// goroutines are started; the caller must close the result.
func inflateRowGroup(ctx context.Context, r io.ReaderAt, read *atomic.Int64, f *scanFile, rg int, leaves []int, helpers int, slots chan struct{}, dev *devDecomp) (_ *inflated, ok bool) {
	base := f.decode
	if base.FileDecryptor != nil || base.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		return nil, false
	}
	v := &inflated{ctx: ctx, file: r, read: read, slots: slots, frontier: -1, dev: dev}
	type ordered struct {
		row int64
		col int
		pg  *inflPage
	}
	var tasks []ordered
	fmd := *base.FileMetaData
	fmd.RowGroups = append(fmd.RowGroups[:0:0], fmd.RowGroups...)
	rgc := *fmd.RowGroups[rg]
	rgc.Columns = append(rgc.Columns[:0:0], rgc.Columns...)
	for i, c := range rgc.Columns { // the page index refers to the stored file
		cc := *c
		cc.OffsetIndexOffset, cc.OffsetIndexLength, cc.ColumnIndexOffset, cc.ColumnIndexLength = nil, nil, nil, nil
		rgc.Columns[i] = &cc
	}
	rgm := base.RowGroup(rg)
	chunks := make([]*metadata.ColumnChunkMetaData, len(leaves))
	for ci, leaf := range leaves {
		cc, err := rgm.ColumnChunk(leaf)
		if err != nil || cc.CryptoMetadata() != nil || rgc.Columns[leaf].MetaData == nil {
			return nil, false
		}
		chunks[ci] = cc
	}
	large := largeChunks(chunks, helpers+1)
	off := int64(4) // after the magic, as in a real file: offset 0 reads as "no dictionary page"
	compressed := false
	for ci, leaf := range leaves {
		cc := chunks[ci]
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
			start = cc.DictionaryPageOffset()
		}
		end := start + cc.TotalCompressedSize()
		if start < 0 || end <= start {
			return nil, false
		}
		var codec compress.Codec
		dcodec := dev.codec(cc.Compression())
		if cc.Compression() != compress.Codecs.Uncompressed && (inflateEveryChunk || large[ci] || dcodec != 0) {
			var err error
			if codec, err = compress.GetCodec(cc.Compression()); err != nil {
				return nil, false
			}
			compressed = true
		}
		if codec == nil { // read as stored, from the file, at a shifted offset
			pg := &inflPage{off: off, end: off + end - start, at: start, stored: int(end - start), direct: true, task: -1}
			v.pages = append(v.pages, pg)
			cmd := *rgc.Columns[leaf].MetaData
			shift := off - start
			cmd.DataPageOffset += shift
			cmd.IndexPageOffset = nil
			if d := cmd.DictionaryPageOffset; d != nil && *d > 0 {
				nd := *d + shift
				cmd.DictionaryPageOffset = &nd
			}
			rgc.Columns[leaf].MetaData = &cmd
			rgc.Columns[leaf].FileOffset = off
			off = pg.end
			continue
		}
		chunkStart, dataStart := off, int64(-1)
		var values, inflatedBytes int64
		for pos := start; pos < end && values < cc.NumValues(); {
			h, hdr, ok := v.readHeader(pos, end)
			if !ok || int64(h.compressed) > end-pos-int64(h.len) {
				return nil, false
			}
			pg := &inflPage{hdr: hdr, at: pos + int64(h.len), stored: int(h.compressed), size: int(h.compressed)}
			switch h.typ {
			case pageTypeDataV2:
				return nil, false
			case pageTypeData, pageTypeDictionary:
				if h.typ == pageTypeData && dataStart < 0 {
					dataStart = off
				} else if h.typ == pageTypeDictionary && (dataStart >= 0 || pos != start) {
					return nil, false // a dictionary page after data pages
				}
				inflatedBytes += int64(h.uncompressed)
				if inflatedBytes > cc.TotalUncompressedSize()+1<<20 {
					return nil, false // sizes the metadata does not vouch for
				}
				pg.hdr, pg.size, pg.codec, pg.dcodec = h.withCompressedSize(hdr, h.uncompressed), int(h.uncompressed), codec, dcodec
			}
			row := values
			if h.typ == pageTypeDictionary {
				row = -1
			}
			tasks = append(tasks, ordered{row, ci, pg})
			values += int64(h.numValues)
			pg.off = off
			pg.end = off + int64(len(pg.hdr)+pg.size)
			off = pg.end
			v.pages = append(v.pages, pg)
			pos += int64(h.len + int(h.compressed))
		}
		if dataStart < 0 {
			return nil, false
		}
		cmd := *rgc.Columns[leaf].MetaData
		cmd.Codec = 0 // UNCOMPRESSED
		cmd.TotalCompressedSize, cmd.DataPageOffset, cmd.IndexPageOffset = off-chunkStart, dataStart, nil
		cmd.DictionaryPageOffset = nil
		if dataStart > chunkStart {
			cmd.DictionaryPageOffset = &chunkStart
		}
		rgc.Columns[leaf].MetaData = &cmd
		rgc.Columns[leaf].FileOffset = chunkStart
	}
	if !compressed {
		return nil, false
	}
	fmd.RowGroups[rg] = &rgc
	md := *base
	md.FileMetaData = &fmd
	v.md, v.size = &md, off

	sort.SliceStable(tasks, func(i, j int) bool {
		if tasks[i].row != tasks[j].row {
			return tasks[i].row < tasks[j].row
		}
		return tasks[i].col < tasks[j].col
	})
	for i, t := range tasks {
		t.pg.task = i
		v.order = append(v.order, t.pg)
	}
	v.window = 2 * (helpers + len(leaves))
	v.cond = sync.NewCond(&v.mu)
	v.unwatch = context.AfterFunc(ctx, v.wake)
	helpers = min(helpers, len(v.order))
	v.wg.Add(helpers)
	for range helpers {
		go v.help()
	}
	return v, true
}

// largeChunks picks the compressed chunks helpers decompress: the largest
// (by uncompressed bytes) until they hold (p-1)/p of all the chunks'
// bytes, so that p goroutines share the work about evenly.
func largeChunks(chunks []*metadata.ColumnChunkMetaData, p int) []bool {
	var total int64
	var order []int
	for i, cc := range chunks {
		total += max(cc.TotalUncompressedSize(), 0)
		if cc.Compression() != compress.Codecs.Uncompressed {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		return chunks[order[a]].TotalUncompressedSize() > chunks[order[b]].TotalUncompressedSize()
	})
	large := make([]bool, len(chunks))
	var sum int64
	for _, i := range order {
		if sum*int64(p) >= total*int64(p-1) {
			break
		}
		large[i] = true
		sum += max(chunks[i].TotalUncompressedSize(), 0)
	}
	return large
}

// readHeader reads the page header at pos (a chunk ending at end): a few
// hundred bytes, more if the header is longer (statistics).
func (v *inflated) readHeader(pos, end int64) (pageHeader, []byte, bool) {
	for n := int64(256); ; n *= 4 {
		n = min(n, end-pos, maxPageHeader)
		buf := make([]byte, n)
		got, _ := v.file.ReadAt(buf, pos)
		h, err := parsePageHeader(buf[:got])
		if err == nil {
			v.read.Add(int64(h.len))
			return h, buf[:h.len:h.len], true
		}
		if int64(got) < n || n == end-pos || n == maxPageHeader {
			return h, nil, false
		}
	}
}

// reader opens the inflated row group for pqarrow.
func (v *inflated) reader() (*file.Reader, error) {
	p := parquet.NewReaderProperties(pageReadAlloc())
	p.BufferedStreamEnabled = true
	p.BufferSize = 16 << 10 // a page header's peek: larger reads bypass the buffer
	return file.NewParquetReader(v, file.WithReadProps(p), file.WithMetadata(v.md))
}

func (v *inflated) wake() {
	v.mu.Lock()
	v.cond.Broadcast()
	v.mu.Unlock()
}

// help decompresses pages in order, staying within the window.
func (v *inflated) help() {
	defer v.wg.Done()
	for {
		v.mu.Lock()
		for !v.stop && v.ctx.Err() == nil && v.next < len(v.order) && v.next > v.frontier+v.window {
			v.cond.Wait()
		}
		if v.stop || v.ctx.Err() != nil || v.next >= len(v.order) {
			v.mu.Unlock()
			return
		}
		pg := v.order[v.next]
		v.next++
		v.mu.Unlock()

		select {
		case v.slots <- struct{}{}:
		case <-v.ctx.Done():
			return
		}
		v.mu.Lock()
		claim := -1
		if pg.state == pagePending && !v.stop {
			claim = v.claim(pg)
		}
		v.mu.Unlock()
		if claim >= 0 {
			v.decompress(pg, claim)
		}
		<-v.slots
	}
}

// claim marks a page as being decompressed (v.mu held) and returns the
// claim, which decompress publishes under; a later claim (a steal)
// supersedes it.
func (v *inflated) claim(pg *inflPage) int {
	if pg.state != pageRunning {
		pg.state, pg.done = pageRunning, make(chan struct{})
	}
	pg.claims++
	return pg.claims
}

// decompress reads and decompresses a page, and publishes the result if
// its claim still stands, waking the waiters.
func (v *inflated) decompress(pg *inflPage, claim int) {
	var (
		buf  *[]byte
		dbuf *hmem.Buffer
		data []byte
		err  error = errNoDeviceBuffer
	)
	if pg.dcodec != 0 {
		data, dbuf, err = v.dev.page(v.ctx, v.file, v.read, pg.at, pg.stored, pg.size, pg.dcodec)
	}
	if errors.Is(err, errNoDeviceBuffer) {
		buf = getBuf(pg.size)
		data, err = v.load(pg, buf)
	}
	var df *deviceFailure
	switch {
	case err != nil && (errors.As(err, &df) || v.ctx.Err() != nil):
		// the device failed or the scan was cancelled: not the page's fault
	case err != nil:
		err = fmt.Errorf("%w: page at byte %d: %v", ErrCorrupt, pg.at, err)
	case len(data) != pg.size:
		err = fmt.Errorf("%w: page at byte %d decompressed to %d bytes, its header says %d", ErrCorrupt, pg.at, len(data), pg.size)
	}
	if err != nil {
		dropBuf(buf, dbuf)
		buf, dbuf, data = nil, nil, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if pg.state != pageRunning || pg.claims != claim {
		dropBuf(buf, dbuf) // superseded
		return
	}
	pg.data, pg.buf, pg.dbuf, pg.err, pg.state = data, buf, dbuf, err, pageDone
	close(pg.done)
}

// dropBuf gives a page's buffer back: to the scratch cache, or to the
// device.
func dropBuf(buf *[]byte, dbuf *hmem.Buffer) {
	putBuf(buf)
	if dbuf != nil {
		dbuf.Free()
	}
}

// load reads a page's payload into buf, decompressing it if it is stored
// compressed.
func (v *inflated) load(pg *inflPage, buf *[]byte) (out []byte, err error) {
	dst := *buf
	if pg.codec != nil {
		src := getBuf(pg.stored)
		defer putBuf(src)
		dst = *src
	}
	n, err := v.file.ReadAt(dst, pg.at)
	v.read.Add(int64(n))
	if n < len(dst) {
		return nil, fmt.Errorf("reading %d bytes: %w", len(dst), cmp.Or(err, io.ErrUnexpectedEOF))
	}
	if pg.codec == nil {
		return dst, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decompressing: %v", r)
		}
	}()
	return compress.Decode(pg.codec, *buf, dst)
}

// stealAfter is how long the decoder waits for a helper to finish the
// page it needs before decompressing the page itself: about the time a
// helper takes for a page, so that a helper the operating system has put
// aside (on a busy machine) does not hold the decoder up.
const stealAfter = 2 * time.Millisecond

// acquire returns a page's payload, decompressing it here if no helper has
// started on it, or if the helper working on it takes too long.
func (v *inflated) acquire(pg *inflPage) ([]byte, error) {
	v.mu.Lock()
	if pg.task > v.frontier {
		v.frontier = pg.task
		v.cond.Broadcast()
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		switch pg.state {
		case pageDone:
			d, err := pg.data, pg.err
			v.mu.Unlock()
			return d, err
		case pagePending, pageFreed:
			claim := v.claim(pg)
			v.mu.Unlock()
			v.decompress(pg, claim)
		case pageRunning:
			done := pg.done
			v.mu.Unlock()
			if timer == nil {
				timer = time.NewTimer(stealAfter)
			}
			select {
			case <-done:
			case <-timer.C:
				v.mu.Lock()
				if pg.state == pageRunning {
					claim := v.claim(pg)
					v.mu.Unlock()
					v.decompress(pg, claim)
				} else {
					v.mu.Unlock()
				}
			case <-v.ctx.Done():
				return nil, v.ctx.Err()
			}
		}
		v.mu.Lock()
	}
}

// free returns a fully read page's buffer to the pool.
func (v *inflated) free(pg *inflPage) {
	v.mu.Lock()
	if pg.state == pageDone && (pg.buf != nil || pg.dbuf != nil) {
		dropBuf(pg.buf, pg.dbuf)
		pg.data, pg.buf, pg.dbuf, pg.state = nil, nil, nil, pageFreed
	}
	v.mu.Unlock()
}

// ReadAt implements io.ReaderAt over the virtual file.
func (v *inflated) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		o := off + int64(n)
		i := sort.Search(len(v.pages), func(i int) bool { return v.pages[i].end > o })
		if i == len(v.pages) || o < v.pages[i].off {
			return n, io.EOF
		}
		pg := v.pages[i]
		rel := int(o - pg.off)
		if pg.direct {
			got, err := v.file.ReadAt(p[n:min(len(p), n+pg.stored-rel)], pg.at+int64(rel))
			v.read.Add(int64(got))
			n += got
			if err != nil && err != io.EOF {
				return n, err
			}
			if got == 0 {
				return n, io.ErrUnexpectedEOF
			}
			continue
		}
		if rel < len(pg.hdr) {
			n += copy(p[n:], pg.hdr[rel:])
			continue
		}
		data, err := v.acquire(pg)
		if err != nil {
			return n, err
		}
		c := copy(p[n:], data[rel-len(pg.hdr):])
		n += c
		if rel-len(pg.hdr)+c == len(data) {
			v.free(pg)
		}
	}
	return n, nil
}

// Seek implements io.Seeker (the Parquet reader asks for the size).
func (v *inflated) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekEnd:
		off += v.size
	default:
		return 0, errors.New("inflated: unsupported seek")
	}
	return off, nil
}

// close stops the helpers and returns every buffer to the pool; the
// virtual file must not be read after.
func (v *inflated) close() {
	if v.cond != nil {
		v.mu.Lock()
		v.stop = true
		v.cond.Broadcast()
		v.mu.Unlock()
		v.unwatch()
		v.wg.Wait()
	}
	v.release()
}

func (v *inflated) release() {
	for _, pg := range v.pages {
		if pg.state == pageDone {
			dropBuf(pg.buf, pg.dbuf)
		}
		pg.data, pg.buf, pg.dbuf = nil, nil, nil
	}
	v.pages, v.order = nil, nil
}
