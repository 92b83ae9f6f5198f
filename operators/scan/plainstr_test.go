package scan

import (
	"encoding/binary"
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

// plainCols are the columns of plainRecord as the scan requests them.
var plainCols = []Column{
	{Name: "id", Type: types.LongType},
	{Name: "p0", Type: types.StringType, Nullable: true},
	{Name: "p10", Type: types.StringType, Nullable: true},
	{Name: "p100", Type: types.StringType, Nullable: true},
	{Name: "bin", Type: types.BinaryType, Nullable: true},
	{Name: "preq", Type: types.StringType},
	{Name: "fb", Type: types.StringType, Nullable: true},
	{Name: "phone", Type: types.StringType, Nullable: true},
}

// plainRecord has string and binary columns of many distinct values
// (written PLAIN, or dictionary encoded until the dictionary page limit):
// no nulls, a tenth null in runs and scattered, all null; binary values of
// any byte up to a few hundred bytes; a required column; a column of few
// distinct values then unique ones (a writer's fallback part way); short
// values of 15 bytes (c_phone's); and empty strings.
func plainRecord(mem memory.Allocator, n int, seed uint64) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "p0", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "p10", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "p100", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "preq", Type: arrow.BinaryTypes.String},
		{Name: "fb", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "phone", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	rng := newRand(seed)
	word := func(maxLen int) string {
		l := rng.IntN(maxLen + 1)
		var sb strings.Builder
		for range l {
			sb.WriteByte(byte('a' + rng.IntN(26)))
		}
		return sb.String()
	}
	nullRun := 0
	for i := range n {
		if nullRun == 0 && rng.IntN(60) == 0 {
			nullRun = 1 + rng.IntN(20)
		}
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%d-%s", i, word(40)))
		appendOr(b.Field(2), nullRun > 0 || rng.IntN(20) == 0, func(x array.Builder) {
			x.(*array.StringBuilder).Append(word(3 + rng.IntN(2)*60))
		})
		b.Field(3).AppendNull()
		appendOr(b.Field(4), rng.IntN(10) == 0, func(x array.Builder) {
			v := make([]byte, rng.IntN(300))
			for j := range v {
				v[j] = byte(rng.Uint32())
			}
			x.(*array.BinaryBuilder).Append(v)
		})
		b.Field(5).(*array.StringBuilder).Append(word(20))
		appendOr(b.Field(6), rng.IntN(8) == 0, func(x array.Builder) {
			if i < n/3 {
				x.(*array.StringBuilder).Append([]string{"", "AIR", "MAIL", "longer value ✓"}[rng.IntN(4)])
			} else {
				x.(*array.StringBuilder).Append(fmt.Sprintf("unique-%d-%s", i, word(10)))
			}
		})
		appendOr(b.Field(7), nullRun > 0, func(x array.Builder) {
			x.(*array.StringBuilder).Append(fmt.Sprintf("%02d-%03d-%03d-%04d", 10+rng.IntN(25), rng.IntN(1000), rng.IntN(1000), rng.IntN(10000)))
		})
		if nullRun > 0 {
			nullRun--
		}
	}
	return b.NewRecordBatch()
}

// plainLayouts are the ways TestPlainStrings writes plainRecord.
func plainLayouts() []struct {
	name  string
	props []parquet.WriterProperty
} {
	return []struct {
		name  string
		props []parquet.WriterProperty
	}{
		{"v1-plain", []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
		{"v1-snappy-plain", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Snappy)}},
		{"v2-plain", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2)}},
		{"v2-zstd-plain", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithCompression(compress.Codecs.Zstd)}},
		{"v1-gzip-plain", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Gzip)}},
		{"v1-fallback", []parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(512)}},
		{"v2-snappy-fallback", []parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(1024),
			parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy)}},
		{"v1-bigpages", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(1 << 20), parquet.WithBatchSize(1024)}},
	}
}

// TestPlainStrings checks that the scan's own decoding of string chunks
// with PLAIN pages (plainstr.go) gives row for row what pqarrow's gives:
// utf8 and binary, nulls none/some/all, a required column, data page v1
// and v2, codecs, chunks that fall back from dictionary to PLAIN part way,
// with and without row ranges, batch sizes (values spanning pages) and
// parallelism; that its arrays are valid; and that it is taken.
func TestPlainStrings(t *testing.T) {
	dir := t.TempDir()
	rec := plainRecord(memory.DefaultAllocator, 3000, 37)
	defer rec.Release()
	common := []parquet.WriterProperty{
		parquet.WithMaxRowGroupLength(1100), parquet.WithDataPageSize(700), parquet.WithBatchSize(64),
		parquet.WithStats(true), parquet.WithPageIndexEnabled(true),
	}
	defer func() { ownPlainStr = true }()
	filters := [][]Filter{nil, {Or{And{GreaterThan{"id", int64(400)}, LessThan{"id", int64(900)}}, GreaterThan{"id", int64(2300)}}}}
	for _, l := range plainLayouts() {
		path := filepath.Join(dir, l.name+".parquet")
		writeFile(t, path, rec, append(append([]parquet.WriterProperty{}, common...), l.props...)...)
		for fi, fs := range filters {
			base := Options{Files: []string{path}, Columns: plainCols, Filters: fs}
			ownPlainStr = false
			base.Alloc = testAlloc(t)
			want, _ := scanAll(t, base)
			if len(want) == 0 {
				t.Fatal("no rows")
			}
			ownPlainStr = true
			name := fmt.Sprintf("%s/filter%d", l.name, fi)
			before := ownPlainChunks.Load()
			checkVariants(t, want, base, []int{1, 3}, testAlloc, func(t *testing.T, o Options) ([]string, int64) {
				return scanValid(t, o), 1
			}, true, name)
			if used := ownPlainChunks.Load() - before; fi == 0 && used == 0 {
				t.Errorf("%s: own PLAIN string decoding not used", name)
			}
		}
	}
}

// scanValid scans opt, checking every string and binary array in full
// (offsets within the values, monotonic), and returns the rows.
func scanValid(t *testing.T, opt Options) []string {
	t.Helper()
	s := mustOpen(t, opt)
	defer s.Close()
	var rows []string
	each(t, s, func(rec arrow.RecordBatch) {
		for i, c := range rec.Columns() {
			var err error
			switch a := c.(type) {
			case *array.String:
				err = a.ValidateFull()
			case *array.Binary:
				err = a.ValidateFull()
			}
			if err != nil {
				t.Fatalf("column %s: %v", rec.ColumnName(i), err)
			}
		}
		for i := range int(rec.NumRows()) {
			rows = append(rows, rowString(rec, i))
		}
	})
	return rows
}

// plainSeed is a small file of plainRecord for FuzzDictPages.
func plainSeed(t testing.TB, dir, name string, props ...parquet.WriterProperty) []byte {
	return pagesSeed(t, plainRecord, dir, name, props...)
}

// TestPlainStringsMutations runs FuzzDictPages' body over random mutations
// of files of PLAIN (and fallen-back) string columns.
func TestPlainStringsMutations(t *testing.T) {
	dir := t.TempDir()
	seeds := [][]byte{
		plainSeed(t, dir, "v1-plain", parquet.WithDictionaryDefault(false)),
		plainSeed(t, dir, "v2-snappy-fallback", parquet.WithDictionaryPageSizeLimit(256), parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithCompression(compress.Codecs.Snappy)),
	}
	mutateSeeds(t, seeds, 47)
}

// TestPlainRunBad feeds plainRun pages whose values are cut short, run past
// the page or have negative lengths, and batches of more than 2 GiB: each
// an error wrapping ErrCorrupt naming the column, never a panic.
func TestPlainRunBad(t *testing.T) {
	val := func(l uint32, body string) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, l), body...)
	}
	cases := []struct {
		name string
		page []byte
		n    int
		want string
	}{
		{"truncated length", append(val(3, "abc"), 1, 0), 2, "ends before its values"},
		{"past the page", append(val(3, "abc"), val(10, "xyz")...), 2, "runs past its page"},
		{"negative", append(val(3, "abc"), val(0x80000001, "xyz")...), 2, "negative length"},
		{"fewer values", val(3, "abc"), 2, "ends before its values"},
	}
	for _, tc := range cases {
		c := &dictColumn{name: "col", typ: arrow.BinaryTypes.String, ps: &plainStr{avg: 4, isPlain: true, data: tc.page}}
		if err := c.ps.reserve(c, memory.DefaultAllocator, 8); err != nil {
			t.Fatal(err)
		}
		err := c.plainRun(memory.DefaultAllocator, make([]int32, tc.n), nil)
		c.ps.vals.Release()
		if err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "col") {
			t.Errorf("%s: err %v, want ErrCorrupt with %q naming the column", tc.name, err, tc.want)
		}
	}
	c := &dictColumn{name: "col", ps: &plainStr{}}
	if err := c.ps.reserve(c, memory.DefaultAllocator, 1<<31); err == nil || !errors.Is(err, ErrCorrupt) {
		t.Errorf("2 GiB batch: err %v", err)
	}
}

// TestPlainStrTaken checks which columns of a file the scan decodes with
// plainstr.go: the PLAIN and fallen-back string columns (not id, which is
// not a string), and none when ownPlainStr is off.
func TestPlainStrTaken(t *testing.T) {
	rec := plainRecord(memory.DefaultAllocator, 2000, 3)
	defer rec.Release()
	defer func() { ownPlainStr = true }()
	path := filepath.Join(t.TempDir(), "f.parquet")
	writeFile(t, path, rec, parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(1024))
	s := mustOpen(t, Options{Files: []string{path}, Columns: plainCols, Alloc: testAlloc(t)})
	s.Close()
	f := s.splits[0].file
	for _, on := range []bool{true, false} {
		ownPlainStr = on
		var got []string
		for _, c := range s.out {
			if ownPlainLeaf(f, 0, f.schema.lookup(c.Name), c.arrow) {
				got = append(got, c.Name)
			}
		}
		want := "[p0 p10 p100 bin preq fb phone]"
		if !on {
			want = "[]"
		}
		if fmt.Sprint(got) != want {
			t.Errorf("ownPlainStr %t: own PLAIN string columns %v, want %s", on, got, want)
		}
	}
}

// TestPlainRunGrows decodes pages of values of random lengths (0–300
// bytes) with nulls from a value buffer reserved far too small, in random
// runs, and checks the offsets and bytes: the buffer is moved to larger
// ones and what was written survives.
func TestPlainRunGrows(t *testing.T) {
	rng := newRand(53)
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	for trial := 0; trial < 50; trial++ {
		n := 1 + rng.IntN(400)
		var page []byte
		var want []byte
		lv := make([]int32, n)
		for i := range lv {
			if rng.IntN(5) == 0 {
				continue
			}
			lv[i] = 1
			v := make([]byte, rng.IntN(300))
			for j := range v {
				v[j] = byte(rng.Uint32())
			}
			page = binary.LittleEndian.AppendUint32(page, uint32(len(v)))
			page = append(page, v...)
			want = append(want, v...)
		}
		c := &dictColumn{name: "col", ps: &plainStr{isPlain: true, data: page}}
		if err := c.ps.reserve(c, mem, 0); err != nil {
			t.Fatal(err)
		}
		offs := make([]int32, n)
		for i := 0; i < n; {
			m := min(1+rng.IntN(50), n-i)
			if err := c.plainRun(mem, offs[i:i+m], lv[i:i+m]); err != nil {
				t.Fatal(err)
			}
			i += m
		}
		if got := c.ps.vals.Buf()[:c.ps.used]; string(got) != string(want) || int(offs[n-1]) != len(want) || len(c.ps.data) != 0 {
			t.Fatalf("trial %d: %d bytes (last offset %d, %d page bytes left), want %d", trial, len(got), offs[n-1], len(c.ps.data), len(want))
		}
		c.ps.vals.Release()
	}
}
