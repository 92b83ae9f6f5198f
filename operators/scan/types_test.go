package scan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hados-io/hados/operators/types"
)

// TestTimestampUnitsAndSmallTypes reads TIMESTAMP_MILLIS, INT96 (as Spark
// writes legacy timestamps), tinyint, smallint, float and binary columns and
// checks the Arrow types and values hados gets, and that filters on them
// prune correctly.
func TestTimestampUnitsAndSmallTypes(t *testing.T) {
	mem := memory.DefaultAllocator
	fields := []arrow.Field{
		{Name: "ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "i96", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "t8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "t16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for r := 0; r < 100; r++ {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(r)*1500 - 3000))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(r)*1_000_001_001 - 5_000_000_000))
		b.Field(2).(*array.Int8Builder).Append(int8(r - 50))
		b.Field(3).(*array.Int16Builder).Append(int16(r * 300))
		b.Field(4).(*array.Float32Builder).Append(float32(r) / 4)
		b.Field(5).(*array.BinaryBuilder).Append([]byte{byte(r), 0xff})
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	// One file per timestamp encoding, with the small types beside it.
	one := func(name string, col int, props pqarrow.ArrowWriterProperties) string {
		r := rec.NewSlice(0, rec.NumRows())
		defer r.Release()
		cols := []arrow.Array{r.Column(col), r.Column(2), r.Column(3), r.Column(4), r.Column(5)}
		sub := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{fields[col], fields[2], fields[3], fields[4], fields[5]}, nil), cols, r.NumRows())
		defer sub.Release()
		p := filepath.Join(t.TempDir(), name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w, err := pqarrow.NewFileWriter(sub.Schema(), f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(25)), props)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(sub); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := []Column{{Name: "t8", Type: types.ByteType}, {Name: "t16", Type: types.ShortType},
		{Name: "f", Type: types.FloatType}, {Name: "bin", Type: types.BinaryType}}
	for _, c := range []struct {
		name, col string
		idx       int
		props     pqarrow.ArrowWriterProperties
		first     string
		filter    Filter
		pruned    int64
	}{
		{"millis", "ms", 0, pqarrow.NewArrowWriterProperties(), "1969-12-31T23:59:57Z", LessThan{"ms", Timestamp(34_000_000)}, 3},
		{"int96", "i96", 1, pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true)), "1969-12-31T23:59:55Z", GreaterThan{"i96", Timestamp(0)}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := one(c.name+".parquet", c.idx, c.props)
			alloc := testAlloc(t)
			cols := append([]Column{{Name: c.col, Type: types.TimestampType}}, small...)
			s := mustOpen(t, Options{Files: []string{p}, Columns: cols, Alloc: alloc})
			r, err := s.Next()
			if err != nil || r == nil {
				t.Fatal(err)
			}
			want := []string{"timestamp[us, tz=UTC]", "int8", "int16", "float32", "binary"}
			for i, f := range r.Schema().Fields() {
				if f.Type.String() != want[i] {
					t.Errorf("%s: %s, want %s", f.Name, f.Type, want[i])
				}
			}
			if got := r.Column(0).ValueStr(0); got != c.first {
				t.Errorf("first value %s, want %s", got, c.first)
			}
			r.Release()
			s.Close()
			// Pruned and unpruned scans agree on every filter.
			for _, f := range []Filter{c.filter, LessThan{"t8", int8(-40)}, GreaterThanOrEqual{"t16", int16(29000)},
				EqualTo{"f", float32(2.25)}, EqualTo{"bin", []byte{7, 0xff}}, StringStartsWith{"bin", string([]byte{99})}} {
				full := collect(t, Options{Files: []string{p}, Columns: cols, Alloc: alloc})
				want := filterRows(t, full, f)
				releaseAll(full)
				got, st, err := tryScan(Options{Files: []string{p}, Columns: cols, Alloc: alloc, Filters: []Filter{f}}, f)
				if err != nil {
					t.Fatal(err)
				}
				if d := diffRows(want, got); d != "" {
					t.Errorf("%s: %s", f, d)
				}
				if f == c.filter && st.RowGroupsPrunedStats != c.pruned {
					t.Errorf("%s: pruned %d, want %d", f, st.RowGroupsPrunedStats, c.pruned)
				}
			}
		})
	}
}
