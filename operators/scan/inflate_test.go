package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"go.uber.org/goleak"
)

// inflateFile writes the test table with small pages (many per chunk) and
// the given properties.
func inflateFile(t testing.TB, path string, props ...parquet.WriterProperty) {
	t.Helper()
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	writeFile(t, path, rec, append([]parquet.WriterProperty{parquet.WithMaxRowGroupLength(500),
		parquet.WithDataPageSize(512), parquet.WithBatchSize(64)}, props...)...)
}

// twoProcs lets the test run two goroutines at once, which the parallel
// path needs (see Open), restoring GOMAXPROCS after.
func twoProcs(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
}

// alwaysHelpers starts decompression helpers for every row group read
// whole, not only while a core has no worker (helpersWhenIdle), for the
// duration of the test.
func alwaysHelpers(t *testing.T) {
	helpersWhenIdle = false
	t.Cleanup(func() { helpersWhenIdle = true })
}

// everyChunk inflates every compressed chunk, so that every type takes
// the parallel path, for the duration of the test.
func everyChunk(t *testing.T) {
	inflateEveryChunk = true
	t.Cleanup(func() { inflateEveryChunk = false })
}

// scanInflated scans opt to the end and returns its rows and how many row
// groups were decoded with parallel decompression.
func scanInflated(t *testing.T, opt Options) ([]string, int64) {
	t.Helper()
	s := mustOpen(t, opt)
	defer s.Close()
	var rows []string
	each(t, s, func(r arrow.RecordBatch) {
		for i := 0; i < int(r.NumRows()); i++ {
			rows = append(rows, rowString(r, i))
		}
	})
	return rows, s.cnt.inflated.Load()
}

// TestParallelDecompressionEqualsSerial: row groups whose pages are
// decompressed ahead by helpers decode to exactly what the serial path
// (Parallelism 1) decodes, for every codec, with and without dictionaries
// and page index, at several batch sizes; layouts the parallel path does
// not take (data page v2, uncompressed) are decoded as before.
func TestParallelDecompressionEqualsSerial(t *testing.T) {
	twoProcs(t)
	everyChunk(t)
	dir := t.TempDir()
	cases := []struct {
		name     string
		props    []parquet.WriterProperty
		inflated bool
	}{
		{"snappy", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy)}, true},
		{"snappy plain", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false)}, true},
		{"zstd page index", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd), parquet.WithPageIndexEnabled(true)}, true},
		{"gzip", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Gzip)}, true},
		{"lz4 raw", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Lz4Raw)}, true},
		{"uncompressed", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Uncompressed)}, false},
		{"data page v2", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageVersion(parquet.DataPageV2)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".parquet")
			inflateFile(t, path, c.props...)
			serial := Options{Files: []string{path}, Columns: testColumns, Parallelism: 1, Alloc: testAlloc(t)}
			want, n := scanInflated(t, serial)
			if len(want) != testRows || (n != 0 && !deviceTestMode()) { // the device inflates at any parallelism
				t.Fatalf("serial: %d rows, %d row groups inflated", len(want), n)
			}
			checkVariants(t, want, serial, []int{2, 5}, testAlloc, scanInflated, c.inflated, "row groups inflated")
		})
	}
}

// TestParallelDecompressionCorruptPage: a page that fails to decompress
// on a helper is reported by Next naming the file and the row group.
func TestParallelDecompressionCorruptPage(t *testing.T) {
	twoProcs(t)
	everyChunk(t)
	bad := corruptPageFile(t)
	_, _, err := tryScan(Options{Files: []string{bad}, Columns: testColumns, Parallelism: 4, Alloc: testAlloc(t)}, nil)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "bad.parquet row group 1") {
		t.Fatalf("error %v", err)
	}
}

// TestParallelDecompressionCancel: cancelling the scan, or closing it
// early, stops the decompression helpers; no goroutine survives.
func TestParallelDecompressionCancel(t *testing.T) {
	twoProcs(t)
	everyChunk(t)
	alwaysHelpers(t) // three splits keep both cores busy: no helpers otherwise
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("f%d.parquet", i))
		inflateFile(t, p, parquet.WithCompression(compress.Codecs.Snappy))
		files = append(files, p)
	}
	for _, cancelFirst := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		s := openPastFirst(ctx, t, Options{Files: files, Columns: testColumns, Parallelism: 4, Prefetch: 1, BatchRows: 16, Alloc: testAlloc(t)})
		if cancelFirst {
			cancel()
			for {
				rec, err := s.Next()
				if rec != nil {
					rec.Release()
					continue
				}
				if !errors.Is(err, context.Canceled) {
					t.Errorf("after cancel: %v", err)
				}
				break
			}
		}
		s.Close()
		cancel()
		goleak.VerifyNone(t)
		if s.cnt.inflated.Load() == 0 {
			t.Error("no row group was inflated")
		}
	}
}

// TestParallelDecompressionLargeChunks: by default only the largest
// chunks are inflated, holding half the bytes at two goroutines, and the
// result is unchanged.
func TestParallelDecompressionLargeChunks(t *testing.T) {
	twoProcs(t)
	path := filepath.Join(t.TempDir(), "f.parquet")
	inflateFile(t, path, parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false))
	cols := pick(testColumns, "i", "dec38", "l")
	serial := Options{Files: []string{path}, Columns: cols, Parallelism: 1, Alloc: testAlloc(t)}
	want, _ := scanInflated(t, serial)
	par := serial
	par.Parallelism, par.Alloc = 2, testAlloc(t)
	got, n := scanInflated(t, par)
	if d := diffRows(want, got); d != "" {
		t.Fatal(d)
	}
	if n == 0 {
		t.Error("no row group inflated")
	}
}

func TestLargeChunks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.parquet")
	inflateFile(t, path, parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false))
	md, _, err := readFooter(path)
	if err != nil {
		t.Fatal(err)
	}
	rgm := md.RowGroup(0)
	var chunks []*metadata.ColumnChunkMetaData
	var sizes []int64
	for i := 0; i < rgm.NumColumns(); i++ {
		cc, err := rgm.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, cc)
		sizes = append(sizes, cc.TotalUncompressedSize())
	}
	for _, p := range []int{2, 3, 8} {
		large := largeChunks(chunks, p)
		var in, total, minIn, maxOut int64
		minIn = 1 << 62
		for i, l := range large {
			total += sizes[i]
			if l {
				in += sizes[i]
				minIn = min(minIn, sizes[i])
			} else {
				maxOut = max(maxOut, sizes[i])
			}
		}
		if in*int64(p) < total*int64(p-1) || maxOut > minIn || in-minIn >= total*int64(p-1)/int64(p) {
			t.Errorf("p %d: sizes %v, picked %v", p, sizes, large)
		}
	}
}

// corruptPageFile writes a snappy file of inflateFile's rows without
// dictionaries whose column l has a corrupted page in row group 1, and
// returns its path (a "bad.parquet").
func corruptPageFile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "good.parquet")
	inflateFile(t, path, parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off := pageOffset(t, path, 1, 3) // column l, row group 1
	for i := off + 30; i < off+90; i++ {
		data[i] ^= 0x5a
	}
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return bad
}
