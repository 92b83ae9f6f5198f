package tpchgen

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// readParquetTable reads every part file of a table back with pqarrow.
func readParquetTable(t *testing.T, name string, files []string) *table {
	t.Helper()
	out := &table{name: name, cols: map[string]any{}}
	for _, f := range files {
		rdr, err := file.OpenParquetFile(f, false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 4096}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		part := collect(t, name, array.NewTableReader(tbl, 5000))
		tbl.Release()
		rdr.Close()
		for c, v := range part.cols {
			out.cols[c] = appendAny(out.cols[c], v)
		}
		out.rows += part.rows
	}
	return out
}

func appendAny(dst, src any) any {
	switch s := src.(type) {
	case []int64:
		d, _ := dst.([]int64)
		return append(d, s...)
	case []int32:
		d, _ := dst.([]int32)
		return append(d, s...)
	case []string:
		d, _ := dst.([]string)
		return append(d, s...)
	}
	panic("unexpected column type")
}

// TestParquetRoundTrip writes every table (small row groups, so lineitem
// spans several files and row groups) and reads the files back into the
// values the reader produces.
func TestParquetRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	out := t.TempDir()
	var calls int
	last := map[string]int64{}
	sum, err := Generate(context.Background(), Options{
		SF: testSF, Out: out, Seed: 7, RowGroupRows: 10000, BatchRows: 3000, Mem: mem,
		Progress: func(table string, done, total int64) {
			calls++
			if done < last[table] || done > total {
				t.Errorf("progress %s: %d of %d after %d", table, done, total, last[table])
			}
			last[table] = done
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Error("Progress never called")
	}
	d := testData(t)
	for _, ts := range sum.Tables {
		if last[ts.Name] != ts.Rows {
			t.Errorf("progress of %s ended at %d, want %d", ts.Name, last[ts.Name], ts.Rows)
		}
		if ts.Rows != int64(d[ts.Name].rows) || ts.Bytes <= 0 {
			t.Errorf("summary %s: %d rows, %d bytes; want %d rows", ts.Name, ts.Rows, ts.Bytes, d[ts.Name].rows)
		}
		for i, f := range ts.Files {
			if want := filepath.Join(out, ts.Name, partName(i)); f != want {
				t.Errorf("file %s, want %s", f, want)
			}
		}
		got := readParquetTable(t, ts.Name, ts.Files)
		if !reflect.DeepEqual(got, d[ts.Name]) {
			t.Errorf("%s read back from Parquet differs from the generated values", ts.Name)
		}
	}
	if n := len(sum.Tables[0].Files); sum.Tables[0].Name != "lineitem" || n != 3 {
		t.Errorf("lineitem in %d files, want 3 (2 row groups of 10000 rows each)", n)
	}
	checkFileMetadata(t, sum.Tables[0].Files[0], 10000)
	assertNoHiddenFiles(t, out)
}

// checkFileMetadata checks snappy, statistics and row-group sizes.
func checkFileMetadata(t *testing.T, path string, rowGroupRows int64) {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	md := rdr.MetaData()
	if md.NumRowGroups() != 2 {
		t.Errorf("%s: %d row groups, want 2", path, md.NumRowGroups())
	}
	for i := 0; i < md.NumRowGroups(); i++ {
		rg := md.RowGroup(i)
		if rg.NumRows() > rowGroupRows {
			t.Errorf("row group %d has %d rows, more than %d", i, rg.NumRows(), rowGroupRows)
		}
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if cc.Compression() != compress.Codecs.Snappy {
				t.Errorf("column %d compressed with %v", c, cc.Compression())
			}
			if ok, err := cc.StatsSet(); !ok || err != nil {
				t.Errorf("column %d has no statistics (%v)", c, err)
			}
		}
	}
}

// assertNoHiddenFiles fails if temporary files were left in dir.
func assertNoHiddenFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// TestGenerateDeterministic runs Generate twice with the same options and
// compares the files byte for byte; a different seed changes them.
func TestGenerateDeterministic(t *testing.T) {
	opt := Options{SF: testSF, Seed: 3, Tables: []string{"orders", "supplier"}}
	run := func(dir string, seed uint64) map[string][]byte {
		o := opt
		o.Out, o.Seed = dir, seed
		sum, err := Generate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, ts := range sum.Tables {
			for _, f := range ts.Files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				files[ts.Name+"/"+filepath.Base(f)] = b
			}
		}
		return files
	}
	a, b, c := run(t.TempDir(), 3), run(t.TempDir(), 3), run(t.TempDir(), 4)
	if len(a) != 2 {
		t.Fatalf("got files %v", slices.Collect(mapKeys(a)))
	}
	for k := range a {
		if !bytes.Equal(a[k], b[k]) {
			t.Errorf("%s differs between two runs with the same seed", k)
		}
		if bytes.Equal(a[k], c[k]) {
			t.Errorf("%s is the same under seeds 3 and 4", k)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestSplitIndependence: rows do not depend on the batch size.
func TestSplitIndependence(t *testing.T) {
	d := testData(t)
	for _, name := range []string{"lineitem", "partsupp", "supplier"} {
		for _, batch := range []int{1, 333, 4096} {
			got := generateTable(t, name, Options{SF: testSF, Seed: 7, BatchRows: batch})
			if !reflect.DeepEqual(got, d[name]) {
				t.Errorf("%s with %d-row batches differs", name, batch)
			}
		}
	}
}

// TestSparkTestSchema: same values, decimals decimal(10,0) rounded half-up.
func TestSparkTestSchema(t *testing.T) {
	d := testData(t)
	for _, def := range Tables() {
		rr, err := NewTableReader(def.Name, Options{SF: testSF, Seed: 7, Schema: SparkTest})
		if err != nil {
			t.Fatal(err)
		}
		if !rr.Schema().Equal(def.ArrowSchema(SparkTest)) {
			t.Errorf("%s schema %v", def.Name, rr.Schema())
		}
		got := collect(t, def.Name, rr)
		for _, c := range def.Columns {
			want := d[def.Name].cols[c.Name]
			if c.SparkType(SparkTest) == "decimal(10,0)" {
				std := want.([]int64)
				rounded := make([]int64, len(std))
				for i, v := range std {
					rounded[i] = roundHalfUp(v)
				}
				want = rounded
			}
			if !reflect.DeepEqual(got.cols[c.Name], want) {
				t.Errorf("%s.%s differs from the standard schema's values", def.Name, c.Name)
			}
		}
	}
}

func TestRoundHalfUp(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{
		{0, 0}, {49, 0}, {50, 1}, {149, 1}, {150, 2}, {-49, 0}, {-50, -1}, {-150, -2}, {999999, 10000}, {10, 0},
	} {
		if got := roundHalfUp(c.in); got != c.want {
			t.Errorf("roundHalfUp(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestBadOptions(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  Options
		is   error
		msg  string
	}{
		{"zero sf", Options{Out: "x"}, ErrInvalidOptions, "scale factor must be"},
		{"negative sf", Options{SF: -1, Out: "x"}, ErrInvalidOptions, "got -1"},
		{"tiny sf", Options{SF: 1e-6, Out: "x"}, ErrInvalidOptions, "too small"},
		{"no out", Options{SF: 1}, ErrInvalidOptions, "no output directory"},
		{"unknown table", Options{SF: 1, Out: "x", Tables: []string{"lineitem", "linetiem"}}, ErrUnknownTable, `"linetiem"`},
		{"bad schema", Options{SF: 1, Out: "x", Schema: Schema(9)}, ErrInvalidOptions, "unknown schema"},
		{"negative row groups", Options{SF: 1, Out: "x", RowGroupRows: -1}, ErrInvalidOptions, "negative"},
		{"unwritable out", Options{SF: testSF, Out: filepath.Join(notADir, "sub"), Tables: []string{"region"}}, nil, "cannot create output directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Generate(context.Background(), c.opt)
			if err == nil {
				t.Fatal("no error")
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v does not wrap %v", err, c.is)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not mention %q", err, c.msg)
			}
		})
	}
	if _, err := NewTableReader("nope", Options{SF: 1}); !errors.Is(err, ErrUnknownTable) {
		t.Errorf("NewTableReader(nope): %v", err)
	}
}

// TestCancellation cancels a run after its first batch: the error wraps
// context.Canceled and no file or directory is left behind.
func TestCancellation(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Generate(ctx, Options{
		SF: testSF, Out: out, RowGroupRows: 2000, BatchRows: 500,
		Progress: func(string, int64, int64) { cancel() },
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 0 {
		t.Errorf("cancelled run left %d entries, e.g. %s", len(entries), entries[0].Name())
	}
}

// TestRegenerateRemovesStaleParts: a second, smaller run into the same
// directory leaves only its own part files.
func TestRegenerateRemovesStaleParts(t *testing.T) {
	out := t.TempDir()
	opt := Options{SF: testSF, Out: out, Tables: []string{"orders"}, RowGroupRows: 2000}
	if s, err := Generate(context.Background(), opt); err != nil || len(s.Tables[0].Files) != 4 {
		t.Fatalf("first run: %v, %+v", err, s)
	}
	opt.RowGroupRows = 0
	s, err := Generate(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(out, "orders"))
	if len(entries) != 1 || len(s.Tables[0].Files) != 1 {
		t.Errorf("after the second run orders holds %d files", len(entries))
	}
}
