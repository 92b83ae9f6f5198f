package exchange

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	hmem "github.com/hados-io/hados/memory"
)

// TestShuffleWriterQuota: a shuffle writer whose allocator is charged to
// a task's quota fails a write that does not fit — whichever allocation
// it hits: a column's validity, values, offsets or data, a later column,
// the IPC encoding of a spill — with an error matching
// memory.ErrQuotaExceeded that names the exchange and the sizes, and
// Abort leaves no file, no byte charged and no live pool buffer.
func TestShuffleWriterQuota(t *testing.T) {
	pool := hmem.NewHostPool(hmem.PoolOptions{}, false)
	defer func() {
		if err := pool.Close(); err != nil {
			t.Error(err)
		}
	}()
	rng := rand.New(rand.NewPCG(4, 4))
	rec := randomRecord(t, rng, memory.DefaultAllocator, 3000, 0.1)
	defer rec.Release()
	failed := 0
	for limit := uint64(512); limit < 4<<20; limit = limit * 5 / 4 {
		acct := hmem.NewAccount("task 4", limit, pool.Account())
		dir := t.TempDir()
		part, err := NewHash([]int{0}, 8)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewShuffleWriter(part, WriterOptions{Dir: dir, Allocator: hmem.NewHostAllocator(pool, acct), MemoryLimit: 64 << 10})
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if err = w.Write(rec); err != nil {
				break
			}
		}
		if err == nil {
			_, err = w.Close()
		}
		w.Abort()
		if err != nil {
			failed++
			if !errors.Is(err, hmem.ErrQuotaExceeded) {
				t.Fatalf("limit %d: err = %v, want a quota error", limit, err)
			}
			msg := err.Error()
			for _, want := range []string{"exchange: ", "task 4 requested", "in use", "of " + hmem.FormatBytes(limit)} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q lacks %q", msg, want)
				}
			}
			if n := strings.Count(msg, hmem.ErrQuotaExceeded.Error()); n != 1 {
				t.Errorf("%q says %q %d times", msg, hmem.ErrQuotaExceeded, n)
			}
		}
		if n := acct.InUse(); n != 0 {
			t.Errorf("limit %d (%v): the account holds %d bytes after Abort", limit, err, n)
		}
		if ents, derr := os.ReadDir(dir); err != nil && (derr != nil || len(ents) != 0) {
			t.Errorf("limit %d: %d files left after a failure and Abort (%v)", limit, len(ents), derr)
		}
		if err := acct.Close(); err != nil {
			t.Error(err)
		}
	}
	if failed == 0 {
		t.Fatal("no limit failed")
	}
}
