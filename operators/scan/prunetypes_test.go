package scan

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestStatsPrunePerType checks each type's statistics are decoded and used:
// a predicate no value satisfies prunes every row group by statistics, and
// one that page bounds exclude for part of the table prunes pages.
func TestStatsPrunePerType(t *testing.T) {
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "t.parquet")
	cfg := writerConfig{stats: true, pageIndex: true}
	writeFile(t, path, rec, cfg.props()...)
	cases := []Filter{
		GreaterThan{"i", int32(5000)},
		LessThan{"l", int64(-600000)},
		LessThan{"d", -1000.0},
		GreaterThan{"dec10", dec(9000, 0)},
		LessThan{"dec15", dec(-60000, 2)},
		GreaterThan{"dec38", Decimal{bigDec38(1999), 10}},
		GreaterThan{"dt", Date(9499)},
		LessThan{"ts", Timestamp(1e15 - 1)},
		GreaterThan{"s", "k9"},
		StringStartsWith{"s", "z"},
		EqualTo{"c", "zebra"},
		And{IsNull{"id"}, IsNotNull{"i"}},
	}
	for _, f := range cases {
		alloc := testAlloc(t)
		_, st, err := tryScan(Options{Files: []string{path}, Columns: testColumns, Alloc: alloc, Filters: []Filter{f}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.RowGroupsPrunedStats != st.RowGroups || st.RowGroups == 0 {
			t.Errorf("%s: %d of %d row groups pruned by statistics", f, st.RowGroupsPrunedStats, st.RowGroups)
		}
	}
	// Sorted columns: a range inside one row group prunes the others by
	// statistics and part of the remaining one by the page index.
	for _, f := range []Filter{
		And{GreaterThanOrEqual{"id", int64(620)}, LessThan{"id", int64(640)}},
		And{GreaterThanOrEqual{"s", "k01240"}, LessThan{"s", "k01280"}},
		EqualTo{"dt", Date(9155)},
	} {
		alloc := testAlloc(t)
		_, st, err := tryScan(Options{Files: []string{path}, Columns: testColumns, Alloc: alloc, Filters: []Filter{f}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.RowGroupsPrunedStats != st.RowGroups-1 || st.PagesPruned == 0 || st.RowsPrunedPage == 0 {
			t.Errorf("%s: stats %+v", f, st)
		}
	}
}
