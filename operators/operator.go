package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// Operator is the contract of every operator.
//
//   - Open prepares the operator (and opens its children); it allocates
//     nothing in a constructor.
//   - Next returns the next batch, or nil at the end. The caller owns the
//     returned record and must Release it.
//   - Close releases everything the operator holds; it is idempotent and
//     safe to call without Open or after an error.
type Operator interface {
	Schema() *arrow.Schema
	Open(ctx context.Context) error
	Next(ctx context.Context) (arrow.Record, error)
	Close() error
}
