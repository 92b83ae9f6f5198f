package scan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/types"
)

// goodFile writes the test table with small row groups and snappy pages.
func goodFile(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	path := filepath.Join(dir, "good.parquet")
	writeFile(t, path, rec, parquet.WithMaxRowGroupLength(300), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(false))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// pageOffset is the file offset of the first data page of column col in row group rg.
func pageOffset(t *testing.T, path string, rg, col int) int64 {
	t.Helper()
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cc, err := r.MetaData().RowGroup(rg).ColumnChunk(col)
	if err != nil {
		t.Fatal(err)
	}
	return cc.DataPageOffset()
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good, data := goodFile(t, dir)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mutate := func(off int64, n int, b byte) []byte {
		c := append([]byte(nil), data...)
		for i := int64(0); i < int64(n); i++ {
			c[off+i] ^= b
		}
		return c
	}
	footerLen := int64(data[len(data)-8]) | int64(data[len(data)-7])<<8 | int64(data[len(data)-6])<<16
	pageRG1 := pageOffset(t, good, 1, 2) // column i, row group 1

	// A file with a different type for column i.
	other := filepath.Join(dir, "other.parquet")
	{
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues([]int64{1, 2}, nil)
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 2)
		col.Release()
		writeFile(t, other, rec)
		rec.Release()
	}
	// A file with an unsupported column type.
	unsupported := filepath.Join(dir, "uint.parquet")
	{
		b := array.NewUint32Builder(memory.DefaultAllocator)
		b.AppendValues([]uint32{1, 2}, nil)
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.PrimitiveTypes.Uint32}}, nil), []arrow.Array{col}, 2)
		col.Release()
		writeFile(t, unsupported, rec)
		rec.Release()
	}

	cols := []Column{{Name: "id", Type: types.LongType}, {Name: "i", Type: types.IntType, Nullable: true}}
	cases := []struct {
		name  string
		files []string
		cols  []Column
		is    error
		want  []string // substrings of the error
	}{
		{"missing file", []string{filepath.Join(dir, "nope.parquet")}, cols, os.ErrNotExist, []string{"nope.parquet"}},
		{"empty file", []string{write("empty.parquet", nil)}, cols, ErrCorrupt, []string{"empty.parquet"}},
		{"bad magic", []string{write("magic.parquet", mutate(int64(len(data)-4), 4, 0xff))}, cols, ErrCorrupt, []string{"magic.parquet"}},
		{"truncated", []string{write("trunc.parquet", data[:len(data)/2])}, cols, ErrCorrupt, []string{"trunc.parquet"}},
		{"footer length", []string{write("footlen.parquet", mutate(int64(len(data)-8), 4, 0x7f))}, cols, ErrCorrupt, []string{"footlen.parquet"}},
		{"corrupt footer", []string{write("footer.parquet", mutate(int64(len(data))-8-footerLen+4, 24, 0xa5))}, cols, nil, []string{"footer.parquet"}},
		{"corrupt page header", []string{write("page.parquet", mutate(pageRG1, 6, 0xff))}, cols, ErrCorrupt, []string{"page.parquet", "row group 1"}},
		{"corrupt page data", []string{write("pagedata.parquet", mutate(pageRG1+40, 64, 0x5a))}, cols, ErrCorrupt, []string{"pagedata.parquet", "row group 1"}},
		{"schema mismatch", []string{good, other}, cols[1:], ErrSchemaMismatch, []string{"other.parquet", "column i is bigint", "requires int"}},
		{"unsupported type", []string{unsupported}, []Column{{Name: "u", Type: types.LongType}}, ErrUnsupportedType, []string{"column u", "uint32"}},
		{"unsupported required type", []string{good}, []Column{{Name: "id", Type: types.UnsupportedType("array<int>")}}, ErrUnsupportedType, []string{"array<int>"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			alloc := testAlloc(t)
			_, _, err := tryScan(Options{Files: c.files, Columns: c.cols, Alloc: alloc, Parallelism: 2}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			t.Logf("%v", err)
		})
	}
}

func TestOptionsErrors(t *testing.T) {
	alloc := testAlloc(t)
	for _, opt := range []Options{
		{Alloc: alloc},
		{Files: []string{"a"}, Dir: "b", Alloc: alloc},
		{Files: []string{"a"}},
		{Files: []string{"a"}, Alloc: alloc, Columns: []Column{{Name: "x", Type: types.IntType}, {Name: "x", Type: types.IntType}}},
	} {
		if _, err := Open(context.Background(), opt); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: err = %v", opt, err)
		}
	}
}

// TestQuota checks an allocation failure (a task quota) while decoding is
// returned as an error, with everything allocated so far given back.
func TestQuota(t *testing.T) {
	dir := t.TempDir()
	good, _ := goodFile(t, dir)
	pool := hmem.NewHostPool(hmem.PoolOptions{}, false)
	acct := hmem.NewAccount("task", 64<<10, pool.Account())
	alloc := hmem.NewHostAllocator(pool, acct)
	_, _, err := tryScan(Options{Files: []string{good}, Columns: testColumns, Alloc: alloc, Parallelism: 3, Prefetch: 4}, nil)
	if !errors.Is(err, hmem.ErrQuotaExceeded) {
		t.Errorf("err = %v, want a quota error", err)
	}
	if !strings.Contains(err.Error(), "good.parquet") {
		t.Errorf("err %v does not name the file", err)
	}
	if n := alloc.Allocated(); n != 0 {
		t.Errorf("%d bytes leaked", n)
	}
	if err := pool.Close(); err != nil {
		t.Error(err)
	}
}

// TestCloseEarly stops a scan midway: no goroutine (goleak in TestMain) and
// no buffer may be left.
func TestCloseEarly(t *testing.T) {
	dir := t.TempDir()
	good, _ := goodFile(t, dir)
	for _, cancel := range []bool{false, true} {
		alloc := testAlloc(t)
		ctx, stop := context.WithCancel(context.Background())
		s := openPastFirst(ctx, t, Options{Files: []string{good, good, good}, Columns: testColumns, Alloc: alloc,
			Parallelism: 3, BatchRows: 50, SplitBytes: 1})
		if cancel {
			stop()
			if _, err := s.Next(); !errors.Is(err, context.Canceled) {
				t.Errorf("Next after cancel: %v", err)
			}
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		if err := s.Close(); err != nil {
			t.Error("second Close:", err)
		}
		if _, err := s.Next(); !errors.Is(err, ErrClosed) {
			t.Errorf("Next after Close: %v", err)
		}
		stop()
	}
}
