package sched

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// grant records the order in which queued requests get the single slot.
func order(t *testing.T, s *Scheduler, reqs []struct {
	task int64
	pool string
}) []int64 {
	t.Helper()
	hold, err := s.Acquire(context.Background(), -1, "holder")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []int64
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func(task int64, pool string) {
			defer wg.Done()
			rel, err := s.Acquire(context.Background(), task, pool)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got = append(got, task)
			mu.Unlock()
			rel()
		}(r.task, r.pool)
		for s.Stats().Waiting < i+1 { // queue them in order
			time.Sleep(time.Millisecond)
		}
	}
	hold()
	wg.Wait()
	return got
}

func TestFIFO(t *testing.T) {
	s, _ := New(FIFO, 1)
	got := order(t, s, []struct {
		task int64
		pool string
	}{{1, "a"}, {2, "b"}, {3, "a"}, {4, "b"}})
	for i, w := range []int64{1, 2, 3, 4} {
		if got[i] != w {
			t.Fatalf("FIFO order %v", got)
		}
	}
}

func TestFairWeights(t *testing.T) {
	// eight slots, pool "heavy" weight 3, "light" weight 1, both saturated:
	// heavy should hold about 3x the slots of light (6:2)
	s, _ := New(FAIR, 8, Pool{Name: "heavy", Weight: 3}, Pool{Name: "light", Weight: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var mu sync.Mutex
	grants := map[string]int{}
	var wg sync.WaitGroup
	var pools []string
	for i := 0; i < 10; i++ {
		pools = append(pools, "heavy", "light")
	}
	for _, pool := range pools {
		wg.Add(1)
		go func(pool string) {
			defer wg.Done()
			for ctx.Err() == nil {
				rel, err := s.Acquire(ctx, 1, pool)
				if err != nil {
					return
				}
				mu.Lock()
				grants[pool]++
				mu.Unlock()
				time.Sleep(time.Millisecond)
				rel()
			}
		}(pool)
	}
	wg.Wait()
	ratio := float64(grants["heavy"]) / float64(max(grants["light"], 1))
	if ratio < 2 || ratio > 4.5 {
		t.Fatalf("weights 3:1 gave grants %v (ratio %.2f)", grants, ratio)
	}
}

func TestFairMinShare(t *testing.T) {
	s, _ := New(FAIR, 1, Pool{Name: "etl", Weight: 10}, Pool{Name: "bi", Weight: 1, MinShare: 1})
	got := order(t, s, []struct {
		task int64
		pool string
	}{{1, "etl"}, {2, "etl"}, {3, "bi"}})
	if got[0] != 3 {
		t.Fatalf("a pool below its minimum share goes first: %v", got)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	s, _ := New(FIFO, 1)
	hold, _ := s.Acquire(context.Background(), 1, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(ctx, 2, ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled wait: %v", err)
	}
	if st := s.Stats(); st.Waiting != 0 || st.Busy != 1 {
		t.Fatalf("after a cancelled wait: %+v", st)
	}
	hold()
	hold() // idempotent
	if st := s.Stats(); st.Busy != 0 {
		t.Fatalf("after release: %+v", st)
	}
}

func TestBadConfig(t *testing.T) {
	if _, err := New(FIFO, 0); err == nil {
		t.Fatal("0 slots accepted")
	}
	if _, err := New(FAIR, 1, Pool{Name: "x", Weight: -1}); err == nil {
		t.Fatal("negative weight accepted")
	}
	if _, err := ParsePolicy("RANDOM"); err == nil {
		t.Fatal("unknown policy accepted")
	}
}
