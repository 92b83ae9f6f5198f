package write

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// TestRoundTrip writes every supported type, with nulls, through each codec
// in several records and reads it back with pqarrow.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		codec string
		want  compress.Compression
		ext   string
	}{
		{"", compress.Codecs.Snappy, ".snappy"},
		{"snappy", compress.Codecs.Snappy, ".snappy"},
		{"LZ4_RAW", compress.Codecs.Lz4Raw, ".lz4raw"},
		{"zstd", compress.Codecs.Zstd, ".zstd"},
		{"none", compress.Codecs.Uncompressed, ""},
	} {
		t.Run("codec="+tc.codec, func(t *testing.T) {
			mem := checkedMem(t)
			dir := t.TempDir()
			w := mustWriter(t, Options{Dir: dir, Schema: allTypes, Codec: tc.codec, TaskID: "job", Allocator: mem, PageBytes: 4096})
			var recs []arrow.Record
			for i, n := range []int{1, 700, 0, 1300} {
				rec := makeRecord(t, mem, allTypes, n, uint64(i))
				defer rec.Release()
				recs = append(recs, rec)
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
			res, err := w.Commit()
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Files) != 1 || res.Rows() != 2001 {
				t.Fatalf("result %+v, want one file of 2001 rows", res)
			}
			fi := res.Files[0]
			if want := "part-00000-job.c000" + tc.ext + ".parquet"; fi.RelPath != want {
				t.Errorf("file name %s, want %s", fi.RelPath, want)
			}
			checkCodec(t, fi.Path, tc.want)
			tbl := readFile(t, fi.Path)
			defer tbl.Release()
			compareTable(t, tbl, allTypes, recs, nil)
		})
	}
}

// compareTable checks that tbl holds the rows of recs, column by column,
// except the columns in skip.
func compareTable(t *testing.T, tbl arrow.Table, sch *arrow.Schema, recs []arrow.Record, skip map[string]bool) {
	t.Helper()
	for c, f := range sch.Fields() {
		if skip[f.Name] {
			continue
		}
		var parts []arrow.Array
		for _, r := range recs {
			parts = append(parts, r.Column(c))
		}
		want, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		got := column(t, tbl, f.Name)
		sameValues(t, f.Name, want, got)
		want.Release()
		got.Release()
	}
}

// checkCodec checks the codec of every column chunk of a file.
func checkCodec(t *testing.T, path string, want compress.Compression) {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	md := f.MetaData()
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		for c := 0; c < md.Schema.NumColumns(); c++ {
			cc, err := md.RowGroup(rg).ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if cc.Compression() != want {
				t.Errorf("row group %d column %d: codec %s, want %s", rg, c, cc.Compression(), want)
			}
		}
	}
}

// TestPhysicalTypes checks the Parquet types Spark would write: decimals as
// INT32/INT64/FIXED_LEN_BYTE_ARRAY by precision, DATE, UTF8 strings,
// TIMESTAMP(MICROS) adjusted to UTC or not, REQUIRED for non-nullable.
func TestPhysicalTypes(t *testing.T) {
	dir := t.TempDir()
	w := mustWriter(t, Options{Dir: dir, Schema: allTypes, TaskID: "job"})
	rec := makeRecord(t, memory.DefaultAllocator, allTypes, 10, 1)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	f, err := file.OpenParquetFile(res.Files[0].Path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sch := f.MetaData().Schema
	var b strings.Builder
	for i := 0; i < sch.NumColumns(); i++ {
		col := sch.Column(i)
		fmt.Fprintf(&b, "%-7s %-8s %-20s %s\n", col.Name(), col.SchemaNode().RepetitionType(), col.PhysicalType(), col.LogicalType())
	}
	checkGolden(t, "physical_types.golden", b.String())
}

// TestInt96 writes Spark's legacy INT96 timestamps.
func TestInt96(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil)
	mem := checkedMem(t)
	dir := t.TempDir()
	w := mustWriter(t, Options{Dir: dir, Schema: sch, TimestampType: "int96", Allocator: mem})
	rec := makeRecord(t, mem, sch, 500, 3)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	f, err := file.OpenParquetFile(res.Files[0].Path, false)
	if err != nil {
		t.Fatal(err)
	}
	if pt := f.MetaData().Schema.Column(0).PhysicalType(); pt != parquet.Types.Int96 {
		t.Errorf("physical type %s, want INT96", pt)
	}
	f.Close()
	tbl := readFile(t, res.Files[0].Path)
	defer tbl.Release()
	got := column(t, tbl, "ts").(*array.Timestamp)
	defer got.Release()
	want := rec.Column(0).(*array.Timestamp)
	for i := 0; i < want.Len(); i++ {
		if want.IsNull(i) != got.IsNull(i) || (!want.IsNull(i) && int64(want.Value(i))*1000 != int64(got.Value(i))) {
			t.Fatalf("row %d: got %v, want %v µs", i, got.ValueStr(i), want.ValueStr(i))
		}
	}
}

// TestWriteKeepsNoReference overwrites and releases each record right after
// Write, as a device batch would be recycled, and checks the file still
// holds the original values.
func TestWriteKeepsNoReference(t *testing.T) {
	mem := checkedMem(t)
	dir := t.TempDir()
	w := mustWriter(t, Options{Dir: dir, Schema: allTypes, Allocator: mem, PartitionBy: []string{"b"}})
	var want []arrow.Record
	for i := 0; i < 3; i++ {
		rec := makeRecord(t, mem, allTypes, 500, uint64(10+i))
		want = append(want, copyRecord(t, rec))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		for _, col := range rec.Columns() {
			for _, buf := range col.Data().Buffers() {
				if buf != nil {
					for k := range buf.Bytes() {
						buf.Bytes()[k] = 0xA5
					}
				}
			}
		}
		rec.Release()
	}
	res, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for _, f := range res.Files {
		rows += f.Rows
	}
	if rows != 1500 {
		t.Fatalf("%d rows written, want 1500", rows)
	}
	// rows are regrouped by partition: compare per partition value of b
	for _, f := range res.Files {
		tbl := readFile(t, f.Path)
		var parts []arrow.Record
		for _, r := range want {
			parts = append(parts, filterByBool(t, r, f.Partition[0]))
		}
		compareTable(t, tbl, dropColumn(allTypes, "b"), parts, nil)
		for _, p := range parts {
			p.Release()
		}
		tbl.Release()
	}
	for _, r := range want {
		r.Release()
	}
}

// copyRecord deep-copies rec into Go memory, decimals widened to 128 bits.
func copyRecord(t *testing.T, rec arrow.Record) arrow.Record {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		wide := toStored(c, memory.DefaultAllocator)
		cp, err := array.Concatenate([]arrow.Array{wide}, memory.DefaultAllocator)
		wide.Release()
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = cp
	}
	fields := make([]arrow.Field, len(cols))
	for i, f := range rec.Schema().Fields() {
		f.Type = cols[i].DataType()
		fields[i] = f
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// filterByBool keeps the rows of rec whose column b matches the partition
// value v, dropping column b. The caller releases the result.
func filterByBool(t *testing.T, rec arrow.Record, v PartitionValue) arrow.Record {
	b := rec.Column(0).(*array.Boolean)
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	defer ib.Release()
	for i := 0; i < b.Len(); i++ {
		if (v.Null && b.IsNull(i)) || (!v.Null && !b.IsNull(i) && fmt.Sprint(b.Value(i)) == v.Value) {
			ib.Append(int64(i))
		}
	}
	idx := ib.NewArray()
	defer idx.Release()
	var cols []arrow.Array
	for c := 1; c < int(rec.NumCols()); c++ {
		col, err := compute.TakeArray(context.Background(), rec.Column(c), idx)
		if err != nil {
			t.Fatal(err)
		}
		defer col.Release()
		cols = append(cols, col)
	}
	return array.NewRecordBatch(dropColumn(rec.Schema(), "b"), cols, int64(idx.Len()))
}

func dropColumn(s *arrow.Schema, name string) *arrow.Schema {
	var fields []arrow.Field
	for _, f := range s.Fields() {
		if f.Name != name {
			fields = append(fields, f)
		}
	}
	return arrow.NewSchema(fields, nil)
}
