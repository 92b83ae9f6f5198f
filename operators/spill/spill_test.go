package spill

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/testkit"
	"github.com/hados-io/hados/operators/exchange"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "amount", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}, Nullable: true},
	{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// makeRecord builds n rows of testSchema with about 1 null in 7.
func makeRecord(mem memory.Allocator, n int, seed uint64) arrow.Record {
	r := rand.New(rand.NewPCG(seed, 7))
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	for i := 0; i < n; i++ {
		null := func() bool { return r.IntN(7) == 0 }
		if null() {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(r.Int64() - r.Int64())
		}
		if null() {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", r.IntN(20)) + fmt.Sprint(i))
		}
		if null() {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Decimal128Builder).Append(decimal128.New(r.Int64N(3)-1, r.Uint64()))
		}
		if null() {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.BooleanBuilder).Append(r.IntN(2) == 0)
		}
	}
	return b.NewRecordBatch()
}

// withSegmentBytes sets the segment size for one test.
func withSegmentBytes(t *testing.T, n int64) {
	old := segmentBytes
	segmentBytes = n
	t.Cleanup(func() { segmentBytes = old })
}

// readAll reads a run and concatenates its records (nil when empty).
func readAll(t *testing.T, r *Run, mem memory.Allocator) arrow.Record {
	t.Helper()
	rd, err := r.Open(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []arrow.Record
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	for {
		rec, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return nil
	}
	out, err := exchange.Concat(recs, mem)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func concat(t *testing.T, recs []arrow.Record) arrow.Record {
	t.Helper()
	out, err := exchange.Concat(recs, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name    string
		codec   exchange.Codec
		segment int64
		batches []int
	}{
		{"lz4", exchange.LZ4, 8 << 20, []int{100, 1, 2048, 333}},
		{"snappy", exchange.Snappy, 8 << 20, []int{100, 1, 2048, 333}},
		{"none", exchange.NoCompression, 8 << 20, []int{5}},
		{"lz4 segments", exchange.LZ4, 4 << 10, []int{500, 500, 7, 1000}},
		{"empty batches", exchange.LZ4, 8 << 20, []int{0, 3, 0}},
		{"nothing", exchange.Snappy, 8 << 20, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withSegmentBytes(t, c.segment)
			parent := t.TempDir()
			m, err := NewManager(filepath.Join(parent, "spill"), c.codec)
			if err != nil {
				t.Fatal(err)
			}
			w, err := m.Create("HashAggregate", testSchema)
			if err != nil {
				t.Fatal(err)
			}
			var want []arrow.Record
			var rows int64
			for i, n := range c.batches {
				rec := makeRecord(memory.DefaultAllocator, n, uint64(i))
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
				if n > 0 {
					want = append(want, rec)
				} else {
					rec.Release()
				}
				rows += int64(n)
			}
			run, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if run.Rows() != rows {
				t.Errorf("Rows() = %d, want %d", run.Rows(), rows)
			}
			if (rows > 0) != (run.Bytes() > 0) || (rows > 0) != (run.Files() > 0) {
				t.Errorf("%d rows in %d bytes, %d files", rows, run.Bytes(), run.Files())
			}
			if c.segment < 1<<20 && run.Files() < 4 {
				t.Errorf("%d files: small segments should have split the run", run.Files())
			}
			if got := countFiles(t, m.Dir()); got != run.Files() {
				t.Errorf("%d files on disk, the run says %d", got, run.Files())
			}
			st := m.Stats()
			if st != (Stats{Runs: 1, Files: int64(run.Files()), Bytes: run.Bytes(), Rows: rows}) {
				t.Errorf("manager stats %+v for a run of %d files, %d bytes, %d rows", st, run.Files(), run.Bytes(), rows)
			}
			mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
			for pass := 0; pass < 2; pass++ { // a run can be read again
				got := readAll(t, run, mem)
				if len(want) == 0 {
					if got != nil {
						t.Fatalf("read %d rows from an empty run", got.NumRows())
					}
				} else {
					w := concat(t, want)
					if !array.RecordEqual(w, got) {
						t.Fatalf("pass %d: read back\n%v\nwant\n%v", pass, got, w)
					}
					w.Release()
					got.Release()
				}
			}
			mem.AssertSize(t, 0)
			for _, r := range want {
				r.Release()
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(m.Dir()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("manager directory still there after Close: %v", err)
			}
			if _, err := os.Stat(filepath.Join(parent, "spill")); err != nil {
				t.Errorf("the configured spill directory must stay: %v", err)
			}
		})
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// writeRun writes the given batch sizes and finishes the run.
func writeRun(t testing.TB, m *Manager, op string, batches ...int) *Run {
	t.Helper()
	w, err := m.Create(op, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range batches {
		rec := makeRecord(memory.DefaultAllocator, n, uint64(i))
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPermissionsAndNames(t *testing.T) {
	withSegmentBytes(t, 4<<10)
	parent := filepath.Join(t.TempDir(), "a", "b")
	m1, err := NewManager(parent, exchange.LZ4)
	if err != nil {
		t.Fatal(err)
	}
	defer m1.Close()
	m2, err := NewManager(parent, exchange.LZ4) // another task, same configuration
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if m1.Dir() == m2.Dir() {
		t.Fatalf("two managers share %s", m1.Dir())
	}
	for _, d := range []string{parent, m1.Dir()} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v (%v), want 0700", d, st.Mode().Perm(), err)
		}
	}
	writeRun(t, m1, "Sort", 800, 900)
	writeRun(t, m2, "Sort", 800)
	writeRun(t, m1, "Hash Join/build", 10)
	names := map[string]bool{}
	for _, m := range []*Manager{m1, m2} {
		ents, _ := os.ReadDir(m.Dir())
		for _, e := range ents {
			info, _ := e.Info()
			if info.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", e.Name(), info.Mode().Perm())
			}
			if strings.HasPrefix(e.Name(), ".") || strings.Contains(e.Name(), "tmp") {
				t.Errorf("temporary file %s left behind", e.Name())
			}
			names[m.Dir()+"/"+e.Name()] = true
		}
	}
	if !names[filepath.Join(m1.Dir(), "HashJoinbuild-000002-0000.data")] {
		t.Errorf("file names %v lack the run of operator %q", names, "Hash Join/build")
	}
}

func TestAbortRemoveAndClose(t *testing.T) {
	withSegmentBytes(t, 2<<10)
	m, err := NewManager(t.TempDir(), exchange.Snappy)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.Create("Sort", testSchema)
	rec := makeRecord(memory.DefaultAllocator, 500, 1)
	defer rec.Release()
	for i := 0; i < 3; i++ {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if countFiles(t, m.Dir()) == 0 {
		t.Fatal("small segments should be on disk before Finish")
	}
	w.Abort()
	w.Abort()
	if n := countFiles(t, m.Dir()); n != 0 {
		t.Errorf("%d files left after Abort", n)
	}
	if err := w.Write(rec); err == nil {
		t.Error("write after Abort succeeded")
	}
	if _, err := w.Finish(); err == nil {
		t.Error("Finish after Abort succeeded")
	}
	r := writeRun(t, m, "Sort", 100)
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Open(nil); err == nil {
		t.Error("opened a removed run")
	}
	if n := countFiles(t, m.Dir()); n != 0 {
		t.Errorf("%d files left after Remove", n)
	}
	// Close removes unfinished writers' and finished runs' files.
	writeRun(t, m, "Sort", 100)
	w2, _ := m.Create("Sort", testSchema)
	if err := w2.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("directory left after Close: %v", err)
	}
	if _, err := m.Create("Sort", testSchema); err == nil {
		t.Error("Create on a closed manager succeeded")
	}
	if got := m.Stats(); got.Runs != 2 || got.Rows != 200 {
		t.Errorf("stats %+v: want 2 runs of 200 rows (aborted runs do not count)", got)
	}
}

func TestSchemaConformance(t *testing.T) {
	m, err := NewManager(t.TempDir(), exchange.LZ4)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// other names and nullability: accepted under the run's schema
	renamed := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.BinaryTypes.String},
		{Name: "c", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}}, {Name: "d", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	rec := makeRecord(memory.DefaultAllocator, 10, 3)
	defer rec.Release()
	re := array.NewRecordBatch(renamed, rec.Columns(), rec.NumRows())
	defer re.Release()
	w, _ := m.Create("Sort", testSchema)
	if err := w.Write(re); err != nil {
		t.Fatal(err)
	}
	r, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, r, nil)
	defer got.Release()
	if !got.Schema().Equal(testSchema) || !array.RecordEqual(got, rec) {
		t.Errorf("read back %v", got)
	}
	// other types: refused with the column named
	other := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}}, nil)
	w, _ = m.Create("Sort", other)
	err = w.Write(rec)
	if err == nil || !strings.Contains(err.Error(), "Sort") || !strings.Contains(err.Error(), "columns") {
		t.Errorf("error %v: want the column count named", err)
	}
	w.Abort()
	w, _ = m.Create("Sort", arrow.NewSchema(append([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}}, testSchema.Fields()[1:]...), nil))
	err = w.Write(rec)
	if err == nil || !strings.Contains(err.Error(), "column 0 (id) is int64") {
		t.Errorf("error %v: want column 0's type named", err)
	}
	if _, err := w.Finish(); err == nil {
		t.Error("Finish after a failed Write succeeded")
	}
}

func TestNewManagerErrors(t *testing.T) {
	if _, err := NewManager("", exchange.LZ4); err == nil {
		t.Error("empty directory accepted")
	}
	if _, err := NewManager(t.TempDir(), exchange.Codec(9)); err == nil {
		t.Error("unknown codec accepted")
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if _, err := NewManager(file, exchange.LZ4); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a file as spill directory: %v", err)
	}
}

// TestLayoutGolden pins the on-disk layout of a small uncompressed run:
// file names and sizes, and the index files' offsets.
func TestLayoutGolden(t *testing.T) {
	withSegmentBytes(t, 1<<10)
	m, err := NewManager(t.TempDir(), exchange.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := writeRun(t, m, "HashAggregate", 40, 40, 3)
	var b strings.Builder
	fmt.Fprintf(&b, "run: %d rows, %d bytes, %d files\n", r.Rows(), r.Bytes(), r.Files())
	ents, _ := os.ReadDir(m.Dir())
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(m.Dir(), n))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d bytes", n, len(data))
		if strings.HasSuffix(n, ".index") {
			fmt.Fprintf(&b, " % x", data)
		} else {
			fmt.Fprintf(&b, " header % x", data[:24])
		}
		b.WriteString("\n")
	}
	testkit.Golden(t, filepath.Join("testdata", "layout.golden"), b.String(), *update)
}

// TestConcurrentWriters uses one manager from several goroutines (as the
// operators of one task may): run with -race.
func TestConcurrentWriters(t *testing.T) {
	m, err := NewManager(t.TempDir(), exchange.LZ4)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	done := make(chan *Run)
	for g := 0; g < 4; g++ {
		go func() {
			w, err := m.Create("Sort", testSchema)
			if err != nil {
				t.Error(err)
				done <- nil
				return
			}
			rec := makeRecord(memory.DefaultAllocator, 50, uint64(g))
			defer rec.Release()
			if err := w.Write(rec); err != nil {
				t.Error(err)
			}
			r, err := w.Finish()
			if err != nil {
				t.Error(err)
			}
			done <- r
		}()
	}
	for g := 0; g < 4; g++ {
		if r := <-done; r != nil && r.Rows() != 50 {
			t.Errorf("run of %d rows", r.Rows())
		}
	}
	if st := m.Stats(); st.Runs != 4 || st.Rows != 200 {
		t.Errorf("stats %+v", st)
	}
}

func TestTotals(t *testing.T) {
	var tot Totals
	for i := 0; i < 2; i++ {
		m, err := NewManager(t.TempDir(), exchange.LZ4)
		if err != nil {
			t.Fatal(err)
		}
		m.ReportTo(&tot)
		writeRun(t, m, "Sort", 10)
		writeRun(t, m, "HashAggregate", 5, 5)
		w, _ := m.Create("HashJoin", testSchema) // aborted: not counted
		w.Abort()
		m.Close()
	}
	got := tot.Snapshot()
	if len(got) != 2 || got[0].Operator != "HashAggregate" || got[0].Rows != 20 || got[0].Runs != 2 ||
		got[1].Operator != "Sort" || got[1].Rows != 20 || got[1].Files != 4 || got[1].Bytes == 0 {
		t.Errorf("totals %+v", got)
	}
}
