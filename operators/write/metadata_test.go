package write

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

var metaSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: false},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "amount", Type: &arrow.Decimal64Type{Precision: 12, Scale: 2}, Nullable: true},
}, nil)

// writeOne writes rows of metaSchema with opt and returns the committed files.
func writeOne(t *testing.T, opt Options, rows int) Result {
	t.Helper()
	mem := checkedMem(t)
	opt.Allocator = mem
	if opt.Dir == "" {
		opt.Dir = t.TempDir()
	}
	if opt.Schema == nil {
		opt.Schema = metaSchema
	}
	w := mustWriter(t, opt)
	for off := 0; off < rows; off += 1000 {
		rec := makeRecord(t, mem, opt.Schema, min(1000, rows-off), uint64(off))
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func openMeta(t *testing.T, path string) *file.Reader {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestStatisticsAndPageIndex checks chunk statistics (min/max/nulls) and
// that every column chunk has a column index and an offset index over
// several pages.
func TestStatisticsAndPageIndex(t *testing.T) {
	res := writeOne(t, Options{PageBytes: 1024, RowGroupRows: 2500}, 6000)
	f := openMeta(t, res.Files[0].Path)
	md := f.MetaData()
	if md.NumRowGroups() != 3 || res.Files[0].RowGroups != 3 {
		t.Fatalf("%d row groups (result says %d), want 3", md.NumRowGroups(), res.Files[0].RowGroups)
	}
	pir := f.GetPageIndexReader()
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		rgmd := md.RowGroup(rg)
		for c := 0; c < md.Schema.NumColumns(); c++ {
			cc, err := rgmd.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			set, err := cc.StatsSet()
			if err != nil || !set {
				t.Fatalf("rg %d col %d: statistics not set (%v)", rg, c, err)
			}
			st, err := cc.Statistics()
			if err != nil {
				t.Fatal(err)
			}
			if !st.HasMinMax() {
				t.Errorf("rg %d col %d: no min/max", rg, c)
			}
			if c == 0 {
				ist := st.(*metadata.Int64Statistics)
				// ids are i*1000 + [0,1000) over the row's index in its record
				if ist.Min() < 0 || ist.Max() < ist.Min() || ist.NullCount() != 0 {
					t.Errorf("rg %d id stats: min %d max %d nulls %d", rg, ist.Min(), ist.Max(), ist.NullCount())
				}
			}
			if c == 1 && st.NullCount() == 0 {
				t.Errorf("rg %d name: null count 0, want the random nulls counted", rg)
			}
		}
		rpi, err := pir.RowGroup(rg)
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < md.Schema.NumColumns(); c++ {
			ci, err := rpi.GetColumnIndex(c)
			if err != nil || ci == nil {
				t.Fatalf("rg %d col %d: no column index (%v)", rg, c, err)
			}
			oi, err := rpi.GetOffsetIndex(c)
			if err != nil || oi == nil {
				t.Fatalf("rg %d col %d: no offset index (%v)", rg, c, err)
			}
			if rg == 0 && c == 0 && len(oi.GetPageLocations()) < 2 {
				t.Errorf("rg %d id: %d pages, want several with 1 KiB pages", rg, len(oi.GetPageLocations()))
			}
			if len(ci.GetMinValues()) != len(oi.GetPageLocations()) {
				t.Errorf("rg %d col %d: %d column index entries for %d pages", rg, c, len(ci.GetMinValues()), len(oi.GetPageLocations()))
			}
		}
	}
}

// TestNoStatisticsNoPageIndex turns both off.
func TestNoStatisticsNoPageIndex(t *testing.T) {
	res := writeOne(t, Options{NoStatistics: true, NoPageIndex: true}, 100)
	f := openMeta(t, res.Files[0].Path)
	cc, err := f.MetaData().RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	if set, _ := cc.StatsSet(); set {
		t.Error("statistics written although NoStatistics")
	}
	if cc.GetColumnIndexLocation() != nil || cc.GetOffsetIndexLocation() != nil {
		t.Error("page index written although NoPageIndex")
	}
}

// TestBloomFilters asks for filters on two columns and checks they exist,
// contain the written values and are absent elsewhere.
func TestBloomFilters(t *testing.T) {
	opt := Options{
		BloomFilters: map[string]BloomOptions{"id": {NDV: 1000, FPP: 0.01}, "name": {}},
		TaskID:       "bloom",
	}
	res := writeOne(t, opt, 1000)
	f := openMeta(t, res.Files[0].Path)
	bfr, err := f.GetBloomFilterReader().RowGroup(0)
	if err != nil {
		t.Fatal(err)
	}
	idf, err := bfr.GetColumnBloomFilter(0)
	if err != nil || idf == nil {
		t.Fatalf("no bloom filter on id (%v)", err)
	}
	nf, err := bfr.GetColumnBloomFilter(1)
	if err != nil || nf == nil {
		t.Fatalf("no bloom filter on name (%v)", err)
	}
	if af, err := bfr.GetColumnBloomFilter(2); err != nil || af != nil {
		t.Errorf("bloom filter on amount although not asked (%v)", err)
	}
	// NDV 1000 at 1% needs ~1.2 KiB, rounded to a power of two; "name" with
	// no NDV takes the 1 MiB maximum, as parquet-mr does.
	if idf.Size() > 4096 || nf.Size() != 1<<20 {
		t.Errorf("filter sizes id=%d name=%d", idf.Size(), nf.Size())
	}

	tbl := readFile(t, res.Files[0].Path)
	defer tbl.Release()
	ids := column(t, tbl, "id")
	defer ids.Release()
	h := idf.Hasher()
	for i := 0; i < ids.Len(); i++ {
		v := ids.(interface{ Value(int) int64 }).Value(i)
		if !idf.CheckHash(metadata.GetHash(h, v)) {
			t.Fatalf("bloom filter misses written id %d", v)
		}
	}
	misses := 0
	for v := int64(-1); v > -1001; v-- {
		if !idf.CheckHash(metadata.GetHash(h, v)) {
			misses++
		}
	}
	if misses < 950 {
		t.Errorf("bloom filter says %d of 1000 absent ids may be present", 1000-misses)
	}
	names := column(t, tbl, "name")
	defer names.Release()
	for i := 0; i < names.Len(); i++ {
		if names.IsNull(i) {
			continue
		}
		v := parquet.ByteArray(names.ValueStr(i))
		if !nf.CheckHash(metadata.GetHash(nf.Hasher(), v)) {
			t.Fatalf("bloom filter misses written name %q", v)
		}
	}
}

// TestRowGroupBytes closes row groups by encoded size.
func TestRowGroupBytes(t *testing.T) {
	res := writeOne(t, Options{RowGroupBytes: 16 << 10, PageBytes: 4 << 10, Codec: "none"}, 20000)
	fi := res.Files[0]
	if fi.RowGroups < 5 {
		t.Fatalf("%d row groups for ~%d bytes with 16 KiB row groups", fi.RowGroups, fi.Bytes)
	}
	f := openMeta(t, fi.Path)
	md := f.MetaData()
	var rows int64
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		rows += md.RowGroup(rg).NumRows()
		// a row group may overshoot by the unflushed page of each column
		// and one byte-check chunk
		if sz := md.RowGroup(rg).TotalByteSize(); sz > 16<<10+3*(4<<10)+byteChunk*40 {
			t.Errorf("row group %d: %d bytes", rg, sz)
		}
	}
	if rows != 20000 {
		t.Errorf("%d rows, want 20000", rows)
	}
}

// TestMaxFileRows rolls over to c001, c002, … as Spark's maxRecordsPerFile.
func TestMaxFileRows(t *testing.T) {
	res := writeOne(t, Options{MaxFileRows: 1200, TaskID: "roll", Split: 7}, 3000)
	want := []struct {
		name string
		rows int64
	}{
		{"part-00007-roll.c000.snappy.parquet", 1200},
		{"part-00007-roll.c001.snappy.parquet", 1200},
		{"part-00007-roll.c002.snappy.parquet", 600},
	}
	if len(res.Files) != len(want) {
		t.Fatalf("%d files, want %d: %+v", len(res.Files), len(want), res.Files)
	}
	for i, w := range want {
		if res.Files[i].RelPath != w.name || res.Files[i].Rows != w.rows {
			t.Errorf("file %d: %s with %d rows, want %s with %d", i, res.Files[i].RelPath, res.Files[i].Rows, w.name, w.rows)
		}
		if f := openMeta(t, res.Files[i].Path); f.NumRows() != w.rows {
			t.Errorf("file %d: footer says %d rows", i, f.NumRows())
		}
	}
}
