package operators

import (
	"errors"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/spill"
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

// QuotaOperator names the operator (see namedQuota).
func (e *quotaExceeded) QuotaOperator() string { return e.op }

// namedQuota is an error that says which operator a quota refusal belongs
// to. Sources outside this package (a scan, an exchange reader) can
// implement it on their error types so that the operator reading them
// passes their quota errors on instead of naming itself.
type namedQuota interface{ QuotaOperator() string }

// nameQuota is err with op named when it is a quota refusal (or a device
// out of memory) that no operator has named yet; any other error, and one
// an operator already named, passes unchanged, so an error is never
// wrapped twice. Operators apply it at their boundary (Open, Next) to what
// their own work — kernels, gathers, staging, concatenation — returns, so
// that a failed allocation deep inside names the operator it served. A
// child's error that does not name an operator (a source outside this
// package) is named after the operator reading it, unless the error
// implements QuotaOperator() string (namedQuota).
func nameQuota(op string, err error) error {
	if err == nil || !isQuota(err) {
		return err
	}
	var named namedQuota
	if errors.As(err, &named) {
		return err
	}
	return QuotaExceeded(op, err, "")
}

// quotaName is the operator a FilterProject's quota errors name: the one
// it works inside (a Sort's key projection, …), else FilterProject.
func (f *FilterProject) quotaName() string {
	if f.inside != "" {
		return f.inside
	}
	return "FilterProject"
}

// spillBuffers is the account the host memory of an operator's spill
// writers is charged to (spill.Writer.ChargeTo): the records a writer
// holds in Go memory until it commits them to disk, up to a segment (8
// MiB) a writer — a grace hash join or a spilling HashAggregate has one
// writer a partition, so without a bound they could hold tens of times
// that outside the device quota. The account is a child of the task's,
// created when the operator starts to spill and limited to a quarter of
// what the task had left then (unlimited under an unlimited task); its
// reservations count against the task's quota like device memory. A
// writer the account refuses commits what it holds to disk early instead
// of failing, so the bound costs smaller segments, never an error. The
// operator closes it (close) once its writers are finished or aborted.
type spillBuffers struct{ acct *hmem.Account }

// charge makes w charge its buffers to the account, creating it on first
// use.
func (b *spillBuffers) charge(t *Target, op string, w *spill.Writer) {
	if t.Account == nil {
		return
	}
	if b.acct == nil {
		a, limit := t.Account, uint64(0)
		if a.Limit() > 0 {
			limit = max(1, (a.Limit()-min(a.Limit(), a.InUse()))/4)
		}
		b.acct = hmem.NewAccount(a.Name()+": "+op+" spill buffers", limit, a)
	}
	w.ChargeTo(b.acct)
}

// close closes the account (an error if a writer still holds memory).
func (b *spillBuffers) close() error {
	if b.acct == nil {
		return nil
	}
	err := b.acct.Close()
	b.acct = nil
	return err
}
