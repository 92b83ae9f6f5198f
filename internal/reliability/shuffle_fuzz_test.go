package reliability

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/exchange"
)

// shuffleSample writes one map output of 3 partitions (the records of
// sampleRecord, several blocks per partition) with codec and returns its data
// and index files' bytes and the schema.
func shuffleSample(t testing.TB, codec exchange.Codec) (data, index []byte, schema *arrow.Schema) {
	dir := t.TempDir()
	part, err := exchange.NewRoundRobin(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := exchange.NewShuffleWriter(part, exchange.WriterOptions{Dir: dir, Codec: codec, MemoryLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		rec := sampleRecord(memory.DefaultAllocator, i, 12)
		schema = rec.Schema()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	out, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if data, err = os.ReadFile(out.DataPath); err != nil {
		t.Fatal(err)
	}
	if index, err = os.ReadFile(out.IndexPath); err != nil {
		t.Fatal(err)
	}
	return data, index, schema
}

// FuzzShuffleReader damages a committed shuffle output — bytes of the data
// file flipped, the data or index file cut short or replaced — and reads
// every partition through the public reader: it returns records or an
// error (a *CorruptError for damage it detects), never panics, and leaks
// no allocation. (operators/exchange fuzzes the block and index decoders
// on their own: FuzzDecodeBlock, FuzzParseIndex, FuzzDecodeIPC.)
func FuzzShuffleReader(f *testing.F) {
	var schema *arrow.Schema
	for _, c := range []exchange.Codec{exchange.LZ4, exchange.Snappy, exchange.NoCompression} {
		data, index, s := shuffleSample(f, c)
		schema = s
		f.Add(data, index, uint32(0), byte(0), uint16(0))
		f.Add(data, index, uint32(len(data)/2), byte(0x40), uint16(3))
		f.Add(data, index, uint32(30), byte(0xff), uint16(1))
		f.Add(data[:len(data)-5], index, uint32(0), byte(0), uint16(0))
		f.Add(data, index[:len(index)-8], uint32(0), byte(0), uint16(0))
	}
	// one directory for every input: a worker runs its inputs one at a time
	dir := f.TempDir()
	out := exchange.MapOutput{DataPath: filepath.Join(dir, "shuffle_0_0_0.data"), IndexPath: filepath.Join(dir, "shuffle_0_0_0.index")}
	f.Fuzz(func(t *testing.T, data, index []byte, off uint32, xor byte, n uint16) {
		if len(data) > 1<<20 || len(index) > 1<<12 {
			return
		}
		data = bytes.Clone(data)
		for i := 0; i < int(n%64) && len(data) > 0; i++ {
			data[(int(off)+i*13)%len(data)] ^= xor
		}
		if err := os.WriteFile(out.DataPath, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out.IndexPath, index, 0o600); err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		for p := range 4 { // one partition past the end too
			r, err := exchange.NewShuffleReader([]exchange.MapOutput{out}, p, schema, mem)
			if err != nil {
				t.Fatal(err)
			}
			for range 10000 {
				rec, err := r.Next()
				if err != nil {
					var ce *exchange.CorruptError
					if errors.As(err, &ce) && ce.File == "" {
						t.Fatalf("corruption error naming no file: %v", err)
					}
					break
				}
				if rec == nil {
					break
				}
				rec.Release()
			}
			if err := r.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
		}
		mem.AssertSize(t, 0)
	})
}
