package write

import "errors"

// Sentinel errors. Every error the package returns wraps one of them (or a
// context error), so callers can branch with errors.Is while the message
// still names the option, column or file at fault.
var (
	// ErrInvalidOptions reports an Options value NewWriter rejects: an empty
	// Dir, an unknown codec, a partition column missing from the schema, …
	ErrInvalidOptions = errors.New("invalid write options")

	// ErrNotSupported reports a column type the writer cannot store or a
	// partition column type it cannot format as a directory name.
	ErrNotSupported = errors.New("not supported")

	// ErrSchemaMismatch reports a record whose schema differs from
	// Options.Schema, or whose non-nullable column holds nulls.
	ErrSchemaMismatch = errors.New("record does not match the writer schema")

	// ErrClosed reports a call on a Writer that has already committed,
	// aborted or failed.
	ErrClosed = errors.New("writer is closed")
)
