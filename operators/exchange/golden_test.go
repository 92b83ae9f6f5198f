package exchange

import (
	"encoding/hex"
	"flag"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// TestGoldenShuffleFiles pins the on-disk format: a small deterministic map
// output (uncompressed, so the bytes do not depend on a compressor's
// version) must match testdata/shuffle_none.golden, a hex dump of the
// index file followed by the data file. Run with -update after an
// intended format change.
func TestGoldenShuffleFiles(t *testing.T) {
	mem := checkedMem(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{0, 1, -1, 42, 7}, []bool{true, true, true, true, false})
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "hello", "", "Spark", "x"}, []bool{true, true, false, true, true})
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	h, _ := NewHash([]int{0}, 3)
	w, err := NewShuffleWriter(h, WriterOptions{Dir: t.TempDir(), Codec: NoCompression, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	out, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	index, _ := os.ReadFile(out.IndexPath)
	data, _ := os.ReadFile(out.DataPath)
	got := "index\n" + hex.Dump(index) + "data\n" + hex.Dump(data)
	testkit.Golden(t, "testdata/shuffle_none.golden", got, *update)
}
