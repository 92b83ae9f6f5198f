package scan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/hados-io/hados/operators/types"
)

// dictPagesSeed is a small file of dictionary-encoded string columns
// (dictRecord: nullable, required, empty strings) in data pages of the
// given version and codec.
func dictPagesSeed(t testing.TB, dir, name string, props ...parquet.WriterProperty) []byte {
	return pagesSeed(t, dictRecord, dir, name, props...)
}

// pagesSeed writes 300 rows of record (seed 5) as a small file of
// dictionary-encoded columns in many small pages and row groups and
// returns its bytes.
func pagesSeed(t testing.TB, record func(memory.Allocator, int, uint64) arrow.RecordBatch, dir, name string,
	props ...parquet.WriterProperty) []byte {
	rec := record(memory.DefaultAllocator, 300, 5)
	defer rec.Release()
	path := filepath.Join(dir, name+".parquet")
	writeFile(t, path, rec, append([]parquet.WriterProperty{parquet.WithMaxRowGroupLength(120), parquet.WithDataPageSize(96),
		parquet.WithBatchSize(16), parquet.WithDictionaryDefault(true)}, props...)...)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDictPages mutates files of dictionary-encoded string columns, of
// fixed-width ones and of PLAIN string ones, and scans them with the scan's
// own page decoding (dictpage.go, dictfixed.go, plainstr.go) and with
// pqarrow's readers: each must return rows or an error naming the file —
// never panic, hang or leak — and when both return rows, the same rows.
func FuzzDictPages(f *testing.F) {
	dir := f.TempDir()
	for _, s := range [][]byte{
		dictPagesSeed(f, dir, "v1"),
		dictPagesSeed(f, dir, "v2-snappy", parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy)),
		fixedSeed(f, dir, "fixed-v1"),
		fixedSeed(f, dir, "fixed-v2-snappy-decint", parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithStoreDecimalAsInteger(true)),
		plainSeed(f, dir, "plain-v1", parquet.WithDictionaryDefault(false)),
		plainSeed(f, dir, "plain-v2-snappy-fallback", parquet.WithDictionaryPageSizeLimit(256), parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithCompression(compress.Codecs.Snappy)),
	} {
		f.Add(s, uint32(len(s)/3), byte(0x04), uint8(1))
		f.Add(s, uint32(len(s)/2), byte(0xff), uint8(3))
		f.Add(s, uint32(200), byte(0x80), uint8(8))
	}
	f.Fuzz(func(t *testing.T, data []byte, off uint32, xor byte, n uint8) {
		mutateAndCompare(t, data, off, xor, n)
	})
}

// mutateAndCompare is FuzzDictPages' body.
func mutateAndCompare(t *testing.T, data []byte, off uint32, xor byte, n uint8) {
	// The string columns of dictRecord and the fixed-width ones of
	// fixedRecord: those a file lacks read as nulls.
	cols := append([]Column{{Name: "s", Type: types.StringType, Nullable: true}, {Name: "b", Type: types.BinaryType, Nullable: true},
		{Name: "r", Type: types.StringType, Nullable: true}}, fixedCols[1:]...)
	cols = append(cols, plainCols[1:]...) // plainstr.go's
	data = bytes.Clone(data)
	for i := 0; i < int(n) && len(data) > 0; i++ {
		data[(int(off)+i*7)%len(data)] ^= xor
	}
	path := filepath.Join(t.TempDir(), "fuzz.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	defer func() { ownDictPages, ownFixedDicts, ownPlainStr = true, true, true }()
	var rows [2][]string
	var errs [2]error
	for i, own := range []bool{true, false} {
		ownDictPages, ownFixedDicts, ownPlainStr = own, own, own
		rows[i], _, errs[i] = tryScan(Options{Files: []string{path}, Columns: cols, Alloc: testAlloc(t), Parallelism: 1, BatchRows: 50}, nil)
		if errs[i] != nil && !bytes.Contains([]byte(errs[i].Error()), []byte("fuzz.parquet")) {
			t.Errorf("own=%t: error does not name the file: %v", own, errs[i])
		}
	}
	if errs[0] == nil && errs[1] == nil && fmt.Sprint(rows[0]) != fmt.Sprint(rows[1]) {
		t.Errorf("own decoding and pqarrow's disagree (off %d xor %#x n %d):\n%v\n%v", off, xor, n, rows[0], rows[1])
	}
	// the string columns handed on as dictionaries (dictout.go): the
	// same rows as dense, or an error naming the file
	for i, own := range []bool{true, false} {
		ownDictPages, ownFixedDicts, ownPlainStr = own, own, own
		got, _, err := tryScan(Options{Files: []string{path}, Columns: cols, DictColumns: []string{"s", "b", "r"}, Alloc: testAlloc(t), Parallelism: 1, BatchRows: 50}, nil)
		if err != nil && !bytes.Contains([]byte(err.Error()), []byte("fuzz.parquet")) {
			t.Errorf("own=%t, dictionaries: error does not name the file: %v", own, err)
		}
		if err == nil && errs[i] == nil && fmt.Sprint(got) != fmt.Sprint(rows[i]) {
			t.Errorf("own=%t: dictionaries and dense disagree (off %d xor %#x n %d):\n%v\n%v", own, off, xor, n, got, rows[i])
		}
	}
}

// TestDictPagesMutations runs FuzzDictPages' body over random mutations of
// its seeds (the fuzzing engine, for this package, mostly replays its
// corpus in the time make gives it).
func TestDictPagesMutations(t *testing.T) {
	dir := t.TempDir()
	seeds := [][]byte{
		dictPagesSeed(t, dir, "v1"),
		dictPagesSeed(t, dir, "v2-snappy", parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy)),
	}
	mutateSeeds(t, seeds, 17)
}

// mutateSeeds runs mutateAndCompare over 150 random single mutations (40
// with -short, HADOS_DICT_MUTATIONS by hand) of seeds, in turn, from the
// random stream of seed.
func mutateSeeds(t *testing.T, seeds [][]byte, seed uint64) {
	iters := 150
	if testing.Short() {
		iters = 40
	}
	if v, _ := strconv.Atoi(os.Getenv("HADOS_DICT_MUTATIONS")); v > 0 { // a longer run by hand
		iters = v
	}
	rng := newRand(seed)
	for i := 0; i < iters && !t.Failed(); i++ {
		s := seeds[i%len(seeds)]
		mutateAndCompare(t, s, uint32(rng.IntN(len(s))), byte(1+rng.IntN(255)), uint8(1+rng.IntN(4)))
	}
}

// TestHybridRandom decodes random RLE/bit-packed hybrid streams (every
// width 0–32, runs of both kinds, a last bit-packed run cut short) in
// random chunk sizes and compares them with the values encoded.
func TestHybridRandom(t *testing.T) {
	rng := newRand(23)
	for trial := 0; trial < 2000; trial++ {
		w := trial % 33
		mask := uint64(1)<<uint(w) - 1
		var data []byte
		var want []int32
		runs := 1 + rng.IntN(6)
		for r := 0; r < runs; r++ {
			if rng.IntN(2) == 0 { // RLE run
				cnt := rng.IntN(40)
				v := uint32(rng.Uint64() & mask)
				data = binary.AppendUvarint(data, uint64(cnt)<<1)
				for j := 0; j < (w+7)/8; j++ {
					data = append(data, byte(v>>(8*j)))
				}
				for j := 0; j < cnt; j++ {
					want = append(want, int32(v))
				}
				continue
			}
			groups := 1 + rng.IntN(5)
			data = binary.AppendUvarint(data, uint64(groups)<<1|1)
			packed := make([]byte, groups*w)
			for j := 0; j < groups*8; j++ {
				v := rng.Uint64() & mask
				for b := 0; b < w; b++ {
					if v>>uint(b)&1 == 1 {
						bit := j*w + b
						packed[bit/8] |= 1 << uint(bit%8)
					}
				}
				want = append(want, int32(uint32(v)))
			}
			if r == runs-1 && w > 0 && rng.IntN(2) == 0 { // cut the last run short
				keep := rng.IntN(len(packed) + 1)
				packed = packed[:keep]
				want = want[:len(want)-groups*8+keep*8/w]
			}
			data = append(data, packed...)
		}
		var h hybrid
		h.reset(data, w)
		got := make([]int32, len(want))
		for i := 0; i < len(got); {
			m := min(1+rng.IntN(20), len(got)-i)
			if err := h.decode(got[i : i+m]); err != nil {
				t.Fatalf("trial %d (width %d): %v", trial, w, err)
			}
			i += m
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("trial %d (width %d): value %d is %d, want %d", trial, w, i, got[i], want[i])
			}
		}
		// Past the end: an error, not a value.
		var one [1]int32
		if err := h.decode(one[:]); err == nil && w > 0 {
			t.Fatalf("trial %d (width %d): no error past the end", trial, w)
		}
	}
}
