package memory

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hados-io/hados/device"
)

// ErrQuotaExceeded is wrapped by every error of an allocation that would
// take an account (a task, a device) past its limit.
var ErrQuotaExceeded = errors.New("memory quota exceeded")

// QuotaError says which account refused how much.
type QuotaError struct {
	Account   string // the account whose limit was hit (the task, or the device above it)
	Requested uint64
	InUse     uint64
	Limit     uint64
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("%v: %s requested %s with %s of %s in use", ErrQuotaExceeded, e.Account,
		FormatBytes(e.Requested), FormatBytes(e.InUse), FormatBytes(e.Limit))
}

func (e *QuotaError) Unwrap() error { return ErrQuotaExceeded }

// Account tracks the memory one consumer holds: a device (the root), a Spark
// task holding a fraction of it, an operator inside a task. Accounts form a
// tree; a reservation must fit the limit of the account and of every
// ancestor. A zero limit means unlimited. Methods are safe for concurrent use.
type Account struct {
	name   string
	limit  uint64
	parent *Account

	inUse, peak   atomic.Uint64
	reservations  atomic.Uint64
	releases      atomic.Uint64
	quotaExceeded atomic.Uint64
	mu            sync.Mutex
	children      map[*Account]struct{}
	closed        bool
	shut          atomic.Bool // closed, readable without mu
}

// NewAccount creates an account under parent (nil for a root).
func NewAccount(name string, limit uint64, parent *Account) *Account {
	a := &Account{name: name, limit: limit, parent: parent}
	if parent != nil {
		parent.mu.Lock()
		if parent.children == nil {
			parent.children = map[*Account]struct{}{}
		}
		parent.children[a] = struct{}{}
		parent.mu.Unlock()
	}
	return a
}

// Name is the account's name as errors and metrics show it.
func (a *Account) Name() string { return a.name }

// Limit is the account's quota (0: unlimited).
func (a *Account) Limit() uint64 { return a.limit }

// InUse is what the account holds now.
func (a *Account) InUse() uint64 { return a.inUse.Load() }

// Reserve charges n bytes to the account and its ancestors, or returns a
// *QuotaError (wrapping ErrQuotaExceeded) naming the account that refused and
// charges nothing.
func (a *Account) Reserve(n uint64) error {
	if a.shut.Load() {
		return fmt.Errorf("memory: account %s: %w", a.name, device.ErrClosed)
	}
	for acc := a; acc != nil; acc = acc.parent {
		if err := acc.reserveOne(n); err != nil {
			for undo := a; undo != acc; undo = undo.parent {
				undo.inUse.Add(^(n - 1))
			}
			a.quotaExceeded.Add(1)
			return err
		}
	}
	a.reservations.Add(1)
	return nil
}

func (a *Account) reserveOne(n uint64) error {
	for {
		cur := a.inUse.Load()
		if a.limit > 0 && (n > a.limit || cur > a.limit-n) {
			return &QuotaError{Account: a.name, Requested: n, InUse: cur, Limit: a.limit}
		}
		if a.inUse.CompareAndSwap(cur, cur+n) {
			for {
				p := a.peak.Load()
				if cur+n <= p || a.peak.CompareAndSwap(p, cur+n) {
					return nil
				}
			}
		}
	}
}

// Release returns n bytes reserved earlier. Releasing more than the
// account holds is a bug in the caller; the count stops at zero rather than
// wrapping (and poisoning every later reservation).
func (a *Account) Release(n uint64) {
	for acc := a; acc != nil; acc = acc.parent {
		for {
			cur := acc.inUse.Load()
			next := cur - min(n, cur)
			if acc.inUse.CompareAndSwap(cur, next) {
				break
			}
		}
	}
	a.releases.Add(1)
}

// AccountStats is a snapshot of an account.
type AccountStats struct {
	Name          string `json:"name"`
	Limit         uint64 `json:"limit_bytes"`
	InUse         uint64 `json:"in_use_bytes"`
	Peak          uint64 `json:"peak_bytes"`
	Reservations  uint64 `json:"reservations"`
	Releases      uint64 `json:"releases"`
	QuotaExceeded uint64 `json:"quota_exceeded"`
}

// Stats returns a snapshot of the account.
func (a *Account) Stats() AccountStats {
	return AccountStats{Name: a.name, Limit: a.limit, InUse: a.inUse.Load(), Peak: a.peak.Load(),
		Reservations: a.reservations.Load(), Releases: a.releases.Load(), QuotaExceeded: a.quotaExceeded.Load()}
}

// Children returns snapshots of the open child accounts.
func (a *Account) Children() []AccountStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]AccountStats, 0, len(a.children))
	for c := range a.children {
		out = append(out, c.Stats())
	}
	return out
}

// Close detaches the account from its parent. It returns an error if the
// account still holds memory (a leak in whoever owned it); the memory stays
// charged to the ancestors until released.
func (a *Account) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.shut.Store(true)
	a.mu.Unlock()
	if a.parent != nil {
		a.parent.mu.Lock()
		delete(a.parent.children, a)
		a.parent.mu.Unlock()
	}
	if n := a.inUse.Load(); n != 0 {
		return fmt.Errorf("memory: account %s closed holding %s (leak)", a.name, FormatBytes(n))
	}
	return nil
}

// FormatBytes renders a byte count with a binary unit ("1.5 MiB").
func FormatBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
