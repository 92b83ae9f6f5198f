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

// dictOutCols are dictRecord's columns as a scan requires them.
var dictOutCols = []Column{
	{Name: "id", Type: types.LongType},
	{Name: "s", Type: types.StringType, Nullable: true},
	{Name: "b", Type: types.BinaryType, Nullable: true},
	{Name: "r", Type: types.StringType},
	{Name: "u", Type: types.StringType, Nullable: true},
}

// scanDictChecked scans opt and returns its rows, failing the test when a
// record's columns are not typed as Scanner.Schema says, or when a
// dictionary column has a null slot whose index is not 0 or an index
// outside its dictionary. It counts the dictionary columns it saw.
func scanDictChecked(t *testing.T, opt Options) ([]string, int64) {
	t.Helper()
	s := mustOpen(t, opt)
	defer s.Close()
	var rows []string
	var dicts int64
	each(t, s, func(rec arrow.RecordBatch) {
		for i, c := range rec.Columns() {
			if want := s.Schema().Field(i).Type; !arrow.TypeEqual(c.DataType(), want) {
				t.Fatalf("column %d is %s, the schema says %s", i, c.DataType(), want)
			}
			d, ok := c.(*array.Dictionary)
			if !ok {
				continue
			}
			dicts++
			ix := d.Indices().(*array.Int32).Int32Values()
			for j, k := range ix {
				if d.IsNull(j) && k != 0 || k < 0 || int(k) >= d.Dictionary().Len() {
					t.Fatalf("column %d row %d: index %d (null %t) of a %d-value dictionary", i, j, k, d.IsNull(j), d.Dictionary().Len())
				}
			}
		}
		for i := range int(rec.NumRows()) {
			rows = append(rows, rowString(rec, i))
		}
	})
	return rows, dicts
}

// TestDictOutput checks Options.DictColumns: the columns every file reads
// as dictionaries come out as dictionary<int32, …> whose values equal the
// dense scan's row for row — several row groups with their own
// dictionaries, nulls, the empty string, a required column, binary, row
// ranges (pqarrow's dictionary reader), the scan's own page decoding, each
// data page version — and a column some file does not read as a
// dictionary stays dense in every file.
func TestDictOutput(t *testing.T) {
	dir := t.TempDir()
	rec := dictRecord(memory.DefaultAllocator, 2500, 11)
	defer rec.Release()
	common := []parquet.WriterProperty{
		parquet.WithMaxRowGroupLength(700), parquet.WithDataPageSize(512), parquet.WithBatchSize(64),
		parquet.WithDictionaryDefault(true), parquet.WithStats(true), parquet.WithPageIndexEnabled(true),
		parquet.WithCompression(compress.Codecs.Snappy),
	}
	allDict := filepath.Join(dir, "dict.parquet")
	writeFile(t, allDict, rec, common...)
	v2 := filepath.Join(dir, "v2.parquet")
	writeFile(t, v2, rec, append(common, parquet.WithDataPageVersion(parquet.DataPageV2))...)
	fallback := filepath.Join(dir, "fallback.parquet") // u falls back to plain
	writeFile(t, fallback, rec, append(common, parquet.WithDictionaryPageSizeLimit(512))...)

	all := []string{"id", "s", "b", "r", "u"}
	defer func() { dictOutput, ownDictPages, dictReadAlways = true, true, false }()
	filters := [][]Filter{nil, {Or{And{GreaterThan{"id", int64(400)}, LessThan{"id", int64(900)}}, GreaterThan{"id", int64(2300)}}}}
	for _, c := range []struct {
		name  string
		files []string
		dicts []string // the columns that come out as dictionaries
	}{
		{"v1", []string{allDict}, []string{"s", "b", "r", "u"}},
		{"v2", []string{v2}, []string{"s", "b", "r", "u"}},
		{"mixed", []string{allDict, fallback, v2}, []string{"s", "b", "r"}}, // u: not in fallback
	} {
		for fi, fs := range filters {
			base := Options{Files: c.files, Columns: dictOutCols, Filters: fs, Alloc: testAlloc(t)}
			want, _ := scanAll(t, base)
			if len(want) == 0 {
				t.Fatal("no rows")
			}
			base.DictColumns = all
			s := mustOpen(t, Options{Files: c.files, Columns: dictOutCols, DictColumns: all, Alloc: testAlloc(t)})
			var got []string
			for _, f := range s.Schema().Fields() {
				if f.Type.ID() == arrow.DICTIONARY {
					got = append(got, f.Name)
					vt := arrow.DataType(arrow.BinaryTypes.String)
					if f.Name == "b" {
						vt = arrow.BinaryTypes.Binary
					}
					if want := (&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: vt}); !arrow.TypeEqual(f.Type, want) {
						t.Errorf("%s: column %s is %s, want %s", c.name, f.Name, f.Type, want)
					}
				}
			}
			s.Close()
			if fmt.Sprint(got) != fmt.Sprint(c.dicts) {
				t.Fatalf("%s: dictionary columns %v, want %v", c.name, got, c.dicts)
			}
			for _, own := range []bool{true, false} {
				ownDictPages = own
				name := fmt.Sprintf("%s/filter%d/own=%t", c.name, fi, own)
				before := dictOutBatches.Load()
				checkVariants(t, want, base, []int{1, 2}, testAlloc, scanDictChecked, true, name)
				if dictOutBatches.Load() == before {
					t.Errorf("%s: no dictionary batches counted", name)
				}
			}
			ownDictPages = true
			// a dictionary read whatever the footer says (fallback
			// chunks: pqarrow builds the dictionary as it goes)
			dictReadAlways = true
			o := base
			o.Alloc = testAlloc(t)
			rows, n := scanDictChecked(t, o)
			if d := diffRows(want, rows); d != "" || n == 0 {
				t.Errorf("%s/filter%d/always: %s (%d dictionary columns)", c.name, fi, d, n)
			}
			dictReadAlways = false
			// switched off: dense
			dictOutput = false
			o.Alloc = testAlloc(t)
			rows, n = scanDictChecked(t, o)
			if d := diffRows(want, rows); d != "" || n != 0 {
				t.Errorf("%s/filter%d/off: %s (%d dictionary columns)", c.name, fi, d, n)
			}
			dictOutput = true
		}
	}
}

// TestDictOutputShared checks that the batches of one row group share its
// dictionary (one array in the scan's allocator) when the scan decodes the
// pages itself (pqarrow's reader, taken for row ranges, makes one per
// batch), that each row group has its own, and that the allocator returns
// to zero once the records are released after the scan is closed.
func TestDictOutputShared(t *testing.T) {
	dir := t.TempDir()
	rec := dictRecord(memory.DefaultAllocator, 2100, 5)
	defer rec.Release()
	path := filepath.Join(dir, "d.parquet")
	writeFile(t, path, rec, parquet.WithMaxRowGroupLength(700), parquet.WithDataPageSize(512), parquet.WithDictionaryDefault(true))
	for _, own := range []bool{true, false} {
		ownDictPages = own
		mem := testAlloc(t)
		recs := collect(t, Options{Files: []string{path}, Columns: dictOutCols, DictColumns: []string{"s"}, Alloc: mem, BatchRows: 100, Parallelism: 1})
		if len(recs) != 21 {
			t.Fatalf("own=%t: %d records, want 21", own, len(recs))
		}
		dictOf := func(r arrow.RecordBatch) *memory.Buffer {
			return r.Column(1).(*array.Dictionary).Dictionary().Data().Buffers()[2]
		}
		for i, r := range recs {
			first := recs[i/7*7]
			if same := dictOf(r) == dictOf(first); !same && own {
				t.Errorf("own=%t: record %d does not share row group %d's dictionary", own, i, i/7)
			}
			if i%7 == 0 && i > 0 && dictOf(r) == dictOf(recs[i-1]) {
				t.Errorf("own=%t: record %d shares the previous row group's dictionary", own, i)
			}
		}
		if mem.Allocated() == 0 {
			t.Errorf("own=%t: nothing allocated from the scan's allocator", own)
		}
		releaseAll(recs) // testAlloc checks the allocator is back to zero
	}
	ownDictPages = true
}

// TestDictIndices: dictIndices zeroes null slots' indices, writes every
// byte it hands out (poisoned memory), keeps slices' offsets, and rejects
// an index outside the dictionary with ErrCorrupt.
func TestDictIndices(t *testing.T) {
	mem := poisonAlloc{memory.NewCheckedAllocator(memory.NewGoAllocator())}
	defer mem.AssertSize(t, 0)
	typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	dict, _, err := array.FromJSON(mem, arrow.BinaryTypes.String, strings.NewReader(`["a","bc",""]`))
	if err != nil {
		t.Fatal(err)
	}
	defer dict.Release()
	mk := func(idx []int32, valid []bool) *array.Dictionary {
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.AppendValues(idx, valid)
		ia := b.NewArray()
		defer ia.Release()
		return array.NewDictionaryArray(typ, ia, dict)
	}
	// null slots holding garbage indices
	d := mk([]int32{2, 77, 0, -5, 1, 1}, []bool{true, false, true, false, true, true})
	defer d.Release()
	for _, sl := range [][2]int64{{0, 6}, {1, 5}, {3, 6}} {
		in := array.NewSlice(d, sl[0], sl[1]).(*array.Dictionary)
		out, err := dictIndices(mem, in, typ)
		if err != nil {
			t.Fatal(err)
		}
		od := out.(*array.Dictionary)
		for i := range od.Len() {
			if od.IsNull(i) != in.IsNull(i) || od.IsNull(i) && od.GetValueIndex(i) != 0 || !od.IsNull(i) && od.ValueStr(i) != in.ValueStr(i) {
				t.Errorf("slice %v row %d: got %s (index %d), want %s", sl, i, od.ValueStr(i), od.GetValueIndex(i), in.ValueStr(i))
			}
		}
		if od.NullN() != in.NullN() {
			t.Errorf("slice %v: %d nulls, want %d", sl, od.NullN(), in.NullN())
		}
		out.Release()
		in.Release()
	}
	for _, bad := range []struct {
		idx   []int32
		valid []bool
	}{{[]int32{0, 3}, nil}, {[]int32{-1, 0}, nil}, {[]int32{0, 3, 1}, []bool{true, true, false}}} {
		d := mk(bad.idx, bad.valid)
		if out, err := dictIndices(mem, d, typ); !errors.Is(err, ErrCorrupt) {
			if out != nil {
				out.Release()
			}
			t.Errorf("%v: error %v, want ErrCorrupt", bad.idx, err)
		}
		d.Release()
	}
}

// TestDictColumnsOption: a dictionary column that is not required is an
// options error; a required column that is not a string (or is a partition
// column) simply stays as it is.
func TestDictColumnsOption(t *testing.T) {
	dir := t.TempDir()
	rec := dictRecord(memory.DefaultAllocator, 50, 1)
	defer rec.Release()
	path := filepath.Join(dir, "d.parquet")
	writeFile(t, path, rec, parquet.WithDictionaryDefault(true))
	_, err := Open(t.Context(), Options{Files: []string{path}, Columns: dictOutCols, DictColumns: []string{"nope"}, Alloc: testAlloc(t)})
	if !errors.Is(err, ErrOptions) {
		t.Errorf("unknown dictionary column: error %v, want ErrOptions", err)
	}
	s := mustOpen(t, Options{Files: []string{path}, Columns: dictOutCols, DictColumns: []string{"id", "s"}, Alloc: testAlloc(t)})
	defer s.Close()
	if id := s.Schema().Field(0).Type.ID(); id != arrow.INT64 {
		t.Errorf("id is %s", s.Schema().Field(0).Type)
	}
	if id := s.Schema().Field(1).Type.ID(); id != arrow.DICTIONARY {
		t.Errorf("s is %s", s.Schema().Field(1).Type)
	}
}
