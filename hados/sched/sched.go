// Package sched decides which task runs next on a device when more tasks
// want it than it has engine cores: FIFO (the order tasks asked) or FAIR
// (pools with weights and minimum shares), mirroring Spark's scheduler
// modes (spark.scheduler.mode, fairscheduler.xml pools).
//
// A task acquires a slot before it submits device work and releases it
// when the work completes; a device has one slot per engine core. Waiting
// is cancellable through the context. The scheduler owns no goroutines.
package sched

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Policy is the scheduling mode.
type Policy int

const (
	FIFO Policy = iota
	FAIR
)

// ParsePolicy parses "FIFO" or "FAIR" (Spark's spelling, any case).
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "FIFO", "fifo", "":
		return FIFO, nil
	case "FAIR", "fair":
		return FAIR, nil
	}
	return FIFO, fmt.Errorf("scheduler mode %q: want FIFO or FAIR", s)
}

func (p Policy) String() string {
	if p == FAIR {
		return "FAIR"
	}
	return "FIFO"
}

// Pool configures a FAIR pool, as in Spark's fairscheduler.xml.
type Pool struct {
	Name     string
	Weight   int // share relative to other pools (default 1)
	MinShare int // slots the pool is owed before weights apply
}

// Scheduler hands out a device's slots. Safe for concurrent use.
type Scheduler struct {
	policy Policy
	slots  int

	mu      sync.Mutex
	busy    int
	pools   map[string]*poolState
	waiters []*waiter
	seq     uint64
}

type poolState struct {
	Pool
	running int
}

type waiter struct {
	seq   uint64
	task  int64
	pool  *poolState
	ready chan struct{}
}

// New creates a scheduler with slots concurrent slots. Pools not listed
// are created on first use with weight 1 and no minimum share.
func New(policy Policy, slots int, pools ...Pool) (*Scheduler, error) {
	if slots < 1 {
		return nil, fmt.Errorf("scheduler: %d slots", slots)
	}
	s := &Scheduler{policy: policy, slots: slots, pools: map[string]*poolState{}}
	for _, p := range pools {
		if p.Weight < 0 || p.MinShare < 0 {
			return nil, fmt.Errorf("scheduler: pool %q: negative weight or minimum share", p.Name)
		}
		if p.Weight == 0 {
			p.Weight = 1
		}
		s.pools[p.Name] = &poolState{Pool: p}
	}
	return s, nil
}

func (s *Scheduler) pool(name string) *poolState {
	p, ok := s.pools[name]
	if !ok {
		p = &poolState{Pool: Pool{Name: name, Weight: 1}}
		s.pools[name] = p
	}
	return p
}

// Acquire waits for a slot for task (in pool, for FAIR) and returns the
// function that gives it back; it must be called exactly once.
func (s *Scheduler) Acquire(ctx context.Context, task int64, pool string) (func(), error) {
	s.mu.Lock()
	s.seq++
	w := &waiter{seq: s.seq, task: task, pool: s.pool(pool), ready: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.dispatch()
	s.mu.Unlock()
	select {
	case <-w.ready:
		return s.releaser(w), nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			s.release(w)
		default:
			s.remove(w)
		}
		return nil, ctx.Err()
	}
}

func (s *Scheduler) releaser(w *waiter) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.release(w)
			s.mu.Unlock()
		})
	}
}

// release frees w's slot and grants the next; s.mu held.
func (s *Scheduler) release(w *waiter) {
	s.busy--
	w.pool.running--
	s.dispatch()
}

func (s *Scheduler) remove(w *waiter) {
	for i, x := range s.waiters {
		if x == w {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			return
		}
	}
}

// dispatch grants free slots by policy; s.mu held.
func (s *Scheduler) dispatch() {
	for s.busy < s.slots && len(s.waiters) > 0 {
		i := 0
		if s.policy == FAIR {
			i = s.fairPick()
		}
		w := s.waiters[i]
		s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
		s.busy++
		w.pool.running++
		close(w.ready)
	}
}

// fairPick orders the pools with waiters as Spark's FairSchedulingAlgorithm
// does — pools below their minimum share first (by running/minShare), then
// by running/weight, then by name — and returns the pool's oldest waiter.
func (s *Scheduler) fairPick() int {
	first := map[*poolState]int{}
	var cands []*poolState
	for i, w := range s.waiters {
		if _, ok := first[w.pool]; !ok {
			first[w.pool] = i
			cands = append(cands, w.pool)
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return fairLess(cands[a], cands[b]) })
	return first[cands[0]]
}

func fairLess(a, b *poolState) bool {
	aNeedy, bNeedy := a.running < a.MinShare, b.running < b.MinShare
	switch {
	case aNeedy && !bNeedy:
		return true
	case !aNeedy && bNeedy:
		return false
	case aNeedy && bNeedy:
		ra := float64(a.running) / float64(max(a.MinShare, 1))
		rb := float64(b.running) / float64(max(b.MinShare, 1))
		if ra != rb {
			return ra < rb
		}
	default:
		ra := float64(a.running) / float64(a.Weight)
		rb := float64(b.running) / float64(b.Weight)
		if ra != rb {
			return ra < rb
		}
	}
	return a.Name < b.Name
}

// Stats is a snapshot of the scheduler.
type Stats struct {
	Policy  string         `json:"policy"`
	Slots   int            `json:"slots"`
	Busy    int            `json:"busy"`
	Waiting int            `json:"waiting"`
	Running map[string]int `json:"running_by_pool"`
}

// Stats returns a snapshot.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Policy: s.policy.String(), Slots: s.slots, Busy: s.busy, Waiting: len(s.waiters), Running: map[string]int{}}
	for n, p := range s.pools {
		st.Running[n] = p.running
	}
	return st
}
