package scan

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/hados-io/hados/operators/types"
)

// Scanner reads the rows of a scan as Arrow records, in file order then row
// group order, whatever the parallelism.
//
// Records returned by Next are owned by the caller, who must Release each;
// their buffers come from Options.Alloc. Records decoded ahead and not yet
// returned are released by Close. A Scanner is used by one goroutine (Stats
// may be called from any).
type Scanner struct {
	opt Options
	// autoSplit: Options.SplitBytes was not set, so planSplits sizes the
	// splits from the data and the parallelism
	autoSplit bool
	schema    *arrow.Schema
	out       []outCol
	pred      *pred // pushed filters, compiled
	files     []*scanFile
	splits    []*split
	static    Stats
	cnt       counters
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	next      atomic.Int64 // next split a worker claims
	cur       int          // split the consumer reads
	err       error
	closed    bool
	closeMu   sync.Once
	// slots bounds the goroutines decompressing pages ahead of the
	// decoders (inflate.go) to Parallelism-1 (and GOMAXPROCS-1); nil when
	// they could not run beside the decoders.
	slots chan struct{}
	// decAlloc is what pqarrow decodes with: Options.Alloc, skipping the
	// clearing of fresh buffers where it can (decodealloc.go).
	decAlloc memory.Allocator
	// dev decompresses pages on Options.Alloc's device, nil when it
	// cannot (devdecomp.go).
	dev *devDecomp
	// pf bounds the bytes of records decoded ahead (prefetch.go);
	// reading is the split Next reads (cur, readable by the workers).
	pf      prefetch
	reading atomic.Int64
	// busy counts the workers decoding (not finished, not waiting for
	// prefetch room); cores is how many goroutines can run at once
	// (Parallelism and GOMAXPROCS). Helpers decompress pages ahead only
	// while busy < cores (worker.go).
	busy  atomic.Int64
	cores int
}

// outCol is one output column.
type outCol struct {
	Column
	arrow arrow.DataType
	// dict is the column's output type when it comes out as a
	// dictionary (Options.DictColumns, dictout.go; arrow is then its
	// value type), nil when dense
	dict *arrow.DictionaryType
}

// scanFile is one file that survived partition pruning.
type scanFile struct {
	path   string
	md     *metadata.FileMetaData
	decode *metadata.FileMetaData // what pqarrow decodes with (see decodeMetadata)
	schema *fileSchema
	part   map[string]partValue
	// dictLeaves are the leaves read as dictionaries (dictReadLeaves),
	// found once with the footer
	dictLeaves []int
}

// split is a run of consecutive row groups of one file, decoded by one
// worker, which sends its records (or an error) on ch and then closes it.
type split struct {
	idx  int // in Scanner.splits
	file *scanFile
	rgs  []int
	ch   chan item
}

type item struct {
	rec   arrow.RecordBatch
	bytes int64 // counted against the prefetch budget
	err   error
}

// Open validates the options, lists the files, prunes partitions, reads
// every surviving file's footer (checking the files agree on the schema) and
// starts the workers. Cancelling ctx stops them; Next then returns the
// context's error.
func Open(ctx context.Context, opt Options) (*Scanner, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Scanner{opt: o, autoSplit: opt.SplitBytes <= 0}
	fields := make([]arrow.Field, len(o.Columns))
	for i, c := range o.Columns {
		at, _ := types.ToArrow(c.Type)
		s.out = append(s.out, outCol{Column: c, arrow: at})
		fields[i] = arrow.Field{Name: c.Name, Type: at, Nullable: c.Nullable}
	}
	s.schema = arrow.NewSchema(fields, nil)

	paths := o.Files
	if o.Dir != "" {
		if paths, err = listDir(o.Dir); err != nil {
			return nil, err
		}
	}
	if err := s.prunePartitions(paths); err != nil {
		return nil, err
	}
	if err := s.readFooters(); err != nil {
		return nil, err
	}
	if err := s.compileFilters(); err != nil {
		return nil, err
	}
	s.planDictOutput()
	s.planSplits()

	s.decAlloc = decodeAllocator(o.Alloc)
	s.dev = newDevDecomp(o.Alloc)
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.cores = min(o.Parallelism, runtime.GOMAXPROCS(0))
	if s.cores > 1 {
		s.slots = make(chan struct{}, s.cores-1)
	}
	s.startPrefetch(s.ctx)
	workers := min(o.Parallelism, len(s.splits))
	s.busy.Store(int64(workers))
	s.wg.Add(workers)
	for range workers {
		go s.work()
	}
	return s, nil
}

// Schema is the schema of the records Next returns.
func (s *Scanner) Schema() *arrow.Schema { return s.schema }

func (s *Scanner) partitionType(name string) (types.DataType, error) {
	for _, c := range s.opt.Columns {
		if c.Partition && c.Name == name {
			return c.Type, nil
		}
	}
	return types.Unknown, fmt.Errorf("%s is not a partition column", name)
}

// prunePartitions types every file's partition values and drops the files
// whose partition fails the partition filters.
func (s *Scanner) prunePartitions(paths []string) error {
	pp, err := compileAll(s.opt.PartitionFilters, s.partitionType)
	if err != nil {
		return fmt.Errorf("%w: partition %w", ErrOptions, err)
	}
	seen, pruned := map[string]bool{}, map[string]bool{}
	for _, p := range paths {
		raw, key, err := partitionDirs(s.opt.Dir, p)
		if err != nil {
			return fileErr(p, -1, err)
		}
		vals := map[string]partValue{}
		for _, c := range s.opt.Columns {
			if !c.Partition {
				continue
			}
			r, ok := raw[c.Name]
			if !ok {
				return fileErr(p, -1, fmt.Errorf("%w: no %s=value directory for partition column %s", ErrSchemaMismatch, c.Name, c.Name))
			}
			v, err := parsePartition(c.Type, r)
			if err != nil {
				return fileErr(p, -1, fmt.Errorf("%w: column %s: %w", ErrSchemaMismatch, c.Name, err))
			}
			vals[c.Name] = v
		}
		seen[key] = true
		keep := pp.eval(func(col string) (datum, bool) { v := vals[col]; return v.v, v.isNull })
		if !keep {
			pruned[key] = true
			s.static.FilesPruned++
			continue
		}
		s.files = append(s.files, &scanFile{path: p, part: vals})
	}
	s.static.Partitions, s.static.PartitionsPruned = len(seen), len(pruned)
	s.static.Files = len(s.files)
	return nil
}

// readFooters reads each file's footer and checks its required columns.
func (s *Scanner) readFooters() error {
	for _, f := range s.files {
		err := guard(func() error {
			md, n, err := readFooter(f.path)
			s.cnt.bytesRead.Add(n)
			if err != nil {
				return err
			}
			f.md, f.decode = md, decodeMetadata(md)
			f.schema, err = readSchema(f.path, md)
			return err
		})
		if err != nil {
			return fileErr(f.path, -1, err)
		}
		for _, c := range s.out {
			if c.Partition {
				continue
			}
			if err := checkColumn(f, c.Name, c.Type); err != nil {
				return err
			}
		}
		f.dictLeaves = s.dictReadLeaves(f)
	}
	return nil
}

// checkColumn checks that a file's column name, if it has one, is of type
// want. A file without the column reads it as nulls, as Spark does when a
// table's files have different (merged) schemas.
func checkColumn(f *scanFile, name string, want types.DataType) error {
	fc := f.schema.lookup(name)
	switch {
	case fc == nil:
		return nil
	case fc.err != nil:
		return fc.err
	case fc.spark != want:
		return fileErr(f.path, -1, fmt.Errorf("%w: column %s is %s in the file, the scan requires %s",
			ErrSchemaMismatch, name, fc.spark, want))
	}
	return nil
}

// compileFilters compiles the pushed filters against the required columns'
// types, or the first file's for filter-only columns, and checks every file
// agrees.
func (s *Scanner) compileFilters() error {
	resolve := func(name string) (types.DataType, error) {
		for _, c := range s.opt.Columns {
			if c.Name == name {
				if c.Partition {
					return types.Unknown, fmt.Errorf("%s is a partition column: test it in PartitionFilters", name)
				}
				return c.Type, nil
			}
		}
		if len(s.files) == 0 {
			return types.Unknown, fmt.Errorf("column %s is not required and there is no file to type it from", name)
		}
		for _, f := range s.files { // the first file that has it
			if fc := f.schema.lookup(name); fc != nil {
				if fc.err != nil {
					return types.Unknown, fc.err
				}
				return fc.spark, nil
			}
		}
		return types.Unknown, fmt.Errorf("no column %s in any of the %d files (first %s)", name, len(s.files), s.files[0].path)
	}
	p, err := compileAll(s.opt.Filters, resolve)
	if err != nil {
		if errors.Is(err, ErrUnsupportedType) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrOptions, err)
	}
	s.pred = p
	var leaves []*leaf
	p.leaves(&leaves)
	for _, f := range s.files {
		for _, l := range leaves {
			if err := checkColumn(f, l.col, l.typ); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *pred) leaves(out *[]*leaf) {
	if p.kind == pLeaf {
		*out = append(*out, p.leaf)
	}
	for _, k := range p.kids {
		k.leaves(out)
	}
}

// planSplits groups each file's row groups into splits of about SplitBytes.
// When the caller left SplitBytes unset, the size is chosen so that the
// workers get about four splits each (between minAutoSplitBytes and the
// default): a few big files are otherwise one split each, and three files
// over two workers leave one idle for a third of the scan.
func (s *Scanner) planSplits() {
	target := s.opt.SplitBytes
	if s.autoSplit {
		var total int64
		for _, f := range s.files {
			lo, hi := s.rowGroupRange(f)
			for rg := lo; rg < hi; rg++ {
				total += rowGroupBytes(f.md.RowGroup(rg))
			}
		}
		target = min(defaultSplitBytes, max(minAutoSplitBytes, total/int64(4*max(1, s.opt.Parallelism))))
	}
	for _, f := range s.files {
		lo, hi := s.rowGroupRange(f)
		s.cnt.rowGroups.Add(int64(hi - lo))
		for _, run := range RowGroupRuns(f.md, lo, hi, target) {
			sp := &split{idx: len(s.splits), file: f}
			var records int64
			for rg := run[0]; rg < run[1]; rg++ {
				sp.rgs = append(sp.rgs, rg)
				records += (f.md.RowGroup(rg).NumRows() + int64(s.opt.BatchRows) - 1) / int64(s.opt.BatchRows)
			}
			// room for the split's records (the prefetch budget is what
			// bounds them; row ranges may cut more, which then wait)
			queue := max(s.opt.Prefetch, int(min(records+1, maxSplitQueue)))
			if !prefetchByBytes {
				queue = s.opt.Prefetch
			}
			sp.ch = make(chan item, queue)
			s.splits = append(s.splits, sp)
		}
	}
}

// RowGroupRuns groups the row groups [lo, hi) of a file into runs of
// consecutive row groups of about target compressed bytes (a run ends once
// it reaches target; a row group is never cut), each [first, end).
func RowGroupRuns(md *metadata.FileMetaData, lo, hi int, target int64) [][2]int {
	var out [][2]int
	var size int64
	for rg := lo; rg < hi; rg++ {
		if len(out) == 0 || size >= target {
			out = append(out, [2]int{rg, rg})
			size = 0
		}
		out[len(out)-1][1] = rg + 1
		size += rowGroupBytes(md.RowGroup(rg))
	}
	return out
}

// maxSplitQueue bounds the records a split's channel holds.
const maxSplitQueue = 1024

// minAutoSplitBytes bounds the splits planSplits sizes itself from below
// (a variable for tests).
var minAutoSplitBytes int64 = 8 << 20

// rowGroupRange is the range of f's row groups the scan reads
// (Options.RowGroupStart/End or FileRowGroups).
func (s *Scanner) rowGroupRange(f *scanFile) (lo, hi int) {
	lo, hi = 0, f.md.NumRowGroups()
	if s.opt.FileRowGroups != nil {
		if i := slices.Index(s.opt.Files, f.path); i >= 0 {
			r := s.opt.FileRowGroups[i]
			lo = min(r[0], hi)
			if r[1] > 0 {
				hi = min(r[1], hi)
			}
		}
		return lo, hi
	}
	if s.opt.RowGroupEnd > 0 {
		lo, hi = min(s.opt.RowGroupStart, hi), min(s.opt.RowGroupEnd, hi)
	}
	return lo, hi
}

// rowGroupBytes is a row group's compressed size (its uncompressed size
// when the writer left that out).
func rowGroupBytes(rgm *metadata.RowGroupMetaData) int64 {
	if n := rgm.TotalCompressedSize(); n > 0 {
		return n
	}
	return rgm.TotalByteSize()
}

// Next returns the next record, or (nil, nil) at the end. The caller owns
// the record and must Release it. After an error every call returns it.
func (s *Scanner) Next() (arrow.RecordBatch, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if s.err != nil {
		return nil, s.err
	}
	for s.cur < len(s.splits) {
		if err := s.ctx.Err(); err != nil {
			s.err = err
			return nil, err
		}
		sp := s.splits[s.cur]
		select {
		case it, ok := <-sp.ch:
			if !ok {
				if err := s.ctx.Err(); err != nil {
					s.err = err
					return nil, err
				}
				s.cur++
				s.reading.Store(int64(s.cur))
				s.advanced()
				continue
			}
			if it.bytes > 0 {
				s.unreserve(it.bytes)
			}
			if it.err != nil {
				s.err = it.err
				s.cancel()
				return nil, it.err
			}
			return it.rec, nil
		case <-s.ctx.Done():
			s.err = s.ctx.Err()
			return nil, s.err
		}
	}
	return nil, nil
}

// Stats returns a snapshot of the scan's counters; safe at any time.
func (s *Scanner) Stats() Stats { return s.cnt.snapshot(s.static) }

// Close stops the workers, waits for them and releases the records they
// decoded ahead. It is idempotent and always returns nil; records already
// returned by Next stay valid.
func (s *Scanner) Close() error {
	s.closeMu.Do(func() {
		s.closed = true
		if s.cancel != nil {
			s.cancel()
		}
		s.wg.Wait()
		for _, sp := range s.splits {
			drain(sp.ch)
		}
		s.dev.close()
	})
	return nil
}

func drain(ch chan item) {
	for {
		select {
		case it, ok := <-ch:
			if !ok {
				return
			}
			if it.rec != nil {
				it.rec.Release()
			}
		default:
			return
		}
	}
}
