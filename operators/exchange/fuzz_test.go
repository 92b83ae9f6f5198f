package exchange

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sampleBlocks returns valid encoded blocks (one per codec) of a small
// random record, and the record's IPC stream.
func sampleBlocks(t testing.TB) ([][]byte, []byte) {
	t.Helper()
	mem := memory.NewGoAllocator()
	rec := randomRecord(t, rand.New(rand.NewPCG(21, 22)), mem, 20, 0.2)
	defer rec.Release()
	var ipcBuf bytes.Buffer
	if err := encodeIPC(&ipcBuf, rec.Schema(), []arrow.RecordBatch{rec}, mem); err != nil {
		t.Fatal(err)
	}
	raw := ipcBuf.Bytes()
	var blocks [][]byte
	for _, c := range []Codec{LZ4, Snappy, NoCompression} {
		comp := compressor{codec: c}
		payload, id, err := comp.compress(raw)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, blockHeaderSize+len(payload))
		copy(b[blockHeaderSize:], payload)
		putBlockHeader(b, id, 3, len(raw), payload)
		blocks = append(blocks, b)
	}
	return blocks, raw
}

// FuzzDecodeBlock: any bytes give a block or an error, never a panic, and a
// decoded block has the length its header claims.
func FuzzDecodeBlock(f *testing.F) {
	blocks, _ := sampleBlocks(f)
	for _, b := range blocks {
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(b[:blockHeaderSize])
	}
	f.Add([]byte("HXB1"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, raw, rest, err := decodeBlock(b)
		if err != nil {
			return
		}
		if len(raw) != int(h.rawLen) || len(rest) != len(b)-blockHeaderSize-int(h.storedLen) {
			t.Fatalf("decoded %d bytes (header %d), rest %d", len(raw), h.rawLen, len(rest))
		}
	})
}

// FuzzParseIndex: any index bytes and data size give offsets satisfying the
// index invariants or a corruption error.
func FuzzParseIndex(f *testing.F) {
	f.Add(encodeIndex([]int64{0, 10, 10, 25}), int64(25))
	f.Add(encodeIndex([]int64{0, 0}), int64(0))
	f.Add(encodeIndex([]int64{0, 30, 20}), int64(20))
	f.Add([]byte{0, 0, 0}, int64(0))
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		off, err := parseIndex(b, size, "fuzz.index")
		if err != nil {
			return
		}
		if off[0] != 0 || off[len(off)-1] != size || len(off) < 2 {
			t.Fatalf("accepted bad index %v for size %d", off, size)
		}
		for i := 1; i < len(off); i++ {
			if off[i] < off[i-1] {
				t.Fatalf("accepted decreasing offsets %v", off)
			}
		}
	})
}

// FuzzDecodeIPC: whatever follows the expected schema message in a block
// with a valid checksum, decoding returns records or an error, never panics
// or exhausts memory, and leaks nothing.
func FuzzDecodeIPC(f *testing.F) {
	_, raw := sampleBlocks(f)
	prefix, err := schemaMessage(allTypesSchema)
	if err != nil {
		f.Fatal(err)
	}
	if !bytes.HasPrefix(raw, prefix) {
		f.Fatal("encoded stream does not start with the schema message")
	}
	body := raw[len(prefix):]
	f.Add(body)
	f.Add(body[:len(body)/2])
	f.Add(body[:8])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		recs, err := decodeIPC(append(append([]byte(nil), prefix...), body...), prefix, mem)
		if err == nil {
			for _, r := range recs {
				r.Release()
			}
		}
		mem.AssertSize(t, 0)
	})
}
