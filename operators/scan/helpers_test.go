package scan

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"go.uber.org/goleak"

	"github.com/hados-io/hados/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// deviceTestMode reports whether HADOS_SCAN_TEST_DEVICE=1 asks testAlloc
// for device allocators.
func deviceTestMode() bool { return os.Getenv("HADOS_SCAN_TEST_DEVICE") == "1" }

// testAlloc is a hados host allocator that fails the test if any byte is
// still allocated when the test ends.
//
// With HADOS_SCAN_TEST_DEVICE=1 it is a device allocator of a software DPU
// instead, so that the whole suite runs with pages decompressed on the
// device (devdecomp.go).
func testAlloc(t testing.TB) *memory.Allocator {
	t.Helper()
	if deviceTestMode() {
		return testDeviceAlloc(t)
	}
	pool := memory.NewHostPool(memory.PoolOptions{}, false)
	a := memory.NewHostAllocator(pool, nil)
	t.Cleanup(func() {
		if n := a.Allocated(); n != 0 {
			t.Errorf("allocator leak: %d bytes still allocated", n)
		}
		if err := pool.Close(); err != nil && !t.Failed() {
			t.Errorf("pool close: %v", err)
		}
	})
	return a
}

// writeFile writes rec to path as Parquet with the given writer properties.
func writeFile(t testing.TB, path string, rec arrow.RecordBatch, props ...parquet.WriterProperty) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(props...),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// scanAll runs a scan to the end and returns its rows, printed, and stats.
func scanAll(t testing.TB, opt Options) ([]string, Stats) {
	t.Helper()
	rows, st, err := tryScan(opt, nil)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return rows, st
}

// tryScan runs a scan; with f set, only the rows where Eval(f) is true are kept.
func tryScan(opt Options, f Filter) ([]string, Stats, error) {
	s, err := Open(context.Background(), opt)
	if err != nil {
		return nil, Stats{}, err
	}
	defer s.Close()
	var rows []string
	for {
		rec, err := s.Next()
		if err != nil {
			return nil, s.Stats(), err
		}
		if rec == nil {
			break
		}
		keep := make([]bool, rec.NumRows())
		for i := range keep {
			keep[i] = true
		}
		if f != nil {
			if keep, err = Eval(f, rec); err != nil {
				rec.Release()
				return nil, s.Stats(), err
			}
		}
		for i, k := range keep {
			if k {
				rows = append(rows, rowString(rec, i))
			}
		}
		rec.Release()
	}
	return rows, s.Stats(), nil
}

// each calls fn on every record s returns, in order, releasing each once
// fn returns (fn retains what it keeps); an error fails the test.
func each(t testing.TB, s *Scanner, fn func(rec arrow.RecordBatch)) {
	t.Helper()
	for {
		rec, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			return
		}
		fn(rec)
		rec.Release()
	}
}

// collect runs a scan and returns its records; release them with releaseAll.
func collect(t testing.TB, opt Options) []arrow.RecordBatch {
	t.Helper()
	s, err := Open(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []arrow.RecordBatch
	for {
		rec, err := s.Next()
		if err != nil {
			releaseAll(out)
			t.Fatal(err)
		}
		if rec == nil {
			return out
		}
		out = append(out, rec)
	}
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// filterRows returns the printed rows of recs where Eval(f) is true.
func filterRows(t testing.TB, recs []arrow.RecordBatch, f Filter) []string {
	t.Helper()
	var rows []string
	for _, rec := range recs {
		keep, err := Eval(f, rec)
		if err != nil {
			t.Fatalf("Eval(%s): %v", f, err)
		}
		for i, k := range keep {
			if k {
				rows = append(rows, rowString(rec, i))
			}
		}
	}
	return rows
}

func rowString(rec arrow.RecordBatch, i int) string {
	parts := make([]string, rec.NumCols())
	for c := range parts {
		col := rec.Column(c)
		if col.IsNull(i) {
			parts[c] = "null"
			continue
		}
		switch a := col.(type) {
		case *array.Float64:
			v := a.Value(i)
			if v == 0 && math.Signbit(v) {
				parts[c] = "-0"
				continue
			}
		}
		parts[c] = col.ValueStr(i)
	}
	return strings.Join(parts, "|")
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func diffRows(want, got []string) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			return fmt.Sprintf("row %d: got %s, want %s", i, got[i], want[i])
		}
	}
	return ""
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func mustOpen(t testing.TB, opt Options) *Scanner {
	t.Helper()
	s, err := Open(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkVariants scans base again at batch sizes 7 and the default and at
// each parallelism of pars, on a fresh allocator each, and compares the
// rows with want; scan returns the rows and a count of what the variant
// under test did (row groups inflated, pages decompressed on the device),
// which must be non-zero exactly when some is true.
func checkVariants(t *testing.T, want []string, base Options, pars []int, alloc func(testing.TB) *memory.Allocator,
	scan func(*testing.T, Options) ([]string, int64), some bool, what string) {
	t.Helper()
	for _, batch := range []int{7, 0} {
		for _, par := range pars {
			opt := base
			opt.Parallelism, opt.BatchRows, opt.Alloc = par, batch, alloc(t)
			got, n := scan(t, opt)
			if d := diffRows(want, got); d != "" {
				t.Fatalf("batch %d parallelism %d: %s", batch, par, d)
			}
			if (n > 0) != some {
				t.Errorf("batch %d parallelism %d: %d %s, want some: %v", batch, par, n, what, some)
			}
		}
	}
}

// openPastFirst opens a scan and reads (and releases) its first record,
// which must exist; the caller closes the scan.
func openPastFirst(ctx context.Context, t *testing.T, opt Options) *Scanner {
	t.Helper()
	s, err := Open(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Next()
	if err != nil || rec == nil {
		t.Fatalf("first record: %v", err)
	}
	rec.Release()
	return s
}
