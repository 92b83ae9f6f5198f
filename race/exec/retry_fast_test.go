package exec

import (
	"fmt"
	"testing"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
)

// TestRetryableNoMemory: a device's out-of-memory error is retried also
// when an operator reports it as its quota exceeded, and never when a
// quota refused the bytes.
func TestRetryableNoMemory(t *testing.T) {
	oom := fmt.Errorf("device 0: alloc 4 MiB: %w", device.ErrNoMemory)
	quota := &hmem.QuotaError{Account: "task 3", Requested: 4 << 20, InUse: 14 << 20, Limit: 16 << 20}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"device out of memory", oom, true},
		{"named by an operator", operators.QuotaExceeded("HashAggregate", oom, ""), true},
		{"a task's quota", operators.QuotaExceeded("Sort", quota, "no spill directory"), false},
		{"a quota refusal as the device's", fmt.Errorf("%w: %w", device.ErrNoMemory, quota), false},
		{"DMA error", fmt.Errorf("x: %w", device.ErrIO), true},
		{"other", fmt.Errorf("bad plan"), false},
	} {
		if got := retryable(c.err); got != c.want {
			t.Errorf("%s: retryable = %v, want %v (%v)", c.name, got, c.want, c.err)
		}
	}
}
