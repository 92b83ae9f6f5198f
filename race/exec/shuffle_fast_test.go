package exec_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hados-io/hados/race/exec"
)

// TestSmallShuffles runs builder queries with many exchanges (hash,
// range, single) three ways: every map output in files, small outputs
// kept in memory (the default), and in memory with reduce partitions not
// coalesced (each read alone; a range exchange then picks its bounds from
// the sample), and in memory with the reduce side's small records
// concatenated into batches of at most 7 rows (a record that would pass
// that waits for the next batch) instead of 64Ki. All give the same rows,
// ordered queries in the same order.
// In memory no exchange writes a file byte, and a small range exchange
// feeds one sort task.
func TestSmallShuffles(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB")
	for _, q := range []int{2, 11, 13, 16, 18, 21, 22} {
		t.Run(fmt.Sprintf("q%d", q), func(t *testing.T) {
			restore := exec.SetKeepBudget(0)
			files := run(t, exec.Env{Runtime: rt, Warehouse: dir}, q)
			restore()
			res := runResult(t, exec.Env{Runtime: rt, Warehouse: dir}, q)
			kept := rows(res)
			writes := 0
			for _, o := range res.Stats {
				if strings.HasSuffix(o.Name, " write") {
					writes++
					if o.Bytes != 0 {
						t.Errorf("%s wrote %d file bytes with its output in memory", o.Name, o.Bytes)
					}
				}
				if strings.HasSuffix(o.Name, "DpuSort") && o.Tasks != 1 {
					t.Errorf("%s: %d tasks after a small range exchange, want 1", o.Name, o.Tasks)
				}
			}
			if writes == 0 {
				t.Errorf("Q%d: no exchange write in the statistics", q)
			}
			res.Release()
			each := run(t, exec.Env{Runtime: rt, Warehouse: dir, AdvisoryPartitionBytes: -1}, q)
			restore = exec.SetCoalesceRows(7)
			small := run(t, exec.Env{Runtime: rt, Warehouse: dir}, q)
			restore()
			for name, got := range map[string][]string{"in memory": kept, "uncoalesced": each, "small batches": small} {
				if !slices.Equal(files, got) { // every one of these queries orders its result
					t.Errorf("Q%d %s: %d rows differ from the files' %d:\n got %.5q\nwant %.5q", q, name, len(got), len(files), got, files)
				}
			}
		})
	}
}

// runResult runs builder query q and returns its result (the caller
// releases it).
func runResult(t *testing.T, env exec.Env, q int) *exec.Result {
	t.Helper()
	out, err := exec.Run(context.Background(), env, convert(t, q))
	if err != nil {
		notReady(t, err)
		t.Fatalf("Q%d: %v", q, err)
	}
	return out
}
