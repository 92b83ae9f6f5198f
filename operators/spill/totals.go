package spill

import (
	"sort"
	"sync"
)

// Totals adds up what many managers spilled, by operator: a runtime keeps
// one per device and every task's manager on that device reports to it, so
// the counts outlive the tasks (they feed the hados_spill_* metrics). The
// zero value is ready; safe for concurrent use.
type Totals struct {
	mu sync.Mutex
	by map[string]Stats
}

// OperatorStats is one operator's share of Totals.
type OperatorStats struct {
	Operator string
	Stats
}

func (t *Totals) add(operator string, s Stats) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.by == nil {
		t.by = map[string]Stats{}
	}
	t.by[operator] = t.by[operator].Add(s)
}

// Snapshot returns the totals per operator, sorted by operator name.
func (t *Totals) Snapshot() []OperatorStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]OperatorStats, 0, len(t.by))
	for op, s := range t.by {
		out = append(out, OperatorStats{Operator: op, Stats: s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Operator < out[j].Operator })
	return out
}
