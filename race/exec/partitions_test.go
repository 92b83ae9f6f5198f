package exec

import "testing"

// TestParallelismFirst checks the coalescing target of a reduce stage:
// by default at most the stage's input over the task slots (so a small
// shuffle still gives every slot a task), at least minPartitionBytes,
// never above the advisory size; an explicit advisory size, no
// coalescing (negative) and one slot keep the target as it was.
func TestParallelismFirst(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		slots    int
		advisory int64 // Env.AdvisoryPartitionBytes
		target   int64 // advisoryBytes()
		total    int64
		want     int64
	}{
		{slots: 2, target: 64 * mib, total: 30 * mib, want: 15 * mib},
		{slots: 2, target: 64 * mib, total: 30*mib + 1, want: 15*mib + 1},
		{slots: 4, target: 64 * mib, total: 1000 * mib, want: 64 * mib},
		{slots: 2, target: 64 * mib, total: 100, want: mib},
		{slots: 2, target: 64 * mib, total: 0, want: mib},
		{slots: 1, target: 64 * mib, total: 30 * mib, want: 64 * mib},
		{slots: 2, advisory: 2 << 10, target: 2 << 10, total: 30 * mib, want: 2 << 10},
		{slots: 2, advisory: -1, target: -1, total: 30 * mib, want: -1},
	} {
		q := &query{env: Env{AdvisoryPartitionBytes: c.advisory}, slots: newSlotSet(c.slots)}
		if got := q.parallelismFirst(c.target, c.total); got != c.want {
			t.Errorf("%d slots, advisory %d, %d bytes in: target %d, want %d", c.slots, c.advisory, c.total, got, c.want)
		}
	}
	// 200 equal partitions of 30 MiB over 2 slots: 2 tasks, not 1
	sizes := make([]int64, 200)
	for i := range sizes {
		sizes[i] = 30 * mib / 200
	}
	q := &query{slots: newSlotSet(2)}
	if g := coalesce(sizes, q.parallelismFirst(q.advisoryBytes(), 30*mib)); len(g) != 2 || g[0] != [2]int{0, 100} || g[1] != [2]int{100, 200} {
		t.Errorf("200 partitions of 30 MiB on 2 slots coalesce to %v, want [[0 100] [100 200]]", g)
	}
}
