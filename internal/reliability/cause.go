package reliability

import (
	"context"
	"errors"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/race/exec"
)

// Cause is why a query did not return rows: a stable code, in the style of
// the planner's fallback reasons (race/rules.Reason).
type Cause string

// The causes, from the most specific. None means the query succeeded.
const (
	None          Cause = ""
	Cancelled     Cause = "cancelled"            // the caller's context ended
	DeviceLost    Cause = "device-lost"          // device.ErrDeviceLost
	DeviceHang    Cause = "device-hang"          // device.ErrHang: the DMA watchdog fired
	DeviceTimeout Cause = "device-timeout"       // device.ErrTimeout
	DMAError      Cause = "dma-error"            // device.ErrIO after the DMA layer's retries
	QuotaExceeded Cause = "quota-exceeded"       // memory.ErrQuotaExceeded: the task's quota
	DeviceMemory  Cause = "device-out-of-memory" // device.ErrNoMemory: the device's allocator
	NotExecutable Cause = "not-executable"       // exec.ErrNotExecutable, device.ErrNotSupported
	DeviceClosed  Cause = "device-closed"        // device.ErrClosed: the runtime closed under the query
	Unknown       Cause = "unknown"              // none of the above: the error does not say
)

// causes is Classify's order: a lost device explains a failed transfer, not
// the other way round.
var causes = []struct {
	err   error
	cause Cause
}{
	{device.ErrDeviceLost, DeviceLost},
	{device.ErrHang, DeviceHang},
	{device.ErrTimeout, DeviceTimeout},
	{device.ErrIO, DMAError},
	{memory.ErrQuotaExceeded, QuotaExceeded},
	{device.ErrNoMemory, DeviceMemory},
	{exec.ErrNotExecutable, NotExecutable},
	{device.ErrNotSupported, NotExecutable},
	{device.ErrClosed, DeviceClosed},
}

// Classify names the cause of a query's error (None for nil). A context
// error counts only when nothing more specific is wrapped.
func Classify(err error) Cause {
	if err == nil {
		return None
	}
	for _, c := range causes {
		if errors.Is(err, c.err) {
			return c.cause
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Cancelled
	}
	return Unknown
}

// Fallback says whether a query failing for this cause goes back to the
// host engine: every device fault does; a cancellation or an unexplained
// error does not.
func (c Cause) Fallback() bool {
	switch c {
	case DeviceLost, DeviceHang, DeviceTimeout, DMAError, QuotaExceeded, DeviceMemory, NotExecutable, DeviceClosed:
		return true
	}
	return false
}
