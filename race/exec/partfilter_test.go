package exec_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writePartition writes one Parquet file of amounts into dir/sales/day=<day>.
func writePartition(t *testing.T, dir, day string, amounts ...int64) {
	t.Helper()
	pd := filepath.Join(dir, "sales", "day="+day)
	if err := os.MkdirAll(pd, 0o755); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "amount", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(amounts, nil)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecord(schema, []arrow.Array{col}, int64(len(amounts)))
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.Record{rec})
	defer tbl.Release()
	f, err := os.Create(filepath.Join(pd, "part-00000.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, 1024, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
}

// TestPartitionFilters: Spark drops a predicate on partition columns from
// the Filter above a scan once it prunes partitions with it; the scan's
// PartitionFilters (here isnotnull(day), day >= 2 and day % 2 = 1, with
// no Filter above) must still hold, or every partition would be summed.
// The scanner prunes files with what it can (day >= 2, the null
// partition); the device applies the rest (day % 2 = 1).
func TestPartitionFilters(t *testing.T) {
	dir := t.TempDir()
	writePartition(t, dir, "1", 1, 2)
	writePartition(t, dir, "2", 10, 20)
	writePartition(t, dir, "3", 100)
	writePartition(t, dir, "__HIVE_DEFAULT_PARTITION__", 1000)
	got := runBoth(t, sparkText(t, "partition-filter.explain.txt", dir), dir)
	if want := []string{"3|100"}; !sameRows(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
