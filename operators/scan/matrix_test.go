package scan

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
)

// writerConfig is one way of writing the test table.
type writerConfig struct {
	stats, pageIndex, dict, bloom, decAsInt bool
}

func (c writerConfig) String() string {
	return fmt.Sprintf("stats=%t,pageindex=%t,dict=%t,bloom=%t,decint=%t", c.stats, c.pageIndex, c.dict, c.bloom, c.decAsInt)
}

func (c writerConfig) props() []parquet.WriterProperty {
	return []parquet.WriterProperty{
		parquet.WithMaxRowGroupLength(300),
		parquet.WithDataPageSize(256),
		parquet.WithBatchSize(50),
		parquet.WithStats(c.stats),
		parquet.WithPageIndexEnabled(c.pageIndex),
		parquet.WithDictionaryDefault(c.dict),
		parquet.WithBloomFilterEnabled(c.bloom),
		parquet.WithBloomFilterNDV(512),
		parquet.WithMaxBloomFilterBytes(4096),
		parquet.WithStoreDecimalAsInteger(c.decAsInt),
	}
}

// writerConfigs are the layouts the matrix runs: each pruning source alone,
// all of them, none, and decimals stored as integers.
func writerConfigs() []writerConfig {
	return []writerConfig{
		{},
		{stats: true},
		{stats: true, decAsInt: true},
		{stats: true, pageIndex: true},
		{dict: true},
		{bloom: true},
		{stats: true, pageIndex: true, dict: true, bloom: true},
	}
}

// TestPredicateMatrix checks, for every filter form × column type × file
// layout, that a pruned scan keeps exactly the matching rows an unpruned
// scan keeps, and that each pruning step fires where it should.
func TestPredicateMatrix(t *testing.T) {
	dir := t.TempDir()
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	filters := testFilters()
	cfgs := writerConfigs()
	if testing.Short() || raceEnabled {
		cfgs = []writerConfig{{}, {stats: true, pageIndex: true, dict: true, bloom: true}}
	}
	rnd := newRand(1)
	for ci, cfg := range cfgs {
		path := filepath.Join(dir, fmt.Sprintf("cfg%02d.parquet", ci))
		writeFile(t, path, rec, cfg.props()...)
		t.Run(cfg.String(), func(t *testing.T) {
			alloc := testAlloc(t)
			base := Options{Files: []string{path}, Columns: testColumns, Alloc: alloc,
				DisableStats: true, DisablePageIndex: true, DisableDictionary: true, DisableBloom: true}
			full := collect(t, base)
			defer releaseAll(full)
			var fired Stats
			for _, f := range filters {
				want := filterRows(t, full, f)
				opt := base
				opt.Filters = []Filter{f}
				opt.DisableStats, opt.DisablePageIndex, opt.DisableDictionary, opt.DisableBloom = false, false, false, false
				opt.BatchRows = []int{7, 100, 100, 1000, 0}[rnd.IntN(5)]
				opt.Parallelism = 1 + rnd.IntN(3)
				got, st, err := tryScan(opt, f)
				if err != nil {
					t.Fatalf("%s: pruned scan: %v", f, err)
				}
				if d := diffRows(want, got); d != "" {
					t.Errorf("%s: pruned scan differs: %s (stats %+v)", f, d, st)
				}
				fired.RowGroupsPrunedStats += st.RowGroupsPrunedStats
				fired.RowGroupsPrunedPageIndex += st.RowGroupsPrunedPageIndex
				fired.RowGroupsPrunedDictionary += st.RowGroupsPrunedDictionary
				fired.RowGroupsPrunedBloom += st.RowGroupsPrunedBloom
				fired.PagesPruned += st.PagesPruned
			}
			t.Logf("pruned: stats %d, page index %d (pages %d), dictionary %d, bloom %d",
				fired.RowGroupsPrunedStats, fired.RowGroupsPrunedPageIndex, fired.PagesPruned,
				fired.RowGroupsPrunedDictionary, fired.RowGroupsPrunedBloom)
			if cfg.stats && fired.RowGroupsPrunedStats == 0 {
				t.Error("statistics pruned no row group")
			}
			if cfg.pageIndex && cfg.stats && fired.PagesPruned == 0 {
				t.Error("page index pruned no page")
			}
			if cfg.dict && fired.RowGroupsPrunedDictionary == 0 {
				t.Error("dictionaries pruned no row group")
			}
			if cfg.bloom && !cfg.dict && fired.RowGroupsPrunedBloom == 0 {
				t.Error("bloom filters pruned no row group")
			}
		})
	}
}
