package scan

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	hmem "github.com/hados-io/hados/memory"
)

// settle waits until no worker of s decodes (each has finished or waits
// for prefetch room).
func settle(t *testing.T, s *Scanner) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); s.busy.Load() > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d workers still decoding", s.busy.Load())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestPrefetchBytes: with the consumer idle, workers on later splits keep
// decoding while the decoded bytes fit Options.PrefetchBytes (a large
// budget lets the whole scan decode ahead), and a tiny budget holds the
// queued records to a few; either way the rows are those of a serial scan
// and the budget is given back as Next takes the records.
func TestPrefetchBytes(t *testing.T) {
	dir := t.TempDir()
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	var files []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("f%d.parquet", i))
		writeFile(t, p, rec, parquet.WithMaxRowGroupLength(200))
		files = append(files, p)
	}
	serial := Options{Files: files, Columns: testColumns, Parallelism: 1, Alloc: testAlloc(t)}
	want, _ := scanAll(t, serial)

	var maxRec int64 // the largest record at batch 50
	for _, r := range collect(t, Options{Files: files, Columns: testColumns, BatchRows: 50, Alloc: testAlloc(t)}) {
		maxRec = max(maxRec, recordBytes(r))
		r.Release()
	}
	for _, c := range []struct {
		budget   int64
		prefetch int
	}{{1 << 40, 1}, {1, 1}, {1, 3}, {3 * maxRec, 2}} {
		t.Run(fmt.Sprintf("budget %d prefetch %d", c.budget, c.prefetch), func(t *testing.T) {
			for _, par := range []int{1, 3} {
				opt := Options{Files: files, Columns: testColumns, Parallelism: par, SplitBytes: 1, BatchRows: 50,
					Prefetch: c.prefetch, PrefetchBytes: c.budget, Alloc: testAlloc(t)}
				s := mustOpen(t, opt)
				if len(s.splits) < 6 {
					t.Fatalf("%d splits", len(s.splits))
				}
				settle(t, s)
				s.pf.mu.Lock()
				used := s.pf.used
				s.pf.mu.Unlock()
				if c.budget > 1<<30 {
					if s.next.Load() < int64(len(s.splits)) {
						t.Errorf("parallelism %d: the consumer idle, workers stopped before the last split", par)
					}
				} else if bound := c.budget + int64(c.prefetch+1)*maxRec; used > bound {
					t.Errorf("parallelism %d: %d bytes queued, budget %d, at most %d", par, used, c.budget, bound)
				}
				var got []string
				each(t, s, func(r arrow.RecordBatch) {
					for i := 0; i < int(r.NumRows()); i++ {
						got = append(got, rowString(r, i))
					}
				})
				s.pf.mu.Lock()
				used = s.pf.used
				s.pf.mu.Unlock()
				s.Close()
				if d := diffRows(want, got); d != "" {
					t.Fatalf("parallelism %d: %s", par, d)
				}
				if used != 0 {
					t.Errorf("parallelism %d: %d bytes still counted after the last record", par, used)
				}
			}
		})
	}
}

// TestPrefetchDefault: the default budget follows the splits' decoded size
// and is held to a quarter of a limited account's quota.
func TestPrefetchDefault(t *testing.T) {
	dir := t.TempDir()
	rec := testRecord(memory.DefaultAllocator)
	defer rec.Release()
	p := filepath.Join(dir, "f.parquet")
	writeFile(t, p, rec)
	s := mustOpen(t, Options{Files: []string{p}, Columns: testColumns, Alloc: testAlloc(t)})
	s.Close()
	if s.pf.limit != minPrefetchBytes {
		t.Errorf("small file: budget %d, want the minimum %d", s.pf.limit, minPrefetchBytes)
	}
	if got := quotaOf(memory.DefaultAllocator); got != 0 {
		t.Errorf("Go allocator: quota %d", got)
	}

	pool := hmem.NewHostPool(hmem.PoolOptions{}, false)
	defer pool.Close()
	task := hmem.NewAccount("task", 16<<20, pool.Account())
	defer task.Close()
	a := hmem.NewHostAllocator(pool, task)
	s = mustOpen(t, Options{Files: []string{p}, Columns: testColumns, Alloc: a})
	rows := 0
	each(t, s, func(r arrow.RecordBatch) { rows += int(r.NumRows()) })
	s.Close()
	if s.pf.limit != 4<<20 || rows != testRows {
		t.Errorf("16 MiB task: budget %d, want 4 MiB; %d rows", s.pf.limit, rows)
	}
	if n := a.Allocated(); n != 0 {
		t.Errorf("%d bytes still allocated", n)
	}
}
