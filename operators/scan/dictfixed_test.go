package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/hados-io/hados/operators/types"
)

// fixedCols are the columns of fixedRecord as the scan requests them.
var fixedCols = []Column{
	{Name: "id", Type: types.LongType},
	{Name: "i32", Type: types.IntType, Nullable: true},
	{Name: "i64", Type: types.LongType, Nullable: true},
	{Name: "d", Type: types.DateType, Nullable: true},
	{Name: "dec9", Type: types.DecimalOf(9, 2), Nullable: true},
	{Name: "dec15", Type: types.DecimalOf(15, 2), Nullable: true},
	{Name: "ts", Type: types.TimestampType, Nullable: true},
	{Name: "tsms", Type: types.TimestampType, Nullable: true},
	{Name: "f32", Type: types.FloatType, Nullable: true},
	{Name: "f64", Type: types.DoubleType, Nullable: true},
	{Name: "t8", Type: types.ByteType, Nullable: true},
	{Name: "t16", Type: types.ShortType, Nullable: true},
	{Name: "req", Type: types.LongType},
	{Name: "hi", Type: types.LongType, Nullable: true},
	{Name: "allnull", Type: types.IntType, Nullable: true},
}

// fixedRecord has fixed-width columns of every type the scan decodes from
// dictionary pages itself (dictfixed.go), of few distinct values (some
// negative, some more than 2^16 apart) with nulls in runs and scattered, a
// required one, a column of unique values whose dictionary overflows a
// small dictionary page limit, and one of nulls only.
func fixedRecord(mem memory.Allocator, n int, seed uint64) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "dec9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "dec15", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "tsms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "t8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "t16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "req", Type: arrow.PrimitiveTypes.Int64},
		{Name: "hi", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "allnull", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	rng := newRand(seed)
	nullRun := 0
	for i := range n {
		if nullRun == 0 && rng.IntN(40) == 0 {
			nullRun = 1 + rng.IntN(30) // a run of nulls in every nullable column
		}
		null := func(p int) bool { return nullRun > 0 || rng.IntN(p) == 0 }
		k := rng.IntN(13) // the value's rank, few distinct
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		appendOr(b.Field(1), null(9), func(x array.Builder) { x.(*array.Int32Builder).Append(int32(k*100003 - 600000)) })
		appendOr(b.Field(2), null(5), func(x array.Builder) { x.(*array.Int64Builder).Append(int64(k)<<40 - 3) })
		appendOr(b.Field(3), null(7), func(x array.Builder) { x.(*array.Date32Builder).Append(arrow.Date32(8000 + rng.IntN(2600))) })
		appendOr(b.Field(4), null(6), func(x array.Builder) {
			x.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(k*12345 - 70000)))
		})
		appendOr(b.Field(5), null(4), func(x array.Builder) {
			x.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(k)*99999999 - 500000000))
		})
		appendOr(b.Field(6), null(8), func(x array.Builder) { x.(*array.TimestampBuilder).Append(arrow.Timestamp(int64(k)*1e9 - 5e9)) })
		appendOr(b.Field(7), null(8), func(x array.Builder) { x.(*array.TimestampBuilder).Append(arrow.Timestamp(int64(k)*1500 - 7001)) })
		appendOr(b.Field(8), null(8), func(x array.Builder) {
			x.(*array.Float32Builder).Append([]float32{0, -1.5, 3.25, float32(math.NaN()), float32(math.Inf(1))}[k%5])
		})
		appendOr(b.Field(9), null(8), func(x array.Builder) {
			x.(*array.Float64Builder).Append([]float64{0, -2.5, 1e300, math.NaN(), math.Inf(-1), math.Copysign(0, -1)}[k%6])
		})
		appendOr(b.Field(10), null(8), func(x array.Builder) { x.(*array.Int8Builder).Append(int8(k*20 - 128)) })
		appendOr(b.Field(11), null(8), func(x array.Builder) { x.(*array.Int16Builder).Append(int16(k*5000 - 32768)) })
		b.Field(12).(*array.Int64Builder).Append(int64(i % 3))
		appendOr(b.Field(13), null(10), func(x array.Builder) { x.(*array.Int64Builder).Append(int64(i)*7919 + rng.Int64N(1000)) })
		b.Field(14).AppendNull()
		if nullRun > 0 {
			nullRun--
		}
	}
	return b.NewRecordBatch()
}

// fixedLayouts are the ways TestDictFixed writes fixedRecord.
func fixedLayouts() []struct {
	name  string
	props []parquet.WriterProperty
} {
	return []struct {
		name  string
		props []parquet.WriterProperty
	}{
		{"v1", nil},
		{"v1-decint", []parquet.WriterProperty{parquet.WithStoreDecimalAsInteger(true)}},
		{"v2-snappy", []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy)}},
		{"v2-zstd-decint", []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithStoreDecimalAsInteger(true)}},
		{"v1-fallback", []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(512)}},
		{"v1-dict-then-plain", []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(2048), parquet.WithDataPageSize(256), parquet.WithBatchSize(32)}},
		{"v2-dict-then-plain", []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(2048), parquet.WithDataPageSize(256), parquet.WithBatchSize(32),
			parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithStoreDecimalAsInteger(true)}},
		{"v1-bigpages", []parquet.WriterProperty{parquet.WithDataPageSize(1 << 20), parquet.WithBatchSize(1024)}},
	}
}

// TestDictFixed checks that the scan's own decoding of dictionary-encoded
// fixed-width chunks (dictfixed.go) gives row for row what pqarrow's gives,
// for every type it takes, data page v1 and v2, codecs, decimals as
// FIXED_LEN_BYTE_ARRAY and as integers, chunks that fell back to plain,
// with and without row ranges, batch sizes and parallelism; and that it is
// taken.
func TestDictFixed(t *testing.T) {
	dir := t.TempDir()
	rec := fixedRecord(memory.DefaultAllocator, 3000, 31)
	defer rec.Release()
	common := []parquet.WriterProperty{
		parquet.WithMaxRowGroupLength(1100), parquet.WithDataPageSize(700), parquet.WithBatchSize(64),
		parquet.WithDictionaryDefault(true), parquet.WithStats(true), parquet.WithPageIndexEnabled(true),
	}
	defer func() { ownFixedDicts, ownFixedPlain = true, true }()
	filters := [][]Filter{nil, {Or{And{GreaterThan{"id", int64(400)}, LessThan{"id", int64(900)}}, GreaterThan{"id", int64(2300)}}}}
	for _, l := range fixedLayouts() {
		path := filepath.Join(dir, l.name+".parquet")
		writeFile(t, path, rec, append(append([]parquet.WriterProperty{}, common...), l.props...)...)
		for fi, fs := range filters {
			base := Options{Files: []string{path}, Columns: fixedCols, Filters: fs}
			ownFixedDicts = false
			base.Alloc = testAlloc(t)
			want, _ := scanAll(t, base)
			if len(want) == 0 {
				t.Fatal("no rows")
			}
			ownFixedDicts = true
			for _, plain := range []bool{true, false} {
				ownFixedPlain = plain
				name := fmt.Sprintf("%s/filter%d/plain=%t", l.name, fi, plain)
				before := ownFixedChunks.Load()
				checkVariants(t, want, base, []int{1, 3}, testAlloc, func(t *testing.T, o Options) ([]string, int64) {
					rows, _ := scanAll(t, o)
					return rows, 1
				}, true, name)
				// Without row ranges the scan's own decoder takes the
				// dictionary-encoded chunks (with them, those of row
				// groups the ranges keep whole).
				if used := ownFixedChunks.Load() - before; fi == 0 && used == 0 {
					t.Errorf("%s: own fixed-width decoding not used", name)
				}
			}
		}
	}
}

// TestDictFixedTaken checks which columns of a file the scan decodes
// itself: every fixed-width column whose chunks are wholly dictionary
// encoded (not allnull: no dictionary page; not id: plain), and, when
// ownFixedPlain is on, a chunk whose writer fell back from dictionary to
// plain pages part way (id in the second file).
func TestDictFixedTaken(t *testing.T) {
	rec := fixedRecord(memory.DefaultAllocator, 2000, 3)
	defer rec.Release()
	defer func() { ownFixedPlain = true }()
	for _, c := range []struct {
		props         []parquet.WriterProperty
		plain, nodict string
	}{
		{[]parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(2048), parquet.WithMaxRowGroupLength(1000)},
			"[i32 i64 dec9 dec15 ts tsms f32 f64 t8 t16 req]", "[i32 i64 dec9 dec15 ts tsms f32 f64 t8 t16 req]"},
		{[]parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(2048), parquet.WithMaxRowGroupLength(2000),
			parquet.WithDataPageSize(256), parquet.WithBatchSize(32)}, "[id req]", "[req]"},
	} {
		path := filepath.Join(t.TempDir(), "f.parquet")
		writeFile(t, path, rec, append([]parquet.WriterProperty{parquet.WithDictionaryDefault(true)}, c.props...)...)
		s := mustOpen(t, Options{Files: []string{path}, Columns: fixedCols, Alloc: testAlloc(t)})
		s.Close() // its workers read the switch: only the footer is needed here
		f := s.splits[0].file
		for _, plain := range []bool{true, false} {
			ownFixedPlain = plain
			var got []string
			for _, c := range s.out {
				if ownFixedLeaf(f, 0, f.schema.lookup(c.Name), c.arrow) {
					got = append(got, c.Name)
				}
			}
			want := c.plain
			if !plain {
				want = c.nodict
			}
			if fmt.Sprint(got) != want {
				t.Errorf("plain fallback %t: own fixed-width columns %v, want %s", plain, got, want)
			}
		}
	}
}

// fixedSeed is a small file of fixedRecord for FuzzDictPages.
func fixedSeed(t testing.TB, dir, name string, props ...parquet.WriterProperty) []byte {
	return pagesSeed(t, fixedRecord, dir, name, props...)
}

// TestDictFixedMutations runs FuzzDictPages' body over random mutations of
// files of fixed-width dictionary columns.
func TestDictFixedMutations(t *testing.T) {
	dir := t.TempDir()
	seeds := [][]byte{
		fixedSeed(t, dir, "v1"),
		fixedSeed(t, dir, "v2-snappy-decint", parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithStoreDecimalAsInteger(true)),
	}
	mutateSeeds(t, seeds, 29)
}

// encodeHybrid encodes vals (each below 1<<w) in Parquet's RLE/bit-packed
// hybrid encoding, in random runs of both kinds.
func encodeHybrid(rng interface{ IntN(int) int }, w int, vals []uint32) []byte {
	var data []byte
	for i := 0; i < len(vals); {
		if rng.IntN(3) == 0 { // an RLE run of the next value
			v := vals[i]
			j := i
			for j < len(vals) && vals[j] == v {
				j++
			}
			data = binary.AppendUvarint(data, uint64(j-i)<<1)
			for b := 0; b < (w+7)/8; b++ {
				data = append(data, byte(v>>(8*b)))
			}
			i = j
			continue
		}
		groups := 1 + rng.IntN(40)
		data = binary.AppendUvarint(data, uint64(groups)<<1|1)
		packed := make([]byte, groups*w)
		for j := 0; j < groups*8 && i+j < len(vals); j++ {
			for b := 0; b < w; b++ {
				if vals[i+j]>>uint(b)&1 == 1 {
					bit := j*w + b
					packed[bit/8] |= 1 << uint(bit%8)
				}
			}
		}
		data = append(data, packed...)
		i += groups * 8
	}
	return data
}

// TestGatherIdxRandom decodes random index streams of every width 0–32
// through gatherIdx (the fused path for widths up to 16 and the general
// one) in random chunk sizes, against a plain lookup, and checks that an
// index outside the dictionary is an error.
func TestGatherIdxRandom(t *testing.T) {
	rng := newRand(41)
	for trial := 0; trial < 1500; trial++ {
		w := trial % 33
		// A dictionary of n values, n <= 1<<w; sometimes an index past it.
		maxN := 1 << min(w, 18)
		n := 1 + rng.IntN(maxN)
		bad := w > 0 && n < 1<<w && rng.IntN(4) == 0
		cnt := 1 + rng.IntN(3000)
		vals := make([]uint32, cnt)
		for i := range vals {
			if rng.IntN(3) == 0 && i > 0 {
				vals[i] = vals[i-1]
			} else {
				vals[i] = uint32(rng.IntN(n))
			}
		}
		badAt := -1
		if bad {
			badAt = rng.IntN(cnt)
			vals[badAt] = uint32(n + rng.IntN(1<<w-n))
		}
		fd := &fixedDict{n: n, width: 8}
		padded := n
		if n > 1 && n <= 1<<16 {
			padded = 1 << bits.Len(uint(n-1))
		}
		dict := make([]uint64, padded)
		for i := range n {
			dict[i] = rng.Uint64()
		}
		c := &dictColumn{name: "x", fx: fd}
		c.idx.reset(encodeHybrid(rng, w, vals), w)
		out := make([]uint64, cnt)
		var err error
		for i := 0; i < cnt && err == nil; {
			m := min(1+rng.IntN(700), cnt-i)
			err = gatherIdx(c, dict, out[i:i+m])
			i += m
		}
		if bad {
			if err == nil || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("trial %d (width %d, %d values): index %d past a dictionary of %d: err %v", trial, w, cnt, vals[badAt], n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("trial %d (width %d): %v", trial, w, err)
		}
		for i, v := range vals {
			if out[i] != dict[v] {
				t.Fatalf("trial %d (width %d): value %d is %#x, want dict[%d] = %#x", trial, w, i, out[i], v, dict[v])
			}
		}
	}
}

// TestPlainValsMatchDict checks that the PLAIN pages of a chunk that fell
// back from dictionary encoding decode to the values the same bytes give
// as a dictionary page (whose decoding the file tests compare with
// pqarrow's), for every conversion: widened INT32 decimals, narrowed
// integers, FIXED_LEN_BYTE_ARRAY decimals of 1–16 bytes, timestamps in
// milliseconds, and the copies.
func TestPlainValsMatchDict(t *testing.T) {
	rng := newRand(43)
	ms := func(v int64) int64 { return v * 1000 }
	id := func(v int64) int64 { return v }
	cases := []struct {
		name string
		fd   fixedDict
	}{
		{"int32", fixedDict{phys: parquet.Types.Int32, width: 4, conv: id, copyable: true}},
		{"int32-dec", fixedDict{phys: parquet.Types.Int32, width: 8, conv: id}},
		{"int8", fixedDict{phys: parquet.Types.Int32, width: 1, conv: id}},
		{"int16", fixedDict{phys: parquet.Types.Int32, width: 2, conv: id}},
		{"int64", fixedDict{phys: parquet.Types.Int64, width: 8, conv: id, copyable: true}},
		{"ts-millis", fixedDict{phys: parquet.Types.Int64, width: 8, conv: ms}},
		{"float", fixedDict{phys: parquet.Types.Float, width: 4, conv: id, copyable: true}},
		{"double", fixedDict{phys: parquet.Types.Double, width: 8, conv: id, copyable: true}},
	}
	for l := 1; l <= 16; l++ {
		cases = append(cases, struct {
			name string
			fd   fixedDict
		}{fmt.Sprintf("flba%d", l), fixedDict{phys: parquet.Types.FixedLenByteArray, flba: l, width: 8, conv: id}})
	}
	for _, tc := range cases {
		fd := tc.fd
		n := 1 + rng.IntN(300)
		data := make([]byte, n*fd.size())
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		c := &dictColumn{name: tc.name, fx: &fd}
		if err := c.setFixedDict(data, n); err != nil {
			t.Fatal(err)
		}
		check := func(got, want any) {
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: plain %v, dictionary %v", tc.name, got, want)
			}
		}
		fd.plain = data
		switch fd.width {
		case 1:
			out := make([]uint8, n)
			if err := plainVals(c, out); err != nil {
				t.Fatal(err)
			}
			check(out, fd.d8[:n])
		case 2:
			out := make([]uint16, n)
			if err := plainVals(c, out); err != nil {
				t.Fatal(err)
			}
			check(out, fd.d16[:n])
		case 4:
			out := make([]uint32, n)
			if err := plainVals(c, out); err != nil {
				t.Fatal(err)
			}
			check(out, fd.d32[:n])
		default:
			out := make([]uint64, n)
			if err := plainVals(c, out); err != nil {
				t.Fatal(err)
			}
			check(out, fd.d64[:n])
		}
		// Past the page's values: an error.
		if err := plainVals(c, make([]uint64, 1)); err == nil || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: no error past the page: %v", tc.name, err)
		}
	}
	// A FIXED_LEN_BYTE_ARRAY decimal's low 64 bits, sign-extended.
	fd := fixedDict{phys: parquet.Types.FixedLenByteArray}
	for _, c := range []struct {
		b    []byte
		want int64
	}{{[]byte{0xff}, -1}, {[]byte{0x80, 0}, -32768}, {[]byte{0x01, 0x00, 0x00}, 65536},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02}, 258},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, -2}} {
		if got := fd.raw(c.b); got != c.want {
			t.Errorf("raw(%x) = %d, want %d", c.b, got, c.want)
		}
	}
}
