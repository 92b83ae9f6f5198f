package exec

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestSlotSet checks the task slots: at most n held at once, freed slots
// go to waiting broadcast tasks before normal ones and in arrival order
// within a priority, and a waiter whose context ends leaves without
// taking (or losing) a slot.
func TestSlotSet(t *testing.T) {
	ctx := context.Background()
	s := newSlotSet(2)
	for range 2 {
		if err := s.acquire(ctx, prioNormal); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wait := func(name string, prio int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.acquire(ctx, prio); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}()
		for { // queued before the next one
			s.mu.Lock()
			n := len(s.waiting[prio])
			s.mu.Unlock()
			if n > 0 && (name != "n2" && name != "b2" || n > 1) {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	wait("n1", prioNormal)
	wait("b1", prioBroadcast)
	wait("n2", prioNormal)
	wait("b2", prioBroadcast)
	// a canceled waiter takes nothing
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.acquire(cctx, prioBroadcast); err == nil {
		t.Fatal("acquire under a canceled context took a slot of a full set")
	}
	for i := range 4 {
		s.release()
		for { // the waiter handed the slot has recorded it
			mu.Lock()
			n := len(order)
			mu.Unlock()
			if n > i {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	wg.Wait()
	if want := []string{"b1", "b2", "n1", "n2"}; len(order) != 4 || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] || order[3] != want[3] {
		t.Errorf("slots went to %v, want %v", order, want)
	}
	// the two slots held: free them; the set is empty again
	s.release()
	s.release()
	if s.used != 0 || len(s.waiting[prioNormal])+len(s.waiting[prioBroadcast]) != 0 {
		t.Errorf("after every release: %d used, %d waiting", s.used, len(s.waiting[prioNormal])+len(s.waiting[prioBroadcast]))
	}
}
