package main

/*
#include "hados.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/race/exec"
)

// errUnsupported is HADOS_ERR_UNSUPPORTED: Spark runs the plan itself.
var errUnsupported = device.ErrNotSupported

// taskPhase is where a task is in its life.
type taskPhase string

const (
	phaseBegun     taskPhase = "begun"
	phaseExecuting taskPhase = "executing"
	phaseSucceeded taskPhase = "succeeded"
	phaseFailed    taskPhase = "failed"
	phaseCancelled taskPhase = "cancelled"
	phaseEnded     taskPhase = "ended"
)

// taskState is what a hados_task handle holds: the task's spec, the
// hados.Task holding its memory accounts, its inputs (which it owns until
// it ends) and its metrics. end releases everything.
type taskState struct {
	rs     *runtimeState
	plan   *planState
	task   *hados.Task
	ctx    context.Context
	cancel context.CancelFunc
	begun  time.Time

	// stage is the stage the task runs (nil: the whole plan)
	stage *exec.StageInfo

	mu      sync.Mutex
	phase   taskPhase
	inputs  []*streamInput
	metrics taskMetrics
}

// taskMetrics is hados_task_metrics's JSON.
type taskMetrics struct {
	TaskID       int64           `json:"task_id"`
	Stage        int             `json:"stage"`
	Partition    int             `json:"partition"`
	Devices      []string        `json:"devices"`
	Amount       float64         `json:"amount"`
	QuotaBytes   []uint64        `json:"quota_bytes"` // per device
	Pool         string          `json:"pool"`
	State        taskPhase       `json:"state"`
	Error        string          `json:"error,omitempty"`
	ExecuteNanos int64           `json:"execute_ns"`
	ExportNanos  int64           `json:"export_ns"` // handing the output over (exec wrote it in C memory)
	RowsOut      int64           `json:"rows_out"`
	BatchesOut   int64           `json:"batches_out"`
	BytesOut     int64           `json:"bytes_out"`
	Inputs       []inputMetrics  `json:"inputs"`
	Operators    []operatorStats `json:"operators"`
}

type inputMetrics struct {
	Rows    int64 `json:"rows"`
	Batches int64 `json:"batches"`
}

type operatorStats struct {
	Name string `json:"name"`
	operators.Stats
}

// beginTask validates the spec against the runtime (addresses, amount,
// quota) by beginning a hados.Task with it.
func beginTask(ps *planState, spec hados.TaskSpec) (*taskState, error) {
	if spec.ID == 0 {
		spec.ID = -ps.rs.nextTask.Add(1) // negative: never one of Spark's attempt ids
	}
	var st *exec.StageInfo
	inputs := ps.inputs
	if spec.Stage != 0 {
		var err error
		if st, err = ps.stageByID(spec.Stage); err != nil {
			return nil, err
		}
		if spec.Partition >= st.Partitions {
			return nil, invalidf("hados_task_begin: stage %d has partitions 0..%d, not %d", st.ID, st.Partitions-1, spec.Partition)
		}
		inputs = len(st.Inputs)
	}
	ht, err := ps.rs.rt.BeginTask(spec)
	if err != nil {
		return nil, err
	}
	spec = ht.Spec
	if len(spec.Devices) == 0 {
		spec.Devices = []string{"0"}
	}
	if spec.Amount == 0 {
		spec.Amount = 1
	}
	t := &taskState{rs: ps.rs, plan: ps, task: ht, begun: time.Now(), phase: phaseBegun, stage: st,
		inputs: make([]*streamInput, inputs)}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	m := &t.metrics
	m.TaskID, m.Stage, m.Partition, m.Devices, m.Amount, m.Pool = spec.ID, spec.Stage, spec.Partition, spec.Devices, spec.Amount, spec.Pool
	for _, addr := range spec.Devices {
		q := spec.Quota
		if u, err := ps.rs.rt.Unit(addr); err == nil && q == 0 {
			q = uint64(float64(u.Device.Info().MemoryBytes) * spec.Amount)
		}
		m.QuotaBytes = append(m.QuotaBytes, q)
	}
	m.Inputs = make([]inputMetrics, inputs)
	m.Operators = []operatorStats{}
	return t, nil
}

// setInput hands input i over to the task.
func (t *taskState) setInput(i int, in *C.struct_ArrowArrayStream) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.phase != phaseBegun {
		return invalidf("hados_task_set_input: the task is %s (inputs are set before hados_task_execute)", t.phase)
	}
	if i < 0 || i >= len(t.inputs) {
		return invalidf("hados_task_set_input: input %d of a task with %d inputs", i, len(t.inputs))
	}
	if t.inputs[i] != nil {
		return invalidf("hados_task_set_input: input %d is already set", i)
	}
	s, err := importStream(in)
	if err != nil {
		return fmt.Errorf("hados_task_set_input: input %d: %w", i, err)
	}
	t.inputs[i] = s
	return nil
}

// execute runs the plan and exports its output into *out.
func (t *taskState) execute(out *C.struct_ArrowArrayStream) error {
	*out = C.struct_ArrowArrayStream{} // released until the end succeeds
	t.mu.Lock()
	if t.phase != phaseBegun {
		t.mu.Unlock()
		if t.phase == phaseCancelled {
			return fmt.Errorf("hados_task_execute: task %d: %w", t.metrics.TaskID, context.Canceled)
		}
		return invalidf("hados_task_execute: task %d is %s (a task executes once)", t.metrics.TaskID, t.phase)
	}
	for i, in := range t.inputs {
		if in == nil {
			t.mu.Unlock()
			return invalidf("hados_task_execute: input %d of %d is not set (hados_task_set_input)", i, len(t.inputs))
		}
	}
	if !t.plan.offloaded {
		t.mu.Unlock()
		return fmt.Errorf("hados_task_execute: %w: plan %s stays on the host (see hados_plan_fallbacks_json)",
			errUnsupported, t.plan.res.Plan.Name)
	}
	if err := t.rs.startRunning(); err != nil {
		t.mu.Unlock()
		return fmt.Errorf("hados_task_execute: %w", err)
	}
	defer t.rs.running.Done()
	t.phase = phaseExecuting
	t.mu.Unlock()

	start := time.Now()
	res, err := t.run()
	var recs []arrow.Record
	var bytes int64
	exported := time.Now()
	if err == nil { // already in C memory (exec.Env.ResultAllocator)
		recs, bytes = res.Records, recordsBytes(res.Records)
		res.Records = nil
	}
	done := time.Now()

	t.mu.Lock()
	defer t.mu.Unlock()
	m := &t.metrics
	m.ExecuteNanos, m.ExportNanos = exported.Sub(start).Nanoseconds(), done.Sub(exported).Nanoseconds()
	for i, in := range t.inputs {
		m.Inputs[i] = inputMetrics{Rows: in.rows.Load(), Batches: in.batches.Load()}
	}
	if res != nil {
		for _, s := range res.Stats {
			m.Operators = append(m.Operators, operatorStats{Name: s.Name, Stats: s.Stats})
		}
	}
	switch {
	case err != nil && t.ctx.Err() != nil:
		t.phase, m.Error = phaseCancelled, err.Error()
		return fmt.Errorf("hados_task_execute: task %d cancelled: %w", m.TaskID, errors.Join(context.Canceled, err))
	case err != nil:
		t.phase, m.Error = phaseFailed, err.Error()
		return fmt.Errorf("hados_task_execute: task %d: %w", m.TaskID, err)
	}
	for _, r := range recs {
		m.RowsOut += r.NumRows()
	}
	m.BatchesOut, m.BytesOut = int64(len(recs)), bytes
	t.phase = phaseSucceeded
	exportStream(res.Schema, recs, out)
	return nil
}

// run executes the task on its first device with its inputs: one
// partition of one stage, or the whole plan, which the executor splits
// into tasks of its own that run at most amount × the device's engine
// cores at once, sharing the task's quota.
func (t *taskState) run() (*exec.Result, error) {
	if err := t.ctx.Err(); err != nil {
		return nil, err
	}
	m := &t.metrics
	// the executor's own tasks run in the task's FAIR pool and are numbered
	// under the Spark task's id (task 7's are 7<<16+1, 7<<16+2, …)
	env := exec.Env{Runtime: t.rs.rt, Warehouse: t.plan.warehouse, Device: m.Devices[0], Parallelism: 1, ResultAllocator: cAlloc,
		Inputs: make([]operators.Operator, len(t.inputs)), Pool: m.Pool, TaskIDBase: m.TaskID << 16}
	for i, in := range t.inputs {
		env.Inputs[i] = in
	}
	if u, err := t.rs.rt.Unit(env.Device); err == nil {
		env.Parallelism = max(1, int(float64(u.Device.Info().Cores)*m.Amount))
	}
	if t.stage != nil { // one task of one stage
		env.TaskMemory = max(1, m.QuotaBytes[0])
		return exec.RunStage(t.ctx, env, t.plan.res, t.stage.ID, m.Partition)
	}
	env.TaskMemory = max(1, m.QuotaBytes[0]/uint64(env.Parallelism))
	return exec.Run(t.ctx, env, t.plan.res)
}

// end closes the inputs and the hados.Task; an error reports memory the
// task leaked. The caller has released the task's handle.
func (t *taskState) end() error {
	t.cancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, in := range t.inputs {
		if in != nil {
			in.Close()
		}
	}
	t.phase = phaseEnded
	return t.task.End()
}
