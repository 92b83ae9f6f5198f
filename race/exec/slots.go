package exec

import (
	"context"
	"sync"
)

// Task slot priorities: a waiting task of a higher priority gets the next
// free slot before any of a lower one, and tasks of one priority get
// slots in the order they asked.
const (
	prioNormal = iota
	// prioBroadcast: the tasks of a broadcast stage and the build of its
	// table. The stage a broadcast feeds cannot start before it, while a
	// map stage it runs beside (TPC-H Q17: part's broadcast beside
	// lineitem's aggregation) can run at any time: taking slots first
	// keeps the joining stage's tasks from arriving late and running alone
	// at the end.
	prioBroadcast
	numPrios
)

// slotSet bounds the tasks a query runs at once (Env.Parallelism) and
// hands freed slots to waiting tasks by priority.
type slotSet struct {
	mu      sync.Mutex
	n, used int
	waiting [numPrios][]chan struct{}
}

func newSlotSet(n int) *slotSet { return &slotSet{n: max(1, n)} }

// size is the number of slots.
func (s *slotSet) size() int { return s.n }

// acquire waits for a slot (release gives it back) or for ctx to end.
func (s *slotSet) acquire(ctx context.Context, prio int) error {
	s.mu.Lock()
	if s.used < s.n {
		s.used++
		s.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	s.waiting[prio] = append(s.waiting[prio], ch)
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	select {
	case <-ch: // handed a slot as ctx ended: give it on
		s.mu.Unlock()
		s.release()
		return context.Cause(ctx)
	default:
	}
	w := s.waiting[prio]
	for i, c := range w {
		if c == ch {
			s.waiting[prio] = append(w[:i:i], w[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	return context.Cause(ctx)
}

// release frees a slot, handing it to the first waiting task of the
// highest priority.
func (s *slotSet) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := numPrios - 1; p >= 0; p-- {
		if w := s.waiting[p]; len(w) > 0 {
			close(w[0])
			w[0] = nil
			s.waiting[p] = w[1:]
			return
		}
	}
	s.used--
}
