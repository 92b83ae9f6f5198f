package operators

import (
	"errors"

	hmem "github.com/hados-io/hados/memory"
)

// QuotaExceeded wraps a memory.ErrQuotaExceeded error for operator op,
// saying what it needed and why it could not spill (why may be ""), e.g.
// "Sort: memory quota exceeded: task 3 requested 64 MiB with 200 MiB of
// 256 MiB in use; cannot spill: no spill directory". errors.Is(err,
// memory.ErrQuotaExceeded) stays true, also when err is a device's
// out-of-memory error that the quota's byte budget caused, and errors.As
// still finds a *memory.QuotaError inside.
func QuotaExceeded(op string, err error, why string) error {
	return &quotaExceeded{op: op, err: err, why: why}
}

type quotaExceeded struct {
	op, why string
	err     error
}

func (e *quotaExceeded) Error() string {
	msg := e.op + ": "
	if e.err == nil || !errors.Is(e.err, hmem.ErrQuotaExceeded) {
		msg += hmem.ErrQuotaExceeded.Error()
		if e.err != nil {
			msg += ": "
		}
	}
	if e.err != nil {
		msg += e.err.Error()
	}
	if e.why != "" {
		msg += "; cannot spill: " + e.why
	}
	return msg
}

// Is makes errors.Is(err, memory.ErrQuotaExceeded) true.
func (e *quotaExceeded) Is(target error) bool { return target == hmem.ErrQuotaExceeded }

func (e *quotaExceeded) Unwrap() error { return e.err }
