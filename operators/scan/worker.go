package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// countingFile counts the bytes read from a file.
type countingFile struct {
	f *os.File
	n *atomic.Int64
}

func (c countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func (c countingFile) Seek(off int64, whence int) (int64, error) { return c.f.Seek(off, whence) }

// readFooter parses a file's footer; n is the bytes read.
func readFooter(path string) (_ *metadata.FileMetaData, n int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var cnt atomic.Int64
	pr, err := file.NewParquetReader(countingFile{f, &cnt}, file.WithReadProps(readProps()))
	if err != nil {
		return nil, cnt.Load(), fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	md := pr.MetaData()
	dropArrowSchema(md)
	return md, cnt.Load(), nil
}

// dropArrowSchema removes the Arrow schema some writers store in the footer
// (key ARROW:schema): the scan types columns from the Parquet schema alone,
// as Spark does, and arrow-go's decoding of a corrupted stored schema can
// spin instead of failing.
func dropArrowSchema(md *metadata.FileMetaData) {
	kv := md.FileMetaData.KeyValueMetadata
	out := kv[:0:0]
	for _, e := range kv {
		if e != nil && e.Key != "ARROW:schema" {
			out = append(out, e)
		}
	}
	md.FileMetaData.KeyValueMetadata = out
}

// readProps: pages are read and decompressed into Go-heap scratch, recycled
// (pagealloc.go); only the decoded Arrow buffers come from the scan's
// allocator.
func readProps() *parquet.ReaderProperties {
	p := parquet.NewReaderProperties(pageReadAlloc())
	p.BufferedStreamEnabled = true
	return p
}

// work claims splits in order until none is left or the scan is cancelled.
func (s *Scanner) work() {
	defer s.wg.Done()
	defer s.busy.Add(-1)
	for {
		i := int(s.next.Add(1) - 1)
		if i >= len(s.splits) || s.ctx.Err() != nil {
			return
		}
		s.runSplit(s.splits[i])
	}
}

// runSplit decodes one split into its channel and closes it.
func (s *Scanner) runSplit(sp *split) {
	defer close(sp.ch)
	rg := -1
	err := guard(func() error {
		f, err := os.Open(sp.file.path)
		if err != nil {
			return err
		}
		defer f.Close()
		src := countingFile{f, &s.cnt.bytesRead}
		pr, err := file.NewParquetReader(src,
			file.WithReadProps(readProps()), file.WithMetadata(sp.file.decode))
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		fr, err := pqarrow.NewFileReader(pr, s.arrowProps(sp.file), s.decAlloc)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		for _, rg = range sp.rgs {
			if s.ctx.Err() != nil {
				return nil
			}
			keep, rows, err := s.pruneRowGroup(sp.file, pr, rg)
			if err != nil {
				return err
			}
			if !keep {
				continue
			}
			if err := s.decodeRowGroup(sp, src, fr, rg, rows); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		s.send(sp, item{err: fileErr(sp.file.path, rg, err)})
	}
}

// send hands an item to the consumer, once the prefetch budget has room
// for its record (prefetch.go); false when the scan was cancelled (the
// item's record is then released).
func (s *Scanner) send(sp *split, it item) bool {
	t0 := time.Now()
	defer func() { s.cnt.waitNanos.Add(int64(time.Since(t0))) }()
	if it.rec != nil {
		it.bytes = recordBytes(it.rec)
		if !s.reserve(sp, it.bytes) {
			it.rec.Release()
			return false
		}
	}
	select {
	case sp.ch <- it:
		return true
	case <-s.ctx.Done():
		if it.rec != nil {
			it.rec.Release()
			s.unreserve(it.bytes)
		}
		return false
	}
}

// pruneRowGroup decides whether a row group may hold matching rows, and
// which row ranges of it (nil: all rows).
func (s *Scanner) pruneRowGroup(f *scanFile, pr *file.Reader, rg int) (bool, ranges, error) {
	if s.pred.kind == pTrue {
		return true, nil, nil
	}
	if s.pred.kind == pFalse {
		s.cnt.rgStats.Add(1)
		return false, nil, nil
	}
	rgm := f.md.RowGroup(rg)
	n := rgm.NumRows()
	chunk := func(col string) (*fileCol, *metadata.ColumnChunkMetaData) {
		fc := f.schema.lookup(col)
		if fc == nil || fc.leaf < 0 {
			return nil, nil
		}
		cc, err := rgm.ColumnChunk(fc.leaf)
		if err != nil {
			return nil, nil
		}
		return fc, cc
	}
	byCol := func(build func(fc *fileCol, cc *metadata.ColumnChunkMetaData) *summary) func(string) *summary {
		cache := map[string]*summary{}
		return func(col string) *summary {
			if v, ok := cache[col]; ok {
				return v
			}
			var sum *summary
			if fc, cc := chunk(col); fc != nil {
				sum = build(fc, cc)
			} else if f.schema.lookup(col) == nil {
				sum = &summary{rows: n, nulls: n, nullsKnown: true} // a missing column reads as nulls
			}
			cache[col] = sum
			return sum
		}
	}

	if !s.opt.DisableStats && !s.pred.may(byCol(func(fc *fileCol, cc *metadata.ColumnChunkMetaData) *summary {
		return statsSummary(cc, fc)
	})) {
		s.cnt.rgStats.Add(1)
		return false, nil, nil
	}

	var rows ranges
	if !s.opt.DisablePageIndex {
		var ok bool
		if rows, ok = s.pageRanges(f, pr, rg, n); !ok {
			s.cnt.rgPage.Add(1)
			return false, nil, nil
		}
	}

	if !s.opt.DisableDictionary {
		rgr := pr.RowGroup(rg)
		if !s.pred.may(byCol(func(fc *fileCol, cc *metadata.ColumnChunkMetaData) *summary {
			return dictSummary(rgr, cc, fc)
		})) {
			s.cnt.rgDict.Add(1)
			return false, nil, nil
		}
	}

	if !s.opt.DisableBloom {
		if bfr, err := pr.GetBloomFilterReader().RowGroup(rg); err == nil && bfr != nil {
			if !s.pred.may(byCol(func(fc *fileCol, _ *metadata.ColumnChunkMetaData) *summary {
				return bloomSummary(bfr, fc)
			})) {
				s.cnt.rgBloom.Add(1)
				return false, nil, nil
			}
		}
	}
	if rows != nil {
		s.cnt.rowsPrunedPage.Add(n - rows.rows())
	}
	return true, rows, nil
}

// pageRanges evaluates the filters on the row group's page index. It
// returns the row ranges that may match (nil: all rows) and false when none
// may. Pages of the required data columns are counted, and those lying
// wholly outside the ranges counted as pruned.
func (s *Scanner) pageRanges(f *scanFile, pr *file.Reader, rg int, n int64) (ranges, bool) {
	rgpi, err := pr.GetPageIndexReader().RowGroup(rg)
	if err != nil || rgpi == nil {
		return nil, true
	}
	cache := map[string]*pageSummaries{}
	pages := func(col string) *pageSummaries {
		if v, ok := cache[col]; ok {
			return v
		}
		fc := f.schema.lookup(col)
		if fc == nil || fc.leaf < 0 {
			return nil
		}
		v := pageIndex(rgpi, fc, n)
		cache[col] = v
		return v
	}
	rows := s.pred.rowsMay(n, pages)
	for _, c := range s.out {
		if c.Partition {
			continue
		}
		ps := pages(c.Name)
		if ps == nil {
			continue
		}
		s.cnt.pages.Add(int64(len(ps.spans)))
		for _, sp := range ps.spans {
			if !rows.overlaps(sp.start, sp.end) {
				s.cnt.pagesPruned.Add(1)
			}
		}
	}
	if rows.rows() == 0 {
		return nil, false
	}
	if rows.rows() == n {
		return nil, true
	}
	return rows, true
}

// decodeRowGroup decodes the rows of a row group in rows (nil: all) and
// sends them as records. src is the file fr reads.
func (s *Scanner) decodeRowGroup(sp *split, src countingFile, fr *pqarrow.FileReader, rg int, rows ranges) error {
	n := sp.file.md.RowGroup(rg).NumRows()
	all := rows == nil
	if all {
		rows = fullRange(n)
	}
	var leaves []int
	for _, c := range s.out {
		if fc := sp.file.schema.lookup(c.Name); !c.Partition && fc != nil {
			leaves = append(leaves, fc.leaf)
		}
	}
	if len(leaves) == 0 { // only partition and missing columns (or none): rows come from the metadata
		for _, r := range rows {
			for off := r.start; off < r.end; off += int64(s.opt.BatchRows) {
				if err := s.emit(sp, nil, int(min(int64(s.opt.BatchRows), r.end-off))); err != nil {
					return err
				}
			}
		}
		return nil
	}
	helpers := 0
	if s.slots != nil && (!helpersWhenIdle || s.busy.Load() < int64(s.cores)) {
		helpers = cap(s.slots) // a core has no worker: lend it to this row group
	}
	if (helpers > 0 || s.dev != nil) && all {
		// All rows are read: decompress the pages in parallel (inflate.go).
		// With row ranges the decoder seeks, which needs the stored file's
		// page index.
		if v, ok := inflateRowGroup(s.ctx, src.f, src.n, sp.file, rg, leaves, helpers, s.slots, s.dev); ok {
			s.cnt.inflated.Add(1)
			defer v.close()
			ifr, err := s.inflatedReader(v, sp.file)
			if err != nil {
				return err
			}
			fr = ifr
		}
	}
	// Flat dictionary-encoded string and fixed-width columns, and flat
	// string columns with PLAIN pages, of a row group read whole are
	// decoded by the scan itself (dictpage.go, dictfixed.go, plainstr.go),
	// the rest by pqarrow.
	var own []*dictColumn
	if all && (ownDictPages || ownFixedDicts || ownPlainStr) {
		dl := sp.file.dictLeaves
		rest := make([]int, 0, len(leaves))
		seen := map[int]bool{}
		for _, c := range s.out {
			fc := sp.file.schema.lookup(c.Name)
			if c.Partition || fc == nil || seen[fc.leaf] {
				continue
			}
			var (
				dc  *dictColumn
				err error
			)
			switch {
			case ownDictPages && slices.Contains(dl, fc.leaf) && ownDictLeaf(sp.file, rg, fc.leaf):
				dc, err = newDictColumn(fr.ParquetReader(), rg, fc.leaf, fc.name, fc.read)
				if err == nil {
					dc.dictOut = c.dict != nil // dictout.go
				}
			case ownFixedDicts && ownFixedLeaf(sp.file, rg, fc, c.arrow):
				dc, err = newFixedDictColumn(fr.ParquetReader(), rg, fc, c.arrow)
			case ownPlainStr && !slices.Contains(dl, fc.leaf) && ownPlainLeaf(sp.file, rg, fc, c.arrow):
				dc, err = newPlainStrColumn(fr.ParquetReader(), sp.file, rg, fc, c.arrow)
			default:
				continue
			}
			if err != nil {
				return err
			}
			seen[fc.leaf] = true
			defer dc.close()
			own = append(own, dc)
		}
		for _, leaf := range leaves {
			if !seen[leaf] {
				rest = append(rest, leaf)
			}
		}
		leaves = rest
	}
	if len(leaves) == 0 { // every column is the scan's own
		for off := int64(0); off < n; off += int64(s.opt.BatchRows) {
			m := min(int64(s.opt.BatchRows), n-off)
			rec, err := s.withOwn(nil, own, m)
			if err != nil {
				return err
			}
			err = s.emit(sp, rec, 0, 0, m)
			rec.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	rr, err := fr.GetRecordReader(s.ctx, leaves, []int{rg})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer rr.Release()
	var pos int64
	for i := 0; i < len(rows); {
		if rows[i].start > pos {
			if err := rr.SeekToRow(rows[i].start); err != nil {
				return fmt.Errorf("%w: seeking to row %d: %v", ErrCorrupt, rows[i].start, err)
			}
			pos = rows[i].start
		}
		if !rr.Next() {
			if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
				return decodeErr(err)
			}
			return fmt.Errorf("%w: row group ends at row %d of %d", ErrCorrupt, pos, n)
		}
		rec := rr.RecordBatch()
		if rec.NumRows() <= 0 {
			return fmt.Errorf("%w: empty batch at row %d of %d", ErrCorrupt, pos, n)
		}
		var mine arrow.RecordBatch
		if len(own) > 0 { // only when all rows are read: one range, no seeks
			if mine, err = s.withOwn(rec, own, rec.NumRows()); err != nil {
				return err
			}
			rec = mine
		}
		end := pos + rec.NumRows()
		for j := i; j < len(rows) && rows[j].start < end; j++ {
			lo, hi := max(rows[j].start, pos), min(rows[j].end, end)
			if lo >= hi {
				continue
			}
			if err := s.emit(sp, rec, 0, lo-pos, hi-pos); err != nil {
				if mine != nil {
					mine.Release()
				}
				return err
			}
		}
		if mine != nil {
			mine.Release()
		}
		pos = end
		for i < len(rows) && rows[i].end <= pos {
			i++
		}
	}
	return nil
}

// withOwn returns a record of rec's columns (rec may be nil) and the next m
// rows of each of own's, which the caller releases (rec is not consumed).
func (s *Scanner) withOwn(rec arrow.RecordBatch, own []*dictColumn, m int64) (arrow.RecordBatch, error) {
	var (
		fields []arrow.Field
		cols   []arrow.Array
	)
	if rec != nil {
		fields, cols = append(fields, rec.Schema().Fields()...), append(cols, rec.Columns()...)
	}
	var mine []arrow.Array
	defer func() {
		for _, a := range mine {
			a.Release()
		}
	}()
	for _, dc := range own {
		a, err := dc.next(s.decAlloc, int(m))
		if err != nil {
			return nil, err
		}
		mine = append(mine, a)
		f := arrow.Field{Name: dc.name, Type: a.DataType(), Nullable: true}
		if dc.dictOut {
			f.Metadata = cleanDictMeta // emit hands it on as it is (dictout.go)
		}
		fields = append(fields, f)
		cols = append(cols, a)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, m), nil
}

// inflatedReader opens pqarrow over an inflated row group.
func (s *Scanner) inflatedReader(v *inflated, f *scanFile) (*pqarrow.FileReader, error) {
	pr, err := v.reader()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	fr, err := pqarrow.NewFileReader(pr, s.arrowProps(f), s.decAlloc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return fr, nil
}

// arrowProps are the decoding properties of every pqarrow reader. Not
// pqarrow's Parallel mode: it decodes columns on goroutines of its own,
// where an allocation failure (a panic, see memory.Catch) cannot be
// recovered. The string columns of f that are wholly dictionary encoded
// are read as dictionaries and expanded by emit (dictread.go).
func (s *Scanner) arrowProps(f *scanFile) pqarrow.ArrowReadProperties {
	p := pqarrow.ArrowReadProperties{BatchSize: int64(s.opt.BatchRows)}
	for _, leaf := range f.dictLeaves {
		p.SetReadDict(leaf, true)
	}
	return p
}

// helpersWhenIdle: decompression helpers run only for row groups begun
// while fewer workers decode than goroutines can run at once (the last
// splits, or workers waiting for prefetch room); otherwise the workers
// already fill the cores and helpers only add the cost of their copies.
// A variable for A/B measurements (false: whenever the scan can run
// goroutines side by side, as before).
var helpersWhenIdle = true

func decodeErr(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// emit builds an output record from rows [lo, hi) of a decoded record (or
// n rows of partition columns only when rec is nil) and sends it.
func (s *Scanner) emit(sp *split, rec arrow.RecordBatch, n int, bounds ...int64) error {
	if rec != nil {
		n = int(bounds[1] - bounds[0])
	}
	cols := make([]arrow.Array, 0, len(s.out))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	var names map[string]int
	if rec != nil {
		names = make(map[string]int, rec.NumCols())
		for i, f := range rec.Schema().Fields() {
			names[f.Name] = i
		}
	}
	for _, c := range s.out {
		if c.Partition {
			cols = append(cols, constArray(s.opt.Alloc, c.arrow, sp.file.part[c.Name], n))
			continue
		}
		fc := sp.file.schema.lookup(c.Name)
		if fc == nil { // not in this file: nulls
			cols = append(cols, constArray(s.opt.Alloc, c.arrow, partValue{isNull: true}, n))
			continue
		}
		src := rec.Column(names[fc.name])
		sl := array.NewSlice(src, bounds[0], bounds[1])
		to := c.arrow
		if c.dict != nil {
			to = c.dict // handed on as a dictionary (dictout.go)
		}
		if d, ok := sl.(*array.Dictionary); ok && !isCleanDict(rec.Schema().Field(names[fc.name])) { // dictread.go; not made by nextDict
			var dense arrow.Array
			var err error
			if c.dict != nil {
				dense, err = dictIndices(s.decAlloc, d, c.dict)
			} else {
				dense, err = expandDict(s.decAlloc, d)
			}
			sl.Release()
			if err != nil {
				return err
			}
			sl = dense
		}
		out, err := convert(s.opt.Alloc, sl, to, fc.toMicros)
		sl.Release()
		if err != nil {
			return err
		}
		cols = append(cols, out)
	}
	out := array.NewRecordBatch(s.schema, cols, int64(n))
	s.cnt.rows.Add(int64(n))
	if !s.send(sp, item{rec: out}) {
		return context.Canceled
	}
	return nil
}
