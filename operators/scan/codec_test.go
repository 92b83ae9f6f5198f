package scan

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/hados-io/hados/internal/csnappy"
)

// TestCSnappyRegistered: importing the scan puts the C decoder in arrow-go's
// registry (codec.go).
func TestCSnappyRegistered(t *testing.T) {
	c, err := compress.GetCodec(compress.Codecs.Snappy)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(csnappy.Codec); !ok {
		t.Fatalf("snappy codec is %T, want csnappy.Codec", c)
	}
}

// TestCSnappyMatchesGo scans the test table (every type, nulls, plain and
// dictionary pages, snappy) decoded by the C decoder and by arrow-go's Go
// decoder, at parallelism 1 (pqarrow's page reader) and 3 (inflate.go's
// helpers), and compares the rows.
func TestCSnappyMatchesGo(t *testing.T) {
	dir := t.TempDir()
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	var files []string
	for i, dict := range []bool{false, true} {
		p := filepath.Join(dir, []string{"plain.parquet", "dict.parquet"}[i])
		writeFile(t, p, rec, parquet.WithMaxRowGroupLength(300), parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithDictionaryDefault(dict), parquet.WithDataPageSize(512))
		files = append(files, p)
	}
	defer setCSnappy(true)
	for _, par := range []int{1, 3} {
		opt := Options{Files: files, Columns: testColumns, Parallelism: par, BatchRows: 100}
		setCSnappy(false)
		opt.Alloc = testAlloc(t)
		want, _ := scanAll(t, opt)
		setCSnappy(true)
		opt.Alloc = testAlloc(t)
		got, _ := scanAll(t, opt)
		if len(want) != 2*testRows {
			t.Fatalf("parallelism %d: %d rows, want %d", par, len(want), 2*testRows)
		}
		if d := diffRows(want, got); d != "" {
			t.Fatalf("parallelism %d: C and Go decoders differ: %s", par, d)
		}
	}
}
