package codectest

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/golang/snappy"
)

// Parquet pages are what the host scan decompresses (internal/csnappy):
// PLAIN or dictionary pages of int64 keys, decimals and dates, bit-packed
// dictionary indices and strings. Their snappy blocks are mostly 1-4 byte
// literals alternating with 4-8 byte copies, the decoder's slowest shape,
// unlike the text corpora of bench_test.go. This file generates such
// pages (for CI) and, when a directory of real pages is on disk, reads
// those: files named <table>.<column>.<kind>.<n>.snappy, each one page's
// compressed body as a Parquet reader hands it to its codec. The
// directory is $HADOS_SNAPPY_PAGES, else /tmp/h19/pages; it is not
// committed (a TPC-H SF1 extraction is 150 MB).

const pagesDefaultDir = "/tmp/h19/pages"

// keysData returns n bytes of sorted int64 keys, each repeated 1..7 times
// (l_orderkey), or once each when unique (o_orderkey, a dictionary page).
func keysData(n int, seed uint64, unique bool) []byte {
	r := rand.New(rand.NewPCG(seed, 0x6b657973))
	b := make([]byte, n+8)
	k, left := uint64(1), 0
	for i := 0; i < n; i += 8 {
		if left == 0 {
			k += 1 + uint64(r.IntN(4))
			left = 1
			if !unique {
				left = 1 + r.IntN(7)
			}
		}
		left--
		binary.LittleEndian.PutUint64(b[i:], k)
	}
	return b[:n]
}

// randomKeysData returns n bytes of int64 keys drawn from [1, max]
// (l_partkey: no order, few significant bytes).
func randomKeysData(n int, seed uint64, max int64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x72616e64))
	b := make([]byte, n+8)
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], uint64(1+r.Int64N(max)))
	}
	return b[:n]
}

// datesData returns n bytes of int32 days since the epoch in TPC-H's
// range (l_shipdate as a PLAIN date page).
func datesData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0xda7e5))
	b := make([]byte, n+4)
	for i := 0; i < n; i += 4 {
		binary.LittleEndian.PutUint32(b[i:], uint32(8035+r.IntN(2526)))
	}
	return b[:n]
}

// syntheticPages are the CI stand-ins for real pages, 1 MiB each (a
// typical page size).
func syntheticPages() []corpus {
	const n = 1 << 20
	return []corpus{
		{"keys-sorted", keysData(n, 21, false)},
		{"keys-unique", keysData(n, 22, true)},
		{"keys-random", randomKeysData(n, 23, 200000)},
		{"decimal", pricesData(n, 24)},
		{"decimal-small", randomKeysData(n, 25, 11)},
		{"date", datesData(n, 26)},
	}
}

// pageKind classifies a real page by its column name.
func pageKind(column string) string {
	switch {
	case strings.HasSuffix(column, "key"):
		return "int64-keys"
	case strings.Contains(column, "date"):
		return "date"
	case strings.Contains(column, "price"), strings.Contains(column, "quantity"),
		strings.Contains(column, "discount"), strings.Contains(column, "tax"),
		strings.Contains(column, "acctbal"):
		return "decimal"
	case strings.Contains(column, "comment"), strings.Contains(column, "name"),
		strings.Contains(column, "address"):
		return "text"
	default:
		return "other"
	}
}

// realPage is one compressed page read from disk.
type realPage struct {
	name  string
	kind  string // pageKind of its column, with "-dict" for dictionary pages
	block []byte
}

// realPages reads the page directory, or returns nil when it is absent.
func realPages(tb testing.TB) []realPage {
	dir := os.Getenv("HADOS_SNAPPY_PAGES")
	if dir == "" {
		dir = pagesDefaultDir
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.snappy"))
	sort.Strings(files)
	var pages []realPage
	for _, f := range files {
		parts := strings.Split(filepath.Base(f), ".")
		if len(parts) != 5 {
			continue
		}
		block, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		kind := pageKind(parts[1])
		if parts[2] == "dict" {
			kind += "-dict"
		}
		pages = append(pages, realPage{filepath.Base(f), kind, block})
	}
	return pages
}

// TestSnappyPages decodes every synthetic page, compressed by golang/snappy
// and by our compressor, and every real page on disk with the C decoder,
// and compares with golang/snappy's decoding.
func TestSnappyPages(t *testing.T) {
	check := func(name string, block []byte) {
		t.Helper()
		want, err := snappy.Decode(nil, block)
		if err != nil {
			t.Fatalf("%s: golang/snappy: %v", name, err)
		}
		got, err := SnappyDecompress(block, len(want))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: decoded bytes differ from golang/snappy's", name)
		}
	}
	for _, c := range syntheticPages() {
		check(c.name+"/golang", snappy.Encode(nil, c.data))
		ours, err := SnappyCompress(c.data)
		if err != nil {
			t.Fatal(err)
		}
		check(c.name+"/hados", ours)
	}
	pages := realPages(t)
	if len(pages) == 0 {
		t.Logf("no real pages in $HADOS_SNAPPY_PAGES or %s: synthetic pages only", pagesDefaultDir)
	}
	for _, p := range pages {
		check(p.name, p.block)
	}
}

// pageSet is a benchmark input: several blocks decoded as one unit.
type pageSet struct {
	name   string
	blocks [][]byte
	raw    int // total decoded bytes
}

func pageSets(b *testing.B) []pageSet {
	var sets []pageSet
	for _, c := range syntheticPages() {
		sets = append(sets, pageSet{"synthetic-" + c.name, [][]byte{snappy.Encode(nil, c.data)}, len(c.data)})
	}
	byKind := map[string]*pageSet{}
	var kinds []string
	all := &pageSet{name: "real-all"}
	for _, p := range realPages(b) {
		n, err := snappy.DecodedLen(p.block)
		if err != nil {
			b.Fatal(err)
		}
		s := byKind[p.kind]
		if s == nil {
			s = &pageSet{name: "real-" + p.kind}
			byKind[p.kind] = s
			kinds = append(kinds, p.kind)
		}
		for _, t := range []*pageSet{s, all} {
			t.blocks = append(t.blocks, p.block)
			t.raw += n
		}
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		sets = append(sets, *byKind[k])
	}
	if all.raw > 0 {
		sets = append(sets, *all)
	}
	return sets
}

// BenchmarkSnappyPages decodes Parquet-page-shaped blocks (synthetic, and
// real ones by kind when on disk) with golang/snappy and with ours, in the
// same run; x_go is our speed over golang/snappy's. Reproduce:
//
//	go test -run '^$' -bench SnappyPages ./device/soft/internal/codectest/
func BenchmarkSnappyPages(b *testing.B) {
	for _, s := range pageSets(b) {
		maxRaw := 0
		for _, blk := range s.blocks {
			n, _ := snappy.DecodedLen(blk)
			maxRaw = max(maxRaw, n)
		}
		dst := make([]byte, maxRaw)
		each := func(op benchOp) benchOp {
			return func(dst, _ []byte) error {
				for _, blk := range s.blocks {
					if err := op(dst, blk); err != nil {
						return err
					}
				}
				return nil
			}
		}
		var goMBs float64
		b.Run(s.name+"/golang", func(b *testing.B) {
			goMBs = runOp(b, each(func(dst, in []byte) error { _, err := snappy.Decode(dst, in); return err }),
				dst, nil, s.raw)
		})
		b.Run(s.name+"/hados", func(b *testing.B) {
			mbs := runOp(b, each(func(dst, in []byte) error { return ignoreN(SnappyDecompressInto(dst, in)) }),
				dst, nil, s.raw)
			if goMBs > 0 {
				b.ReportMetric(mbs/goMBs, "x_go")
			}
		})
	}
}
