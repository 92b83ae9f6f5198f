package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/race/rules"
)

// Env is where a query runs and reads from, and how it is split into
// tasks.
type Env struct {
	Runtime   *hados.Runtime
	Warehouse string // tables are directories Warehouse/<table>
	// Device, when set, runs every task on that device address; empty
	// spreads tasks over all the runtime's devices round robin.
	Device string
	// Inputs feed host rows into the plan: a RowToColumnar whose child
	// stays on the host reads Inputs[i], i counting such transitions in
	// depth-first, left-to-right order over the main tree. Run opens and
	// closes them (one task reads each).
	Inputs []operators.Operator

	// Parallelism caps the tasks running at once (0: the engine cores of
	// all devices).
	Parallelism int
	// TaskMemory is each task's device memory quota in bytes (0: the
	// device's memory shared evenly by the tasks that may run on it at
	// once and the query's broadcast tables).
	TaskMemory uint64
	// MaxFailures is how many times a task is tried before the query fails
	// (Spark's spark.task.maxFailures; 0: the runtime's
	// spark.hados.task.maxFailures, 4 by default). Only retryable device errors
	// (DMA errors, a lost or hung device, exhausted device memory) retry;
	// the next attempt runs on another device when there is one.
	MaxFailures int
	// ShuffleDir is where the query's shuffle files go (a fresh directory
	// under it, removed when the query ends; "": the system's temporary
	// directory). SpillDir likewise for operator spill files ("": no
	// spilling).
	ShuffleDir string
	SpillDir   string
	// ShuffleCodec compresses shuffle blocks (the zero value is LZ4, as
	// Spark's spark.io.compression.codec).
	ShuffleCodec exchange.Codec
	// AdvisoryPartitionBytes coalesces contiguous small reduce partitions
	// of a shuffle into one task up to about this many bytes, like AQE's
	// spark.sql.adaptive.advisoryPartitionSizeInBytes (0: 64 MiB;
	// negative: one task per partition). Results do not change: a
	// partition is never split.
	AdvisoryPartitionBytes int64
	// Pool is the FAIR scheduler pool of the query's tasks
	// (spark.scheduler.pool; "" is the default pool).
	Pool string
	// TaskIDBase numbers the query's tasks from TaskIDBase+1 on (a host
	// engine running several queries keeps their task ids apart).
	TaskIDBase int64
	// ResultAllocator holds the buffers of the records Run or RunStage
	// return (nil: Go's heap). A host engine that hands them on through
	// the Arrow C Data interface passes a C allocator, so that they need no
	// further copy; the caller's Release returns them to it.
	ResultAllocator memory.Allocator
	// Logf, if set, receives one line per stage (debugging).
	Logf func(format string, args ...any)
}

// Result is a query's output and what each operator did.
type Result struct {
	Schema  *arrow.Schema
	Records []arrow.Record // host memory; the caller releases them (Release)
	Stats   []OperatorStats
	Stages  []StageStats
}

// OperatorStats reports one operator's work, summed over its tasks.
type OperatorStats struct {
	Name string
	operators.Stats
	Tasks int
	// Time is the wall time the operator's tasks spent in it, summed
	// (including its children: Next of a pull operator runs them).
	Time time.Duration
	// Bytes are the bytes a scan read from files or a shuffle wrote or
	// read; RowGroupsPruned the row groups a scan skipped.
	Bytes           int64
	RowGroupsPruned int64
}

// StageStats reports one stage.
type StageStats struct {
	ID       int
	Name     string
	Tasks    int
	Attempts int // task attempts, retries included
	// Start is when the stage began (its dependencies done), from the
	// query's start; Time how long it ran.
	Start time.Duration
	Time  time.Duration
}

// Release releases the result's records.
func (r *Result) Release() {
	for _, rec := range r.Records {
		rec.Release()
	}
	r.Records = nil
}

// ErrNotExecutable is wrapped when a plan holds an operator the executor
// cannot run yet (or one that stays on the host).
var ErrNotExecutable = fmt.Errorf("%w: not executable by hados yet", device.ErrNotSupported)

// Run executes a converted plan and returns its rows. The plan is split at
// its exchanges into stages run in dependency order, each as parallel
// tasks (see the package documentation). Canceling ctx stops every task,
// frees their device memory and removes the shuffle files.
func Run(ctx context.Context, env Env, res *rules.Result) (*Result, error) {
	q, err := newQuery(env, res)
	if err != nil {
		return nil, err
	}
	defer q.close()
	if len(q.inputs) > len(env.Inputs) {
		return nil, fmt.Errorf("%w: exec: the plan reads %d host inputs, %d given", ErrNotExecutable, len(q.inputs), len(env.Inputs))
	}
	if err := q.makeDirs(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q.cancel = cancel
	root, err := q.runTree(ctx, res.Root)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil && !errors.Is(err, cerr) && errors.Is(err, context.Canceled) {
			err = cerr
		}
		return nil, err
	}
	return q.finish(&Result{Schema: root.schema, Records: root.takeRecords()})
}

// finish adds the query's statistics to its result and closes the query
// (a close error, such as memory a task still held, fails the result).
func (q *query) finish(out *Result) (*Result, error) {
	out.Stats = q.stats.list()
	out.Stages = q.stageStats()
	if err := q.close(); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// tempDir makes the query's private directory under base.
func tempDir(base, pattern string) (string, error) {
	if base == "" {
		base = os.TempDir()
	}
	return os.MkdirTemp(base, pattern)
}
