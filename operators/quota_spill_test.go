package operators_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
)

// TestGraceHostBuffersCharged: the records a grace hash join's partition
// writers hold in Go memory are charged to a child account of the task's
// ("… HashJoin spill buffers"), limited to a quarter of what the task had
// left, so that the host side of a spill counts against the quota; the
// account refuses more rather than the join failing (the writers commit
// to disk early), the result is the in-memory one, and the account is
// gone, at zero, after Close.
func TestGraceHostBuffersCharged(t *testing.T) {
	ctx := context.Background()
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	lrecs, rrecs := joinSides(t, 5, 6000, 6000, 3000, 0.02, 500)
	defer releaseAll(lrecs)
	defer releaseAll(rrecs)
	spec := operators.JoinSpec{Type: operators.JoinInner, LeftKeys: keyExprs(2), RightKeys: keyExprs(2)}
	newJoin := joinMaker(t, tgt, lrecs, rrecs, spec)
	mem, _, err := drainJoin(ctx, newJoin())
	if err != nil {
		t.Fatal(err)
	}
	const limit = 160 << 10
	check := graceTarget(t, tgt, limit)
	task := tgt.Account
	j := newJoin()
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	// the build side is partitioned: its writers' account is there
	var bufs *hmem.AccountStats
	for _, c := range task.Children() {
		if strings.HasSuffix(c.Name, "HashJoin spill buffers") {
			bufs = &c
		}
	}
	if bufs == nil {
		t.Fatalf("no spill buffer account under the task: %+v", task.Children())
	}
	if bufs.Limit == 0 || bufs.Limit > limit/4 || bufs.Peak == 0 || bufs.Peak > bufs.Limit || bufs.InUse != 0 {
		t.Errorf("spill buffers %+v: want a limit of at most a quarter of %d, a peak within it, nothing held after the build side", *bufs, limit)
	}
	if bufs.QuotaExceeded == 0 {
		t.Errorf("the buffer account never refused (%+v): the test's data is too small to show the bound", *bufs)
	}
	var got [][]any
	for {
		r, err := j.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			break
		}
		for _, row := range rowsOf([]arrow.Record{r}) {
			for i, v := range row {
				if s, ok := v.(string); ok {
					row[i] = strings.Clone(s)
				}
			}
			got = append(got, row)
		}
		r.Release()
	}
	st := j.Stats()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(task.Children()); n != 0 {
		t.Errorf("%d child accounts left after Close: %+v", n, task.Children())
	}
	check()
	if st.SpillFiles == 0 {
		t.Fatalf("no spill: %+v", st)
	}
	if g, m := sortedKeys(got), sortedKeys(mem); !slices.Equal(g, m) {
		t.Fatalf("grace %d rows, in memory %d", len(g), len(m))
	}
	t.Logf("task peak %s of %s; buffers peak %s of %s, refused %d times; %d spill files",
		hmem.FormatBytes(task.Stats().Peak), hmem.FormatBytes(limit), hmem.FormatBytes(bufs.Peak), hmem.FormatBytes(bufs.Limit), bufs.QuotaExceeded, st.SpillFiles)
}
