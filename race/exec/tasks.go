package exec

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/spill"
)

// defaultMaxFailures is Spark's spark.task.maxFailures default.
const defaultMaxFailures = 4

// maxFailures is how many attempts a task gets: Env.MaxFailures, else the
// runtime's spark.hados.task.maxFailures, else Spark's default.
func (q *query) maxFailures() int {
	if q.env.MaxFailures > 0 {
		return q.env.MaxFailures
	}
	if n := q.env.Runtime.Config().TaskMaxFailures; n > 0 {
		return n
	}
	return defaultMaxFailures
}

// runStage runs every task of s in parallel (bounded by the query's task
// slots) and then finishes its output.
func (q *query) runStage(ctx context.Context, s *stage) error {
	t0 := time.Now()
	s.begun = t0.Sub(q.t0)
	defer func() { s.elapsed = time.Since(t0) }()
	if err := q.planGroups(s); err != nil {
		return err
	}
	n, err := q.partitions(s, s.top)
	if err != nil {
		return fmt.Errorf("exec: %s: %w", s.name(), err)
	}
	n = max(1, n)
	s.tasks = n
	s.parts = make([][]arrow.Record, n)
	if s.kind == mapStage {
		if s.shuffle, err = q.newShuffleOut(s, n); err != nil {
			return fmt.Errorf("exec: %s: %w", s.name(), err)
		}
	}
	q.logf("%s: %d tasks", s.name(), n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for p := 0; p < n; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			errs[p] = q.runTask(ctx, s, p)
			s.finished.Add(1)
			if errs[p] != nil {
				cancel()
			}
		}(p)
	}
	wg.Wait()
	if err := firstCause(errs); err != nil {
		return err
	}
	if s.kind == mapStage {
		return q.finishShuffle(ctx, s)
	}
	return nil
}

// firstCause returns the first error that is not a cancellation caused by
// another task's failure (or the first error when all are).
func firstCause(errs []error) error {
	var first error
	for _, e := range errs {
		if e == nil {
			continue
		}
		if !errors.Is(e, context.Canceled) {
			return e
		}
		if first == nil {
			first = e
		}
	}
	return first
}

// retryable reports the device errors a new attempt may not meet: a DMA
// transfer error, a lost or hung device, exhausted device memory. An
// operator reports a device's out-of-memory error as its quota exceeded
// (operators.QuotaExceeded: errors.Is(err, memory.ErrQuotaExceeded)); it
// is still the device's, and retryable, unless a task's or device's quota
// refused the bytes (a *memory.QuotaError inside).
func retryable(err error) bool {
	if errors.Is(err, device.ErrNoMemory) {
		var qe *hmem.QuotaError
		return !errors.As(err, &qe)
	}
	return errors.Is(err, device.ErrIO) || errors.Is(err, device.ErrDeviceLost) || errors.Is(err, device.ErrHang) ||
		errors.Is(err, device.ErrTimeout)
}

// deviceGone reports the errors after which a device gets no more tasks
// of this query.
func deviceGone(err error) bool {
	return errors.Is(err, device.ErrDeviceLost) || errors.Is(err, device.ErrHang)
}

// runTask runs partition p of s, trying again on a retryable device error
// (on the next device) up to Env.MaxFailures attempts.
func (q *query) runTask(ctx context.Context, s *stage, p int) error {
	maxTries := q.maxFailures()
	var last error
	tries := 0
	for tries < maxTries {
		tries++
		s.tries.Add(1)
		addr, ok := q.pickDevice()
		if !ok {
			break
		}
		err := q.attemptTask(ctx, s, p, addr)
		if err == nil {
			return nil
		}
		last = err
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if !retryable(err) {
			break
		}
		if deviceGone(err) {
			q.dropDevice(addr)
		}
		q.logf("%s partition %d attempt %d on device %s failed: %v", s.name(), p, tries, addr, err)
	}
	if last == nil {
		last = fmt.Errorf("%w: no usable device left", device.ErrDeviceLost)
	}
	return fmt.Errorf("exec: %s partition %d failed after %d attempt(s): %w", s.name(), p, tries, last)
}

// attemptTask runs one attempt in a task slot on device addr.
func (q *query) attemptTask(ctx context.Context, s *stage, p int, addr string) (err error) {
	if err := q.slots.acquire(ctx, s.prio()); err != nil {
		return err
	}
	defer q.slots.release()
	task, err := q.env.Runtime.BeginTask(hados.TaskSpec{ID: q.nextTaskID(), Stage: s.id, Partition: p,
		Devices: []string{addr}, Quota: q.quota(addr), Pool: q.env.Pool})
	if err != nil {
		return err
	}
	defer func() {
		if eerr := task.End(); eerr != nil && err == nil {
			err = fmt.Errorf("task %d: %w", task.Spec.ID, eerr)
		}
	}()
	tgt := task.Targets()[0]
	tgt.CoreShare = q.taskCores(s)
	if q.spillDir != "" {
		m, err := spill.NewManager(filepath.Join(q.spillDir, fmt.Sprintf("task-%d", task.Spec.ID)), q.env.ShuffleCodec)
		if err != nil {
			return fmt.Errorf("task %d: spill directory: %w", task.Spec.ID, err)
		}
		tgt.Spill = m
		defer func() {
			if cerr := m.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("task %d: %w", task.Spec.ID, cerr)
			}
		}()
	}
	b := &builder{ctx: ctx, q: q, s: s, target: tgt, addr: addr}
	defer b.release()
	err = b.run(ctx, p)
	if err == nil {
		q.stats.add(b.stats)
	}
	return err
}

// splitTasks switches taskCores (on; off lets every task's operators
// spread over all of its device's cores, for A/B measurements).
var splitTasks = true

// taskCores is how many device cores each task of stage s spreads an
// operator's work over, asked each time an operator splits work: the
// task slots shared by the stage's unfinished tasks (one while they fill
// every slot, so that two tasks on two cores do not each split every
// program across both; more as the other tasks finish, so that the last
// one does not run on one core while the others idle), 0 (all) for a
// stage of one task.
func (q *query) taskCores(s *stage) func() int {
	if !splitTasks || s.tasks <= 1 {
		return func() int { return 0 }
	}
	slots := q.slots.size()
	return func() int {
		left := max(1, int64(s.tasks)-s.finished.Load())
		return max(1, slots/int(left))
	}
}

// pickDevice returns the next device round robin.
func (q *query) pickDevice() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.devices) == 0 {
		return "", false
	}
	i := q.next.Add(1) - 1
	return q.devices[i%uint64(len(q.devices))], true
}

// dropDevice stops giving tasks to a device that was lost (the last one is
// kept: its error then ends the query).
func (q *query) dropDevice(addr string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.devices) <= 1 {
		return
	}
	for i, d := range q.devices {
		if d == addr {
			q.devices = append(q.devices[:i:i], q.devices[i+1:]...)
			return
		}
	}
}

// run builds the stage's operators for partition p and drains them into
// the stage's output.
func (b *builder) run(ctx context.Context, p int) error {
	op, err := b.build(b.s.top, p)
	if err != nil {
		return err
	}
	if b.s.kind == mapStage {
		if b.s == b.q.alone { // a stage run on its own: the host engine shuffles
			return b.q.mapOutput(ctx, b, op, p)
		}
		return b.q.writeMap(ctx, b, op, p)
	}
	recs, err := operators.Collect(ctx, op)
	if err == nil {
		recs, err = toHost(recs, b.q.hostMem(b.s))
	}
	if err != nil {
		return err
	}
	b.s.mu.Lock()
	if b.s.schema == nil || p == 0 {
		b.s.schema = op.Schema()
	}
	for _, r := range b.s.parts[p] { // an earlier attempt's output cannot remain, but be safe
		r.Release()
	}
	b.s.parts[p] = recs
	b.s.mu.Unlock()
	return nil
}
