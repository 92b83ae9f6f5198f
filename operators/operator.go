package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/device"
)

// Operator is the contract of every operator.
//
//   - Open prepares the operator (and opens its children); it allocates
//     nothing in a constructor.
//   - Next returns the next batch, or nil at the end. The caller owns the
//     returned record and must Release it.
//   - Close releases everything the operator holds; it is idempotent and
//     safe to call without Open or after an error.
//
// Every operator of this package is also a Resetter, so a tree of them can
// run again (see Resetter).
type Operator interface {
	Schema() *arrow.Schema
	Open(ctx context.Context) error
	Next(ctx context.Context) (arrow.Record, error)
	Close() error
}

// Resetter is an operator that can run again.
//
// Reset returns an operator that has been opened — and possibly run,
// partly or to the end, or failed — to the state right after its
// construction: it releases what the run holds (device memory, aggregation
// states and hash tables, host buffers, batches not yet returned, spill
// runs and their files, memory reserved from the task's account) but keeps
// what construction built (compiled device programs, schemas,
// configuration, a shared BroadcastTable reference), zeroes the run's
// Stats, and resets its children. Open may then be called again, and the
// operator produces its output again from its (reset) children. Records
// Next returned before Reset stay the caller's.
//
// Reset is also valid on an operator that was never opened (it does
// nothing but reset its children). After Close, an operator must not be
// reset. Reset does not make an operator safe for concurrent use.
//
// Resetter is separate from Operator so that operators of other packages
// keep compiling; every operator of this package implements it, and
// operators wrapping others should forward it (the package-level Reset
// says clearly when a tree has one that does not).
type Resetter interface {
	Reset(ctx context.Context) error
}

// Reset resets op (see Resetter); it fails with device.ErrNotSupported,
// naming op's type, when op cannot be reset.
func Reset(ctx context.Context, op Operator) error {
	r, ok := op.(Resetter)
	if !ok {
		return fmt.Errorf("%w: operators: %T cannot be reset (it does not implement operators.Resetter)", device.ErrNotSupported, op)
	}
	return r.Reset(ctx)
}

// Wrapped is an operator wrapping another (to time it, count its rows, …).
// Embedding Wrapped instead of Operator in a wrapper makes the wrapper a
// Resetter that resets the wrapped operator; a wrapper with state of its
// own defines its own Reset, which calls Wrapped.Reset.
type Wrapped struct{ Operator }

// Reset resets the wrapped operator (see Reset).
func (w Wrapped) Reset(ctx context.Context) error { return Reset(ctx, w.Operator) }
