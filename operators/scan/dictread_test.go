package scan

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

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

	defer func() { readDictStrings, dictReadAlways = true, false }()
	filters := [][]Filter{nil, {Or{And{GreaterThan{"id", int64(400)}, LessThan{"id", int64(900)}}, GreaterThan{"id", int64(2300)}}}}
	for _, path := range []string{allDict, fallback} {
		for fi, fs := range filters {
			base := Options{Files: []string{path}, Columns: cols, Filters: fs}
			readDictStrings, dictReadAlways = false, false
			base.Alloc = testAlloc(t)
			want, _ := scanAll(t, base)
			if len(want) == 0 {
				t.Fatal("no rows")
			}
			for _, always := range []bool{false, true} {
				readDictStrings, dictReadAlways = true, always
				name := fmt.Sprintf("%s/filter%d/always=%t", filepath.Base(path), fi, always)
				checkVariants(t, want, base, []int{1, 2}, testAlloc, func(t *testing.T, o Options) ([]string, int64) {
					rows, _ := scanAll(t, o)
					return rows, 1
				}, true, name)
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
