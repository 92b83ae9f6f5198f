package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/rules"
)

// query is one run of a plan: its stages, shuffle directory, broadcast
// tables, scalar subquery values, task slots and statistics. close
// releases everything it holds.
type query struct {
	env      Env
	res      *rules.Result
	t0       time.Time // when the query began (StageStats.Start)
	cancel   context.CancelFunc
	dir      string   // shuffle files, removed by close
	spillDir string   // the tasks' spill directories ("": no spilling), removed by close
	slots    *slotSet // concurrent tasks
	devices  []string
	slotMem  uint64 // per-task quota when Env.TaskMemory is 0 (per device: see quota)
	next     atomic.Uint64
	taskID   atomic.Int64
	stats    *statsTable

	mu       sync.Mutex
	stages   []*stage
	byNode   map[*rules.Node]*stage // exchange (and gather) node → the stage producing it
	scalars  convert.Bindings
	sqRuns   map[int64]*scalarRun // the scalar subqueries planned (subquery.go)
	payloads map[*rules.Node]*rules.Payload
	inputs   map[*rules.Node]int // RowToColumnar over the host → Env.Inputs index
	// alone is the stage RunStage runs on its own, and external the
	// shuffle reads of it the host engine feeds, by reading node (scalar
	// subqueries run as usual)
	alone    *stage
	external map[*rules.Node]operators.Operator
	// result is the main tree's result stage (its records are the query's)
	result    *stage
	fileCache map[*rules.Node][]string
	// splitCache: a scan's splits (partitions.go)
	splitCache map[*rules.Node][]split
	// cores counts the engine cores of every device of the runtime, also
	// when Env.Device runs the query on one of them: the scan splits are
	// cut by it, and every task of a stage, whichever device runs it, must
	// see the same split list (RunStage tasks re-plan it; Stages counts
	// the tasks over all devices).
	cores    int
	required map[string]map[string]bool // a file's required columns (requiredColumns)
	bcast    map[string]*hados.Task
	// rtf are the runtime join filters by the node whose output they
	// filter, rtfJoins the joins already considered (runtimefilter.go)
	rtf      map[*rules.Node]*runtimeFilter
	rtfJoins map[*rules.Node]bool
	rtfMu    sync.Mutex // serialises planRuntimeFilters
	closed   bool
	closeErr error
}

// newQuery checks env and res and prepares a query of res (close releases
// it).
func newQuery(env Env, res *rules.Result) (*query, error) {
	if env.Runtime == nil || res == nil || res.Root == nil {
		return nil, fmt.Errorf("%w: exec: a runtime and a converted plan are required", device.ErrInvalid)
	}
	q := &query{env: env, res: res, stats: newStatsTable(), byNode: map[*rules.Node]*stage{},
		scalars: convert.Bindings{}, payloads: map[*rules.Node]*rules.Payload{}, bcast: map[string]*hados.Task{}, t0: time.Now()}
	units := env.Runtime.Units()
	cores, all := 0, 0
	for _, u := range units {
		all += max(1, u.Device.Info().Cores)
	}
	if env.Device != "" {
		u, err := env.Runtime.Unit(env.Device)
		if err != nil {
			return nil, err
		}
		q.devices = []string{u.Device.Info().Address}
		cores = max(1, u.Device.Info().Cores)
	} else {
		for _, u := range units {
			q.devices = append(q.devices, u.Device.Info().Address)
		}
		cores = all
	}
	if len(q.devices) == 0 {
		return nil, fmt.Errorf("exec: the runtime has no device")
	}
	q.cores = all
	par := env.Parallelism
	if par <= 0 {
		par = cores
	}
	q.slots = newSlotSet(par)
	q.inputs = numberInputs(res.Root)
	return q, nil
}

// makeDirs creates the query's shuffle directory (and spill directory when
// Env.SpillDir is set); close removes them.
func (q *query) makeDirs() error {
	dir, err := tempDir(q.env.ShuffleDir, "hados-shuffle-")
	if err != nil {
		return fmt.Errorf("exec: shuffle directory: %w", err)
	}
	q.dir = dir
	if q.env.SpillDir != "" {
		if q.spillDir, err = tempDir(q.env.SpillDir, "hados-spill-"); err != nil {
			return fmt.Errorf("exec: spill directory: %w", err)
		}
	}
	return nil
}

// numberInputs numbers the RowToColumnar transitions whose child stays on
// the host, depth first, left to right; a host leaf of no rows
// (rules.EmptyInput) needs no input: it is read as an empty one.
func numberInputs(root *rules.Node) map[*rules.Node]int {
	out := map[*rules.Node]int{}
	var walk func(n *rules.Node)
	walk = func(n *rules.Node) {
		if n.Kind == rules.RowToColumnar && len(n.Children) == 1 && !n.Children[0].Kind.OnDevice() && !n.Children[0].IsEmptyInput() {
			out[n] = len(out)
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	return out
}

// quota is a task's memory quota on a device.
func (q *query) quota(addr string) uint64 {
	if q.env.TaskMemory > 0 {
		return q.env.TaskMemory
	}
	u, err := q.env.Runtime.Unit(addr)
	if err != nil {
		return 0
	}
	// the tasks that may run on the device at once, and one more share for
	// the query's broadcast tables there
	perDevice := (q.slots.size()+len(q.devices)-1)/len(q.devices) + 1
	return u.Device.Info().MemoryBytes / uint64(perDevice)
}

// runTree runs the stages computing tree and returns its result stage
// (its records collected to host memory, in partition order).
func (q *query) runTree(ctx context.Context, tree *rules.Node) (*stage, error) {
	root, err := q.planTree(tree)
	if err != nil {
		return nil, err
	}
	if err := q.runStages(ctx, root); err != nil {
		return nil, err
	}
	return root, nil
}

// runStages runs root and every stage it depends on, each as soon as its
// dependencies are done and the scalar subqueries its own operators read
// are computed (the first stage to read one runs it: a subquery runs
// beside the stages that do not need its value); the first failure
// cancels the rest.
func (q *query) runStages(ctx context.Context, root *stage) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	all := stagesBelow(root)
	var wg sync.WaitGroup
	for _, s := range all {
		if !s.start() { // already run (or running) for an earlier tree
			continue
		}
		wg.Add(1)
		go func(s *stage) {
			defer wg.Done()
			scalars := q.startScalars(ctx, s)
			err := s.waitDeps(ctx)
			if err != nil {
				cancel(err)
			}
			if serr := scalars(); err == nil {
				err = serr
			}
			if err == nil && stageStarting != nil {
				stageStarting(q, s)
			}
			if err == nil {
				err = q.runStage(ctx, s)
			}
			s.finish(err)
			if err != nil {
				cancel(err)
				return
			}
			// after finish: the stages joining against a broadcast start
			// while its table builds (their joins wait for it in Open)
			q.prebuild(ctx, s)
		}(s)
	}
	wg.Wait()
	for _, s := range all {
		if err := s.wait(ctx); err != nil {
			if c := context.Cause(ctx); c != nil && errors.Is(err, context.Canceled) && !errors.Is(c, context.Canceled) {
				return c
			}
			return err
		}
	}
	return nil
}

// stageStarting, when set (tests only), is called as each stage of
// runStages starts running, its inputs and scalar subqueries ready.
var stageStarting func(q *query, s *stage)

// close releases what the query holds: stage outputs, broadcast tables
// and their tasks, the shuffle directory. It is idempotent and returns
// the first error (memory a task still held, a file it could not remove).
func (q *query) close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return q.closeErr
	}
	q.closed = true
	var errs []error
	for _, s := range q.stages {
		s.release()
	}
	for _, f := range q.rtf {
		f.release()
	}
	for addr, t := range q.bcast {
		if err := t.End(); err != nil {
			errs = append(errs, fmt.Errorf("broadcast tables on device %s: %w", addr, err))
		}
	}
	for _, d := range []string{q.dir, q.spillDir} {
		if d != "" {
			errs = append(errs, os.RemoveAll(d))
		}
	}
	for _, in := range q.env.Inputs {
		if in != nil {
			errs = append(errs, in.Close())
		}
	}
	q.closeErr = errors.Join(errs...)
	return q.closeErr
}

func (q *query) logf(format string, args ...any) {
	if q.env.Logf != nil {
		q.env.Logf(format, args...)
	}
}

// hostMem is the allocator of stage s's host records: the caller's
// ResultAllocator for what Run or RunStage returns, Go's heap for the
// rest (broadcasts, gathers, subqueries).
func (q *query) hostMem(s *stage) memory.Allocator {
	if q.env.ResultAllocator != nil && (s == q.result || s == q.alone) {
		return q.env.ResultAllocator
	}
	return memory.DefaultAllocator
}

// nextTaskID numbers the query's tasks after Env.TaskIDBase.
func (q *query) nextTaskID() int64 { return q.env.TaskIDBase + q.taskID.Add(1) }
