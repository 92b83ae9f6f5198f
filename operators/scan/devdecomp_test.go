package scan

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/soft"
	"github.com/hados-io/hados/memory"
)

// testDeviceAlloc is an allocator of a host-visible software DPU's memory
// that fails the test if anything (arrow buffers or device page buffers)
// is still allocated when the test ends.
func testDeviceAlloc(t testing.TB) *memory.Allocator {
	t.Helper()
	set, err := device.OpenString("soft:memory=256MiB,cores=2")
	if err != nil {
		t.Fatal(err)
	}
	pool := memory.NewDevicePool(set.Devices()[0], memory.PoolOptions{})
	a, err := memory.NewDeviceAllocator(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if n := a.Allocated(); n != 0 {
			t.Errorf("allocator leak: %d bytes still allocated", n)
		}
		if n := a.Account().InUse(); n != 0 {
			t.Errorf("device memory leak: %d bytes still charged", n)
		}
		if err := pool.Close(); err != nil && !t.Failed() {
			t.Errorf("pool close: %v", err)
		}
		set.Close()
	})
	return a
}

// scanDevice scans opt to the end and returns its rows and how many pages
// the device decompressed.
func scanDevice(t *testing.T, opt Options) ([]string, int64) {
	t.Helper()
	s := mustOpen(t, opt)
	defer s.Close()
	var rows []string
	each(t, s, func(r arrow.RecordBatch) {
		for i := 0; i < int(r.NumRows()); i++ {
			rows = append(rows, rowString(r, i))
		}
	})
	var pages int64
	if s.dev != nil {
		pages = s.dev.pages.Load()
	}
	return rows, pages
}

// TestDeviceDecompressionEqualsHost: a scan into a host-visible device's
// memory decompresses snappy and lz4_raw pages on the device, at every
// parallelism (1 included) and batch size, and decodes exactly what the
// host path decodes; other codecs and layouts take the host path.
func TestDeviceDecompressionEqualsHost(t *testing.T) {
	withDeviceDecompression(t, true)
	twoProcs(t)
	dir := t.TempDir()
	cases := []struct {
		name   string
		props  []parquet.WriterProperty
		device bool
	}{
		{"snappy", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy)}, true},
		{"snappy plain", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false)}, true},
		{"snappy page index", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithPageIndexEnabled(true)}, true},
		{"lz4 raw", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Lz4Raw), parquet.WithDictionaryDefault(false)}, true},
		{"zstd", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd)}, false},
		{"uncompressed", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Uncompressed)}, false},
		{"data page v2", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageVersion(parquet.DataPageV2)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".parquet")
			inflateFile(t, path, c.props...)
			host := Options{Files: []string{path}, Columns: testColumns, Parallelism: 1, Alloc: testAlloc(t)}
			if deviceTestMode() {
				pool := memory.NewHostPool(memory.PoolOptions{}, false)
				defer pool.Close()
				host.Alloc = memory.NewHostAllocator(pool, nil)
			}
			want, _ := scanDevice(t, host)
			if len(want) != testRows {
				t.Fatalf("host: %d rows", len(want))
			}
			checkVariants(t, want, host, []int{1, 2, 5}, testDeviceAlloc, scanDevice, c.device, "pages decompressed on the device")
		})
	}
}

// TestDeviceDecompressionOff: with device decompression switched off a
// device allocator's scan takes the host path.
func TestDeviceDecompressionOff(t *testing.T) {
	withDeviceDecompression(t, false)
	path := filepath.Join(t.TempDir(), "f.parquet")
	inflateFile(t, path, parquet.WithCompression(compress.Codecs.Snappy))
	rows, pages := scanDevice(t, Options{Files: []string{path}, Columns: testColumns, Parallelism: 1, Alloc: testDeviceAlloc(t)})
	if len(rows) != testRows || pages != 0 {
		t.Fatalf("%d rows, %d pages on the device", len(rows), pages)
	}
}

// TestDeviceDecompressionCorruptPage: a page the device cannot decompress
// is an ErrCorrupt error naming the file and row group, at parallelism 1
// and with helpers, and nothing stays allocated.
func TestDeviceDecompressionCorruptPage(t *testing.T) {
	withDeviceDecompression(t, true)
	twoProcs(t)
	bad := corruptPageFile(t)
	for _, par := range []int{1, 4} {
		_, _, err := tryScan(Options{Files: []string{bad}, Columns: testColumns, Parallelism: par, Alloc: testDeviceAlloc(t)}, nil)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "bad.parquet row group 1") {
			t.Fatalf("parallelism %d: error %v", par, err)
		}
	}
}

// TestDeviceDecompressionCancel: cancelling a scan whose pages the device
// decompresses returns the context's error and leaves nothing allocated
// (testDeviceAlloc) and no goroutine running (TestMain).
func TestDeviceDecompressionCancel(t *testing.T) {
	withDeviceDecompression(t, true)
	dir := t.TempDir()
	var files []string
	for i := range 4 {
		p := filepath.Join(dir, "f"+string(rune('0'+i))+".parquet")
		inflateFile(t, p, parquet.WithCompression(compress.Codecs.Snappy))
		files = append(files, p)
	}
	for _, par := range []int{1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		s := openPastFirst(ctx, t, Options{Files: files, Columns: testColumns, Parallelism: par, Prefetch: 1, BatchRows: 16, Alloc: testDeviceAlloc(t)})
		cancel()
		for {
			rec, err := s.Next()
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("parallelism %d: error %v, want context.Canceled", par, err)
				}
				break
			}
			if rec == nil {
				break
			}
			rec.Release()
		}
		s.Close()
	}
}

// withDeviceDecompression switches device decompression for one test.
func withDeviceDecompression(t *testing.T, on bool) {
	old := deviceDecompression
	deviceDecompression = on
	t.Cleanup(func() { deviceDecompression = old })
}
