package scan

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/hados-io/hados/operators/types"
)

// dictRecord has string and binary columns of few distinct values (with
// nulls and the empty string), a required one, and a column of unique
// strings whose dictionary overflows a small dictionary page limit.
func dictRecord(mem memory.Allocator, n int, seed uint64) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "r", Type: arrow.BinaryTypes.String},
		{Name: "u", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	rng := newRand(seed)
	words := []string{"", "A", "N", "R", "F", "O", "longer value ✓", "x"}
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		appendOr(b.Field(1), rng.IntN(5) == 0, func(x array.Builder) {
			x.(*array.StringBuilder).Append(words[rng.IntN(len(words))])
		})
		appendOr(b.Field(2), rng.IntN(3) == 0, func(x array.Builder) {
			x.(*array.BinaryBuilder).Append([]byte(words[rng.IntN(len(words))]))
		})
		b.Field(3).(*array.StringBuilder).Append(words[i%3])
		appendOr(b.Field(4), rng.IntN(7) == 0, func(x array.Builder) {
			x.(*array.StringBuilder).Append(fmt.Sprintf("unique-%d-%d", i, rng.IntN(1000)))
		})
	}
	return b.NewRecordBatch()
}

// TestDictStrings checks that string and binary columns read through
// pqarrow's dictionary reader and expanded (dictread.go) give row for row
// what the dense reader gives: several row groups, nulls, the empty string,
// a required column, row ranges cutting records (page index), and a chunk
// whose writer fell back to plain encoding (read densely by the footer's
// decision, and through the dictionary reader when forced).
func TestDictStrings(t *testing.T) {
	dir := t.TempDir()
	rec := dictRecord(memory.DefaultAllocator, 2500, 9)
	defer rec.Release()
	common := []parquet.WriterProperty{
		parquet.WithMaxRowGroupLength(700), parquet.WithDataPageSize(512), parquet.WithBatchSize(64),
		parquet.WithDictionaryDefault(true), parquet.WithStats(true), parquet.WithPageIndexEnabled(true),
	}
	allDict := filepath.Join(dir, "dict.parquet")
	writeFile(t, allDict, rec, common...)
	fallback := filepath.Join(dir, "fallback.parquet")
	writeFile(t, fallback, rec, append(common, parquet.WithDictionaryPageSizeLimit(512))...)

	cols := []Column{
		{Name: "id", Type: types.LongType},
		{Name: "s", Type: types.StringType, Nullable: true},
		{Name: "b", Type: types.BinaryType, Nullable: true},
		{Name: "r", Type: types.StringType},
		{Name: "u", Type: types.StringType, Nullable: true},
	}
	// Which string columns each file reads as dictionaries, by the footer:
	// arrow-go's writer stores one row group of b plain (no dictionary page)
	// and, under the page size limit, falls back to plain for u.
	for _, c := range []struct {
		path string
		want []string
	}{{allDict, []string{"s", "r", "u"}}, {fallback, []string{"s", "r"}}} {
		s := mustOpen(t, Options{Files: []string{c.path}, Columns: cols, Alloc: testAlloc(t)})
		f := s.splits[0].file
		var got []string
		for _, leaf := range s.dictReadLeaves(f) {
			got = append(got, f.md.Schema.Column(leaf).Name())
		}
		s.Close()
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: dictionary-read columns %v, want %v", filepath.Base(c.path), got, c.want)
		}
	}

	// The scan's own page decoding (dictpage.go) over data page v2 and
	// each codec.
	paths := []string{allDict, fallback}
	for _, v := range []struct {
		name  string
		props []parquet.WriterProperty
	}{
		{"v2-snappy", []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy)}},
		{"v1-snappy", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy)}},
		{"v1-zstd", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd)}},
		{"v2-lz4raw", []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Lz4Raw)}},
		{"v1-gzip", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Gzip)}},
		{"v2-none", []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2)}},
	} {
		p := filepath.Join(dir, v.name+".parquet")
		writeFile(t, p, rec, append(append([]parquet.WriterProperty{}, common...), v.props...)...)
		paths = append(paths, p)
	}

	defer func() { readDictStrings, dictReadAlways, ownDictPages = true, false, true }()
	filters := [][]Filter{nil, {Or{And{GreaterThan{"id", int64(400)}, LessThan{"id", int64(900)}}, GreaterThan{"id", int64(2300)}}}}
	for _, path := range paths {
		for fi, fs := range filters {
			base := Options{Files: []string{path}, Columns: cols, Filters: fs}
			readDictStrings, dictReadAlways = false, false
			base.Alloc = testAlloc(t)
			want, _ := scanAll(t, base)
			if len(want) == 0 {
				t.Fatal("no rows")
			}
			for _, v := range []struct{ always, own bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
				readDictStrings, dictReadAlways, ownDictPages = true, v.always, v.own
				name := fmt.Sprintf("%s/filter%d/always=%t/own=%t", filepath.Base(path), fi, v.always, v.own)
				before := ownDictChunks.Load()
				checkVariants(t, want, base, []int{1, 2}, testAlloc, func(t *testing.T, o Options) ([]string, int64) {
					rows, _ := scanAll(t, o)
					return rows, 1
				}, true, name)
				// Without row ranges the scan's own decoder takes the
				// wholly dictionary-encoded chunks.
				if used := ownDictChunks.Load() > before; fi == 0 && used != v.own {
					t.Errorf("%s: own page decoding used: %t", name, used)
				}
			}
		}
	}
}

// TestExpandDictBadIndex: an index outside the dictionary is an error, not
// a crash.
func TestExpandDictBadIndex(t *testing.T) {
	mem := testAlloc(t)
	dict, _, err := array.FromJSON(mem, arrow.BinaryTypes.String, strings.NewReader(`["a","bc"]`))
	if err != nil {
		t.Fatal(err)
	}
	defer dict.Release()
	idx, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int32, strings.NewReader(`[0,1,null,2]`))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Release()
	d := array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, idx, dict)
	defer d.Release()
	if out, err := expandDict(mem, d); err == nil {
		out.Release()
		t.Fatal("no error for index 2 of a 2-value dictionary")
	}
	sl := array.NewSlice(d, 1, 3).(*array.Dictionary)
	defer sl.Release()
	out, err := expandDict(mem, sl)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if got := fmt.Sprint(out); got != `["bc" (null)]` {
		t.Errorf("got %s", got)
	}
}

// poisonAlloc hands out memory filled with 0xA5, as uninitialised device
// memory may be, so an unwritten byte shows.
type poisonAlloc struct{ *memory.CheckedAllocator }

func (p poisonAlloc) Allocate(n int) []byte {
	b := p.CheckedAllocator.Allocate(n)
	for i := range b {
		b[i] = 0xA5
	}
	return b
}

func (p poisonAlloc) Reallocate(n int, b []byte) []byte {
	old := len(b)
	b = p.CheckedAllocator.Reallocate(n, b)
	for i := old; i < len(b); i++ {
		b[i] = 0xA5
	}
	return b
}

// TestExpandDictRandom compares expandDict with a value-by-value lookup on
// random dictionaries (every value one length — 1, 2, 3, 9 bytes — or
// mixed lengths with the empty string, or only empty strings), random
// nulls, slices at odd offsets, both the one-pass and the two-pass loops,
// into poisoned memory.
func TestExpandDictRandom(t *testing.T) {
	defer func() { expandUniform, expandShort = true, true }()
	rng := newRand(71)
	for trial := 0; trial < 300; trial++ {
		checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
		mem := poisonAlloc{checked}
		var words []string
		dn := 1 + rng.IntN(6)
		switch kind := trial % 6; kind {
		case 0, 1, 2, 3:
			w := []int{1, 2, 3, 9}[kind]
			for i := 0; i < dn; i++ {
				b := make([]byte, w)
				for j := range b {
					b[j] = byte('A' + rng.IntN(26))
				}
				words = append(words, string(b))
			}
		case 4: // mixed lengths: every store width of expandShortVar, and longer
			most := []int{12, 17, 33, 60}[rng.IntN(4)]
			for i := 0; i < dn; i++ {
				b := make([]byte, rng.IntN(most))
				for j := range b {
					b[j] = byte('a' + rng.IntN(26))
				}
				words = append(words, string(b))
			}
		case 5:
			for i := 0; i < dn; i++ {
				words = append(words, "")
			}
		}
		db := array.NewStringBuilder(mem)
		db.AppendValues(words, nil)
		dict := db.NewArray()
		db.Release()
		n := 1 + rng.IntN(300)
		nullRate := []int{0, 0, 2, 5}[rng.IntN(4)]
		ib := array.NewInt32Builder(mem)
		for i := 0; i < n; i++ {
			if nullRate > 0 && rng.IntN(nullRate) == 0 {
				ib.AppendNull()
			} else {
				ib.Append(int32(rng.IntN(dn)))
			}
		}
		idx := ib.NewArray()
		ib.Release()
		full := array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, idx, dict)
		lo := rng.IntN(n)
		hi := lo + rng.IntN(n-lo+1)
		d := array.NewSlice(full, int64(lo), int64(hi)).(*array.Dictionary)
		for _, uni := range []bool{true, false} {
			expandUniform, expandShort = uni, uni
			out, err := expandDict(mem, d)
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			s := out.(*array.String)
			if s.Len() != d.Len() || s.NullN() != d.NullN() {
				t.Fatalf("trial %d: len %d nulls %d, want %d %d", trial, s.Len(), s.NullN(), d.Len(), d.NullN())
			}
			for i := 0; i < d.Len(); i++ {
				if d.IsNull(i) != s.IsNull(i) {
					t.Fatalf("trial %d uniform=%t row %d: null %t, want %t", trial, uni, i, s.IsNull(i), d.IsNull(i))
				}
				if d.IsValid(i) && s.Value(i) != words[d.GetValueIndex(i)] {
					t.Fatalf("trial %d uniform=%t row %d: %q, want %q", trial, uni, i, s.Value(i), words[d.GetValueIndex(i)])
				}
				if d.IsNull(i) && s.ValueLen(i) != 0 {
					t.Fatalf("trial %d: null row %d has %d bytes", trial, i, s.ValueLen(i))
				}
			}
			if got, want := len(s.ValueBytes()), int(s.ValueOffsets()[s.Len()]); got != want {
				t.Fatalf("trial %d: %d value bytes, offsets end at %d", trial, got, want)
			}
			out.Release()
		}
		d.Release()
		full.Release()
		idx.Release()
		dict.Release()
		checked.AssertSize(t, 0)
	}
}

// TestExpandDictBadIndexFixed: the one-pass loops for values of one length
// reject an index outside the dictionary too, with and without nulls, and
// free what they allocated.
func TestExpandDictBadIndexFixed(t *testing.T) {
	for _, dj := range []string{`["a","b"]`, `["ab","cd"]`} {
		for _, ij := range []string{`[0,1,null,2]`, `[1,0,2,0]`, `[-1]`} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			dict, _, _ := array.FromJSON(mem, arrow.BinaryTypes.String, strings.NewReader(dj))
			idx, _, _ := array.FromJSON(mem, arrow.PrimitiveTypes.Int32, strings.NewReader(ij))
			d := array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, idx, dict)
			if out, err := expandDict(mem, d); err == nil {
				out.Release()
				t.Errorf("%s[%s]: no error", dj, ij)
			} else if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s[%s]: %v, want ErrCorrupt", dj, ij, err)
			}
			d.Release()
			idx.Release()
			dict.Release()
			mem.AssertSize(t, 0)
		}
	}
}
