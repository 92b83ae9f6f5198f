package write

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// allTypes is a schema with every column type a Spark stage hands the
// writer, all nullable.
var allTypes = arrow.NewSchema([]arrow.Field{
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "d9", Type: &arrow.Decimal64Type{Precision: 9, Scale: 2}, Nullable: true},
	{Name: "d18", Type: &arrow.Decimal64Type{Precision: 18, Scale: 4}, Nullable: true},
	{Name: "d38", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
	{Name: "d12", Type: &arrow.Decimal128Type{Precision: 12, Scale: 0}, Nullable: true},
	{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "ts_ntz", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "req", Type: arrow.PrimitiveTypes.Int64, Nullable: false},
}, nil)

// makeRecord builds n rows of sch with random values (about one in seven
// null) from seed. Columns of unknown type are rejected by the test.
func makeRecord(t testing.TB, mem memory.Allocator, sch *arrow.Schema, n int, seed uint64) arrow.Record {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 42))
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for c, f := range sch.Fields() {
		fb := b.Field(c)
		for i := 0; i < n; i++ {
			if f.Nullable && r.IntN(7) == 0 {
				fb.AppendNull()
				continue
			}
			appendRandom(t, fb, r, i)
		}
	}
	return b.NewRecordBatch()
}

func appendRandom(t testing.TB, fb array.Builder, r *rand.Rand, i int) {
	switch b := fb.(type) {
	case *array.BooleanBuilder:
		b.Append(r.IntN(2) == 0)
	case *array.Int8Builder:
		b.Append(int8(r.IntN(256) - 128))
	case *array.Int16Builder:
		b.Append(int16(r.IntN(65536) - 32768))
	case *array.Int32Builder:
		b.Append(r.Int32() - 1<<30)
	case *array.Int64Builder:
		b.Append(int64(i)*1000 + r.Int64N(1000))
	case *array.Float32Builder:
		b.Append(float32(r.NormFloat64() * 1e3))
	case *array.Float64Builder:
		b.Append(r.NormFloat64() * 1e6)
	case *array.StringBuilder:
		b.Append(strings.Repeat(string(rune('a'+r.IntN(26))), 1+r.IntN(5)) + "é")
	case *array.BinaryBuilder:
		b.Append([]byte{byte(r.IntN(256)), 0, byte(i)})
	case *array.Decimal64Builder:
		p := b.Type().(*arrow.Decimal64Type).Precision
		lim := int64(1)
		for k := int32(0); k < p; k++ {
			lim *= 10
		}
		b.Append(decimal.Decimal64(r.Int64N(2*lim-1) - (lim - 1)))
	case *array.Decimal128Builder:
		hi := r.Int64N(1 << 40)
		if r.IntN(2) == 0 {
			hi = -hi
		}
		v := decimal128.FromI64(r.Int64())
		if b.Type().(*arrow.Decimal128Type).Precision > 30 {
			v = decimal128.New(hi, r.Uint64())
		} else {
			v = decimal128.FromI64(r.Int64N(999_999_999_999))
		}
		b.Append(v)
	case *array.Date32Builder:
		b.Append(arrow.Date32(r.IntN(40000) - 10000))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(r.Int64N(4e15) - 1e15))
	default:
		t.Fatalf("no random values for %T", fb)
	}
}

// readFile reads a whole Parquet file back through pqarrow.
func readFile(t testing.TB, path string) arrow.Table {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	fr, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("reader %s: %v", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return tbl
}

// column returns the named column of tbl as one array (caller releases).
func column(t testing.TB, tbl arrow.Table, name string) arrow.Array {
	t.Helper()
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("column %q: found %d in %s", name, len(idx), tbl.Schema())
	}
	chunks := tbl.Column(idx[0]).Data().Chunks()
	if len(chunks) == 0 {
		return array.MakeArrayOfNull(memory.DefaultAllocator, tbl.Column(idx[0]).DataType(), 0)
	}
	a, err := array.Concatenate(chunks, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sameValues compares two arrays row by row through their string form.
func sameValues(t testing.TB, what string, want, got arrow.Array) {
	t.Helper()
	if want.Len() != got.Len() {
		t.Fatalf("%s: %d rows, want %d", what, got.Len(), want.Len())
	}
	for i := 0; i < want.Len(); i++ {
		if want.IsNull(i) != got.IsNull(i) {
			t.Fatalf("%s row %d: null=%v, want null=%v", what, i, got.IsNull(i), want.IsNull(i))
		}
		if !want.IsNull(i) && want.ValueStr(i) != got.ValueStr(i) {
			t.Fatalf("%s row %d: %s, want %s", what, i, got.ValueStr(i), want.ValueStr(i))
		}
	}
}

// listTree returns every path under dir, relative and slash-separated,
// directories with a trailing slash.
func listTree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// checkedMem returns an allocator that fails the test if anything is left
// allocated when the test ends. arrow-go v18.8.0 never releases bloom filter
// builders explicitly (a runtime cleanup frees them once unreachable), so the
// check first lets the garbage collector run those cleanups.
func checkedMem(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() {
		for i := 0; i < 100 && mem.CurrentAlloc() != 0; i++ {
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
		}
		mem.AssertSize(t, 0)
	})
	return mem
}

// mustWriter builds a Writer or fails the test.
func mustWriter(t *testing.T, opt Options) *Writer {
	t.Helper()
	w, err := NewWriter(context.Background(), opt)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	return w
}
