package rules

import (
	"sort"
	"sync"

	"github.com/hados-io/hados/internal/probe"
)

// Decision is one label set of hados_race_operators_total: whether a
// counted operator was offloaded or fell back, the operator, and the
// reason ("" when offloaded).
type Decision struct {
	Decision string `json:"decision"` // "offloaded" or "fallback"
	Operator string `json:"operator"`
	Reason   Reason `json:"reason,omitempty"`
}

// DecisionCount is a Decision with its count.
type DecisionCount struct {
	Decision
	Count uint64 `json:"count"`
}

// Stats counts offload decisions across results; safe for concurrent use.
// The metrics layer reads Snapshot at scrape time.
type Stats struct {
	mu     sync.Mutex
	counts map[Decision]uint64
}

// Record counts every operator of r once.
func (s *Stats) Record(r *Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil {
		s.counts = map[Decision]uint64{}
	}
	r.Walk(func(n *Node) {
		if !n.counted() {
			return
		}
		d := Decision{Decision: "offloaded", Operator: n.Spark.Op.String()}
		if !n.Kind.OnDevice() {
			d.Decision, d.Reason = "fallback", n.Verdict.Reason
			probe.Fallback(uint64(n.Spark.Op), probe.ReasonCode(string(d.Reason)), 0, 0, 0)
		}
		s.counts[d]++
	})
}

// Snapshot returns the counts sorted by decision, operator and reason.
func (s *Stats) Snapshot() []DecisionCount {
	s.mu.Lock()
	out := make([]DecisionCount, 0, len(s.counts))
	for d, c := range s.counts {
		out = append(out, DecisionCount{d, c})
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Decision.Decision != b.Decision.Decision {
			return a.Decision.Decision < b.Decision.Decision
		}
		if a.Operator != b.Operator {
			return a.Operator < b.Operator
		}
		return a.Reason < b.Reason
	})
	return out
}
