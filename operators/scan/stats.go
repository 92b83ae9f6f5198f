package scan

import "sync/atomic"

// Stats counts what a scan read and what it pruned. Pruning happens in
// order — partitions, then row groups by column statistics, by the page
// index, by dictionaries, by bloom filters — and each row group is counted
// under the first step that pruned it.
type Stats struct {
	Files            int // files after partition pruning
	FilesPruned      int // files dropped by partition filters
	Partitions       int // distinct partition directories (1 for an unpartitioned table)
	PartitionsPruned int

	RowGroups                 int64 // row groups in the files read
	RowGroupsPrunedStats      int64 // by column-chunk min/max/null count (and every row group of a filter that is never true, e.g. In(a, [null]))
	RowGroupsPrunedPageIndex  int64 // every page excluded by the ColumnIndex
	RowGroupsPrunedDictionary int64 // no dictionary value can match
	RowGroupsPrunedBloom      int64 // bloom filters exclude every literal

	// Pages counts the data pages (by the OffsetIndex) of the required data
	// columns in row groups that survived row-group pruning; PagesPruned
	// those whose rows all lie outside the row ranges the ColumnIndex
	// allows. A pruned page is skipped when the reader seeks past it (see
	// the package doc) and its rows never reach the output.
	Pages, PagesPruned int64

	Rows           int64 // rows output
	RowsPrunedPage int64 // rows of surviving row groups dropped by the page index
	BytesRead      int64 // bytes read from files (footers, indexes, pages)
}

type counters struct {
	rowGroups, rgStats, rgPage, rgDict, rgBloom atomic.Int64
	pages, pagesPruned                          atomic.Int64
	rows, rowsPrunedPage, bytesRead             atomic.Int64
	inflated                                    atomic.Int64 // row groups decoded with parallel decompression (inflate.go)
	waitNanos                                   atomic.Int64 // workers' time handing records over (waiting for prefetch room), for measurements
}

func (c *counters) snapshot(s Stats) Stats {
	s.RowGroups = c.rowGroups.Load()
	s.RowGroupsPrunedStats = c.rgStats.Load()
	s.RowGroupsPrunedPageIndex = c.rgPage.Load()
	s.RowGroupsPrunedDictionary = c.rgDict.Load()
	s.RowGroupsPrunedBloom = c.rgBloom.Load()
	s.Pages = c.pages.Load()
	s.PagesPruned = c.pagesPruned.Load()
	s.Rows = c.rows.Load()
	s.RowsPrunedPage = c.rowsPrunedPage.Load()
	s.BytesRead = c.bytesRead.Load()
	return s
}
