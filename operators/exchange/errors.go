package exchange

import (
	"errors"
	"fmt"
)

var (
	// ErrNotSupported is wrapped by errors about Arrow types or options this
	// package does not handle.
	ErrNotSupported = errors.New("not supported")
	// ErrCorrupt is wrapped by every error about a damaged shuffle data or
	// index file (see CorruptError).
	ErrCorrupt = errors.New("corrupt shuffle data")
)

// CorruptError reports a damaged shuffle file: which file, which reduce
// partition (-1 when the damage is not in a partition, e.g. in the index),
// the byte offset in the file where the bad item starts, and what was wrong.
// It matches ErrCorrupt with errors.Is.
type CorruptError struct {
	File      string
	Partition int
	Offset    int64
	Reason    string
	Err       error // underlying cause, if any
}

func (e *CorruptError) Error() string {
	msg := fmt.Sprintf("exchange: corrupt shuffle file %s", e.File)
	if e.Partition >= 0 {
		msg += fmt.Sprintf(" (partition %d, offset %d)", e.Partition, e.Offset)
	} else {
		msg += fmt.Sprintf(" (offset %d)", e.Offset)
	}
	msg += ": " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Unwrap returns the underlying cause.
func (e *CorruptError) Unwrap() error { return e.Err }
