package hados

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/spill"
)

// TaskSpec describes a Spark task as an executor plugin sees it when the
// task starts (ExecutorPlugin.onTaskStart with the task's resources).
type TaskSpec struct {
	ID        int64
	Stage     int
	Partition int
	// Devices are the device addresses Spark's scheduler assigned (the
	// "dpu" resource); empty means device "0".
	Devices []string
	// Amount is the fraction of each device the task holds
	// (spark.task.resource.dpu.amount, e.g. 0.25); 0 means 1.
	Amount float64
	// Quota is the task's device memory per device in bytes; 0 means
	// Amount × the device's memory.
	Quota uint64
	// Pool is the FAIR scheduler pool (spark.scheduler.pool).
	Pool string
}

// Task is a running task: a memory account with the task's quota on each
// of its devices and the operator targets that charge it. End releases it.
type Task struct {
	Spec     TaskSpec
	targets  []*operators.Target
	accounts []*memory.Account
	spills   []*spill.Manager
	ended    atomic.Bool
}

// BeginTask starts a task. Errors name the bad address, amount or quota.
func (r *Runtime) BeginTask(spec TaskSpec) (*Task, error) {
	if spec.Amount == 0 {
		spec.Amount = 1
	}
	if !(spec.Amount > 0 && spec.Amount <= 1) || math.IsNaN(spec.Amount) {
		return nil, fmt.Errorf("%w: task %d: device amount %v (want a fraction in (0, 1])", device.ErrInvalid, spec.ID, spec.Amount)
	}
	if len(spec.Devices) == 0 {
		spec.Devices = []string{"0"}
	}
	t := &Task{Spec: spec}
	for _, addr := range spec.Devices {
		u, err := r.Unit(addr)
		if err != nil {
			t.End()
			return nil, fmt.Errorf("task %d: %w", spec.ID, err)
		}
		mem := u.Device.Info().MemoryBytes
		quota := spec.Quota
		if quota == 0 {
			quota = uint64(float64(mem) * spec.Amount)
		}
		if quota == 0 {
			t.End()
			return nil, fmt.Errorf("%w: task %d: device amount %v of device %s's %s is less than a byte", device.ErrInvalid,
				spec.ID, spec.Amount, addr, memory.FormatBytes(mem))
		}
		if quota > mem {
			t.End()
			return nil, fmt.Errorf("%w: task %d: quota %s exceeds device %s's %s", device.ErrInvalid, spec.ID,
				memory.FormatBytes(quota), addr, memory.FormatBytes(mem))
		}
		acct := memory.NewAccount(fmt.Sprintf("task %d", spec.ID), quota, u.Pool.Account())
		t.accounts = append(t.accounts, acct)
		sm, err := r.spillManager(u)
		if err != nil {
			t.End()
			return nil, fmt.Errorf("task %d: %w", spec.ID, err)
		}
		if sm != nil {
			t.spills = append(t.spills, sm)
		}
		s, pool := u.Sched, spec.Pool
		t.targets = append(t.targets, &operators.Target{Device: u.Device, Pool: u.Pool, DMA: u.DMA, Host: r.host,
			Account: acct, Spill: sm, Gate: func(ctx context.Context) (func(), error) { return s.Acquire(ctx, spec.ID, pool) }})
	}
	return t, nil
}

// spillManager gives a task on unit u its own spill directory under
// spark.hados.spill.dir (nil when spilling is disabled by an empty one).
func (r *Runtime) spillManager(u *Unit) (*spill.Manager, error) {
	if r.cfg.SpillDir == "" {
		return nil, nil
	}
	m, err := spill.NewManager(r.cfg.SpillDir, r.cfg.SpillCodec)
	if err != nil {
		return nil, fmt.Errorf("spark.hados.spill.dir: %w", err)
	}
	dev, _ := strconv.ParseUint(u.Device.Info().Address, 10, 64)
	m.SetDevice(dev)
	m.ReportTo(&u.Spilled)
	return m, nil
}

// Targets are the task's devices, in the order of Spec.Devices.
func (t *Task) Targets() []*operators.Target { return t.targets }

// End removes the task's spill files and closes its accounts; an error
// reports memory the task still holds (a leak in its operators). It is
// idempotent.
func (t *Task) End() error {
	if !t.ended.CompareAndSwap(false, true) {
		return nil
	}
	var errs []error
	for _, m := range t.spills {
		errs = append(errs, m.Close())
	}
	for _, a := range t.accounts {
		errs = append(errs, a.Close())
	}
	return errors.Join(errs...)
}
