package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/spill"
)

// Target is the device an operator runs on: the device, its memory pool,
// its DMA engine, a pinned host pool, and the account the operator's memory
// is charged to (a task's).
type Target struct {
	Device  device.Device
	Pool    *hmem.Pool
	DMA     *dma.Engine
	Host    *hmem.Pool
	Account *hmem.Account
	// Gate, if set, is asked for a device slot before each device program
	// and told when it completes: the runtime's FIFO/FAIR scheduler.
	Gate func(ctx context.Context) (release func(), err error)
	// Spill, if set, is where operators that run out of quota (Sort,
	// HashAggregate, HashJoin) write their spill runs; nil disables
	// spilling (they fail with QuotaExceeded). The task owns and closes it.
	Spill *spill.Manager
	// CoreShare, if set, caps the device cores one operator spreads its
	// work over (the device's cores otherwise) and is asked each time an
	// operator splits work: it returns the cap (positive) or 0 for all of
	// the device's cores. A stage whose tasks fill every core runs each
	// task's operators on one core instead of splitting every program
	// across cores the other tasks are using, and the runtime raises a
	// task's share as the other tasks of its stage finish, so that the last
	// task of a stage does not run on one core while the others idle.
	CoreShare func() int
}

// cores is how many device cores an operator spreads its work over.
func (t *Target) cores() int {
	n := max(1, t.Device.Info().Cores)
	if t.CoreShare != nil {
		if c := t.CoreShare(); c > 0 {
			n = min(n, c)
		}
	}
	return n
}

// Validate checks that every part is present.
func (t *Target) Validate() error {
	if t == nil || t.Device == nil || t.Pool == nil || t.DMA == nil || t.Host == nil {
		return fmt.Errorf("%w: operators: incomplete target (device, pool, DMA engine and host pool are required)", device.ErrInvalid)
	}
	return nil
}

// HostVisible reports whether kernels can read host views in place.
func (t *Target) HostVisible() bool { return t.Device.Info().Mode == device.HostVisible }

// OutputAllocator is where operators place the Arrow buffers they
// produce: device memory on a host-visible device (the next operator reads
// them in place), pinned host memory otherwise.
func (t *Target) OutputAllocator() memory.Allocator {
	if t.HostVisible() {
		if a, err := hmem.NewDeviceAllocator(t.Pool, t.Account); err == nil {
			return a
		}
	}
	return hmem.NewHostAllocator(t.Host, t.Account)
}
