package exchange

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSample commits one map output of 400 random rows hash-partitioned
// four ways and returns it with its index offsets.
func writeSample(t *testing.T, dir string, codec Codec) (MapOutput, []int64) {
	t.Helper()
	mem := checkedMem(t)
	h, _ := NewHash([]int{3}, 4)
	w, err := NewShuffleWriter(h, WriterOptions{Dir: dir, Codec: codec, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rec := randomRecord(t, rand.New(rand.NewPCG(11, 12)), mem, 400, 0.1)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	out, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(out.DataPath)
	offsets, err := readIndex(out.IndexPath, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < 4; p++ {
		if offsets[p+1] == offsets[p] {
			t.Fatalf("partition %d is empty; the corruption cases need data in every partition", p)
		}
	}
	return out, offsets
}

// reseal recomputes the checksum of the block at offset at (after a
// deliberate edit, so that a deeper check is what fails).
func reseal(data []byte, at int64) {
	hdr := data[at : at+blockHeaderSize]
	n := int64(binary.BigEndian.Uint32(hdr[16:]))
	end := min(at+blockHeaderSize+n, int64(len(data)))
	putBlockHeader(hdr, hdr[4], int(binary.BigEndian.Uint32(hdr[8:])), int(binary.BigEndian.Uint32(hdr[12:])), data[at+blockHeaderSize:end])
}

func TestCorruptShuffleFiles(t *testing.T) {
	type mutate func(data, index []byte, off []int64) ([]byte, []byte)
	tests := []struct {
		name      string
		codec     Codec
		mutate    mutate
		partition int    // -1: an index error
		reason    string // substring of the message
	}{
		{"payload bit flip", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			d[off[1]+blockHeaderSize+5] ^= 0x10
			return d, x
		}, 1, "checksum mismatch"},
		{"bad magic", Snappy, func(d, x []byte, off []int64) ([]byte, []byte) {
			d[off[1]] = 'X'
			return d, x
		}, 1, "bad block magic"},
		{"reserved bytes", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			d[off[1]+6] = 1
			return d, x
		}, 1, "reserved header bytes"},
		{"unknown codec", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			d[off[1]+4] = 9
			reseal(d, off[1])
			return d, x
		}, 1, "unknown codec id 9"},
		{"block of another partition", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			binary.BigEndian.PutUint32(d[off[1]+8:], 2)
			reseal(d, off[1])
			return d, x
		}, 1, "belongs to partition 2"},
		{"payload length past partition end", Snappy, func(d, x []byte, off []int64) ([]byte, []byte) {
			binary.BigEndian.PutUint32(d[off[1]+16:], uint32(off[3]-off[1]))
			return d, x
		}, 1, "runs past the partition end"},
		{"uncompressed length wrong (lz4)", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			raw := binary.BigEndian.Uint32(d[off[1]+12:])
			binary.BigEndian.PutUint32(d[off[1]+12:], raw-1)
			reseal(d, off[1])
			return d, x
		}, 1, "lz4"},
		{"uncompressed length wrong (snappy)", Snappy, func(d, x []byte, off []int64) ([]byte, []byte) {
			raw := binary.BigEndian.Uint32(d[off[1]+12:])
			binary.BigEndian.PutUint32(d[off[1]+12:], raw+1)
			reseal(d, off[1])
			return d, x
		}, 1, "snappy block expands"},
		{"garbage lz4 payload", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			for i := off[1] + blockHeaderSize; i < off[2]; i++ {
				d[i] = byte(i * 7)
			}
			reseal(d, off[1])
			return d, x
		}, 1, "lz4"},
		{"bad arrow ipc", NoCompression, func(d, x []byte, off []int64) ([]byte, []byte) {
			for i := off[1] + blockHeaderSize + 8; i < off[1]+blockHeaderSize+40; i++ {
				d[i] = 0xee
			}
			reseal(d, off[1])
			return d, x
		}, 1, "bad arrow ipc stream"},
		{"bytes after the last block", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			binary.BigEndian.PutUint64(x[16:], uint64(off[2]+5))
			return d, x
		}, 1, "too few for a block header"},
		{"truncated data file", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			return d[:len(d)-10], x
		}, -1, "index ends at"},
		{"index not whole offsets", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			return d, x[:len(x)-3]
		}, -1, "not n+1"},
		{"index first offset", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			x[7] = 1
			return d, x
		}, -1, "first offset is 1"},
		{"index decreasing", LZ4, func(d, x []byte, off []int64) ([]byte, []byte) {
			binary.BigEndian.PutUint64(x[16:], uint64(off[1]-1))
			return d, x
		}, -1, "below the previous one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, off := writeSample(t, dir, tt.codec)
			data, _ := os.ReadFile(out.DataPath)
			index, _ := os.ReadFile(out.IndexPath)
			data, index = tt.mutate(data, index, off)
			if err := os.WriteFile(out.DataPath, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out.IndexPath, index, 0o600); err != nil {
				t.Fatal(err)
			}
			mem := checkedMem(t)
			p := max(tt.partition, 1)
			got, _, err := readPartition(t, []MapOutput{out}, p, mem)
			if got != nil {
				got.Release()
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want a corruption error", err)
			}
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("err %T is not a *CorruptError", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.reason) {
				t.Errorf("message %q lacks %q", msg, tt.reason)
			}
			wantFile := out.DataPath
			if tt.partition < 0 {
				wantFile = out.IndexPath
			}
			if !strings.Contains(msg, filepath.Base(wantFile)) || ce.File != wantFile {
				t.Errorf("message %q does not name %s", msg, wantFile)
			}
			if tt.partition >= 0 {
				if ce.Partition != tt.partition || !strings.Contains(msg, fmt.Sprintf("partition %d, offset %d", tt.partition, ce.Offset)) {
					t.Errorf("message %q: want partition %d and its offset", msg, tt.partition)
				}
				if ce.Offset < off[1] || ce.Offset >= off[2]+5 {
					t.Errorf("offset %d outside partition 1 [%d,%d)", ce.Offset, off[1], off[2])
				}
			}
			// Other partitions of a map output with a damaged block still read.
			if tt.partition >= 0 {
				got, _, err := readPartition(t, []MapOutput{out}, 3, mem)
				if err != nil {
					t.Errorf("undamaged partition 3: %v", err)
				}
				if got != nil {
					got.Release()
				}
			}
		})
	}
}

func TestMissingFiles(t *testing.T) {
	mem := checkedMem(t)
	dir := t.TempDir()
	out, _ := writeSample(t, dir, LZ4)
	os.Remove(out.IndexPath)
	if _, _, err := readPartition(t, []MapOutput{out}, 0, mem); err == nil || !strings.Contains(err.Error(), "index") {
		t.Errorf("missing index: %v", err)
	}
	if _, _, err := readPartition(t, []MapOutput{{DataPath: filepath.Join(dir, "nope")}}, 0, mem); err == nil {
		t.Error("missing data: no error")
	}
}
