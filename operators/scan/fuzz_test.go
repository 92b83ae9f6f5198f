package scan

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/hados-io/hados/operators/types"
)

// fuzzSeed is a small file with every feature the reader prunes with.
func fuzzSeed(t testing.TB, dir string, props ...parquet.WriterProperty) []byte {
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	small := rec.NewSlice(0, 120)
	defer small.Release()
	path := filepath.Join(dir, "seed.parquet")
	writeFile(t, path, small, append([]parquet.WriterProperty{parquet.WithMaxRowGroupLength(50), parquet.WithDataPageSize(128),
		parquet.WithBatchSize(20)}, props...)...)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzScan mutates Parquet files and scans them with and without pruning:
// the scan must return rows or an error naming the file — never panic, hang
// or leak a byte of the allocator.
func FuzzScan(f *testing.F) {
	dir := f.TempDir()
	all := []parquet.WriterProperty{parquet.WithStats(true), parquet.WithPageIndexEnabled(true),
		parquet.WithDictionaryDefault(true), parquet.WithBloomFilterEnabled(true),
		parquet.WithBloomFilterNDV(64), parquet.WithMaxBloomFilterBytes(1024)}
	seeds := [][]byte{
		fuzzSeed(f, dir, all...),
		fuzzSeed(f, dir, parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(false)),
	}
	for _, s := range seeds {
		f.Add(s, uint32(len(s)/2), byte(0xff), uint8(3))
		f.Add(s, uint32(len(s)-10), byte(0x01), uint8(1))
		f.Add(s, uint32(4), byte(0x80), uint8(8))
		f.Add(s[:len(s)-1], uint32(0), byte(0), uint8(0))
	}
	filters := []Filter{
		And{GreaterThan{"i", int32(40)}, IsNotNull{"s"}},
		Or{EqualTo{"c", "banana"}, In{"dec15", []Value{dec(101, 2), dec(-49899, 2)}}},
		Not{StringStartsWith{"s", "k000"}},
	}
	f.Fuzz(func(t *testing.T, data []byte, off uint32, xor byte, n uint8) {
		data = bytes.Clone(data)
		for i := 0; i < int(n) && len(data) > 0; i++ {
			data[(int(off)+i*7)%len(data)] ^= xor
		}
		path := filepath.Join(t.TempDir(), "fuzz.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cols := []Column{{Name: "i", Type: types.IntType, Nullable: true}, {Name: "s", Type: types.StringType, Nullable: true},
			{Name: "dec15", Type: types.DecimalOf(15, 2), Nullable: true}, {Name: "ts", Type: types.TimestampType, Nullable: true}}
		for _, f := range filters {
			alloc := testAlloc(t)
			_, _, err := tryScan(Options{Files: []string{path}, Columns: cols, Filters: []Filter{f}, Alloc: alloc, Parallelism: 2}, nil)
			if err != nil && !bytes.Contains([]byte(err.Error()), []byte("fuzz.parquet")) {
				t.Errorf("error does not name the file: %v", err)
			}
		}
	})
}
