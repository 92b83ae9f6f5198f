package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// thriftStruct writes Thrift compact-protocol structs for the tests.
type thriftStruct struct {
	b    []byte
	last int16
}

func (w *thriftStruct) field(id int16, typ byte) {
	if d := id - w.last; d > 0 && d <= 15 {
		w.b = append(w.b, byte(d)<<4|typ)
	} else {
		w.b = append(w.b, typ)
		w.b = binary.AppendUvarint(w.b, uint64(uint16(id<<1^id>>15)))
	}
	w.last = id
}

func (w *thriftStruct) i32(id int16, v int32) *thriftStruct {
	w.field(id, 5)
	w.b = binary.AppendUvarint(w.b, uint64(uint32(v<<1^v>>31)))
	return w
}

func (w *thriftStruct) raw(id int16, typ byte, v ...byte) *thriftStruct {
	w.field(id, typ)
	w.b = append(w.b, v...)
	return w
}

func (w *thriftStruct) sub(id int16, s *thriftStruct) *thriftStruct {
	w.field(id, 12)
	w.b = append(w.b, s.end()...)
	return w
}

func (w *thriftStruct) end() []byte { return append(w.b, 0) }

// dataPageHeader is a DATA_PAGE header with statistics (a nested struct
// with binary fields) and a crc, as writers emit them.
func dataPageHeader(uncompressed, compressed, values int32) []byte {
	stats := (&thriftStruct{}).raw(3, 6, 0).raw(5, 8, 2, 'a', 'b').raw(6, 8, 1, 'z') // null_count (i64), max_value, min_value
	dph := (&thriftStruct{}).i32(1, values).i32(2, 0).i32(3, 3).i32(4, 3).sub(5, stats)
	return (&thriftStruct{}).i32(1, pageTypeData).i32(2, uncompressed).i32(3, compressed).i32(4, -12345).sub(5, dph).end()
}

func TestParsePageHeader(t *testing.T) {
	dict := (&thriftStruct{}).i32(1, 40).i32(2, 0).raw(3, 1) // is_sorted true
	cases := []struct {
		name                string
		b                   []byte
		typ, unc, comp, num int32
		err                 bool
	}{
		{"data page", dataPageHeader(1000, 600, 70), pageTypeData, 1000, 600, 70, false},
		{"dictionary page", (&thriftStruct{}).i32(1, pageTypeDictionary).i32(2, 320).i32(3, 200).sub(7, dict).end(), pageTypeDictionary, 320, 200, 0, false},
		{"long field id", (&thriftStruct{}).i32(1, 0).i32(2, 9).i32(3, 9).i32(100, 1).end(), 0, 9, 9, 0, false},
		{"list and map skipped", (&thriftStruct{}).i32(1, 0).i32(2, 9).i32(3, 9).raw(20, 9, 0x35, 2, 4, 6).raw(21, 11, 1, 0x55, 2, 4).raw(22, 9, 0x21, 1, 2).end(), 0, 9, 9, 0, false},
		{"truncated", dataPageHeader(1000, 600, 70)[:9], 0, 0, 0, 0, true},
		{"no compressed size", (&thriftStruct{}).i32(1, 0).i32(2, 9).end(), 0, 0, 0, 0, true},
		{"negative size", (&thriftStruct{}).i32(1, 0).i32(2, 9).i32(3, -1).end(), 0, 0, 0, 0, true},
		{"unknown type", (&thriftStruct{}).i32(1, 0).raw(2, 13).end(), 0, 0, 0, 0, true},
		{"huge list", (&thriftStruct{}).i32(1, 0).raw(2, 9, 0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f).end(), 0, 0, 0, 0, true},
		{"deep nesting", append([]byte{0x1c}, bytes.Repeat([]byte{0x1c}, 100)...), 0, 0, 0, 0, true},
		{"i32 overflow", (&thriftStruct{}).i32(1, 0).raw(2, 5, 0xff, 0xff, 0xff, 0xff, 0x7f).end(), 0, 0, 0, 0, true},
		{"empty", nil, 0, 0, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := parsePageHeader(append(c.b, 0xee, 0xee)) // payload follows the header
			if c.err {
				if !errors.Is(err, errPageHeader) {
					t.Fatalf("got %+v, %v; want a header error", h, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.typ != c.typ || h.uncompressed != c.unc || h.compressed != c.comp || h.numValues != c.num || h.len != len(c.b) {
				t.Fatalf("got %+v", h)
			}
			checkRewrite(t, c.b, h)
		})
	}
}

// checkRewrite: a header rewritten with its uncompressed size as its
// compressed size parses to the same header but for that field.
func checkRewrite(t *testing.T, b []byte, h pageHeader) {
	t.Helper()
	out := h.withCompressedSize(b[:h.len], h.uncompressed)
	r, err := parsePageHeader(out)
	if err != nil {
		t.Fatalf("rewritten header: %v", err)
	}
	if r.typ != h.typ || r.uncompressed != h.uncompressed || r.compressed != h.uncompressed || r.numValues != h.numValues || r.len != len(out) {
		t.Fatalf("rewritten %+v from %+v", r, h)
	}
}

// TestPageHeadersOfRealChunks: walking the column chunks of files arrow-go
// writes finds the pages its own reader finds, with their value counts.
func TestPageHeadersOfRealChunks(t *testing.T) {
	dir := t.TempDir()
	for _, codec := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Zstd} {
		path := filepath.Join(dir, codec.String()+".parquet")
		inflateFile(t, path, parquet.WithCompression(codec), parquet.WithStats(true))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		md := r.MetaData()
		for rg := 0; rg < md.NumRowGroups(); rg++ {
			for col := 0; col < md.NumColumns(); col++ {
				cc, _ := md.RowGroup(rg).ColumnChunk(col)
				start := cc.DataPageOffset()
				if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 {
					start = min(start, cc.DictionaryPageOffset())
				}
				chunk := data[start : start+cc.TotalCompressedSize()]
				var pages int
				var values int64
				for pos := 0; pos < len(chunk); pages++ {
					h, err := parsePageHeader(chunk[pos:])
					if err != nil {
						t.Fatalf("%s rg %d col %d page %d: %v", codec, rg, col, pages, err)
					}
					checkRewrite(t, chunk[pos:], h)
					values += int64(h.numValues)
					pos += h.len + int(h.compressed)
				}
				pr, err := r.RowGroup(rg).GetColumnPageReader(col)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for pr.Next() {
					n++
				}
				if pages != n || values != cc.NumValues() {
					t.Errorf("%s rg %d col %d: %d pages, %d values; reader %d pages, metadata %d values", codec, rg, col, pages, values, n, cc.NumValues())
				}
			}
		}
		r.Close()
	}
}

// FuzzPageHeader: any bytes parse to a header or an error, never a panic;
// a parsed header lies within the bytes and rewrites consistently.
func FuzzPageHeader(f *testing.F) {
	f.Add(dataPageHeader(1000, 600, 70))
	f.Add((&thriftStruct{}).i32(1, pageTypeDictionary).i32(2, 320).i32(3, 200).sub(7, (&thriftStruct{}).i32(1, 40).i32(2, 0)).end())
	f.Add((&thriftStruct{}).i32(1, 0).i32(2, 9).i32(3, 9).raw(20, 9, 0x35, 2, 4, 6).raw(21, 11, 1, 0x55, 2, 4).end())
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parsePageHeader(b)
		if err != nil {
			return
		}
		if h.len > len(b) || h.sizeAt[0] >= h.sizeAt[1] || h.sizeAt[1] > h.len {
			t.Fatalf("header %+v out of %d bytes", h, len(b))
		}
		checkRewrite(t, b, h)
	})
}
