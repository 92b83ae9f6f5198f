package scan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hados-io/hados/memory"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrUnsupportedType: a required column has a type the scan does not
	// decode. The offload decision reports it as the reason to stay on the host.
	ErrUnsupportedType = errors.New("scan: unsupported column type")
	// ErrSchemaMismatch: a file's column does not have the type the scan
	// requires (or that the table's other files have). A column missing
	// from a file is not a mismatch: it reads as nulls.
	ErrSchemaMismatch = errors.New("scan: schema mismatch")
	// ErrCorrupt: a file is not valid Parquet (bad magic, truncated,
	// corrupted footer or page, checksum or decode error).
	ErrCorrupt = errors.New("scan: corrupt parquet file")
	// ErrOptions: the Options are invalid.
	ErrOptions = errors.New("scan: invalid options")
	// ErrClosed: Next was called after Close.
	ErrClosed = errors.New("scan: scanner closed")
)

// UnsupportedTypeError names the column and the type the scan cannot decode.
type UnsupportedTypeError struct {
	File   string // "" when the type came from Options.Columns
	Column string
	Type   string // the Parquet or Spark type as printed
}

func (e *UnsupportedTypeError) Error() string {
	s := "scan: column " + e.Column + " has unsupported type " + e.Type
	if e.File != "" {
		s += " in " + e.File
	}
	return s
}

// Unwrap makes errors.Is(err, ErrUnsupportedType) hold.
func (e *UnsupportedTypeError) Unwrap() error { return ErrUnsupportedType }

// FileError is an error reading one file; RowGroup is -1 when it concerns
// the file as a whole (open, footer, schema).
type FileError struct {
	File     string
	RowGroup int
	Err      error
}

func (e *FileError) Error() string {
	s := "scan: " + e.File
	if e.RowGroup >= 0 {
		s += " row group " + strconv.Itoa(e.RowGroup)
	}
	return s + ": " + strings.TrimPrefix(e.Err.Error(), "scan: ")
}

func (e *FileError) Unwrap() error { return e.Err }

func fileErr(file string, rg int, err error) error {
	if err == nil {
		return nil
	}
	var fe *FileError
	if errors.As(err, &fe) {
		return err
	}
	return &FileError{File: file, RowGroup: rg, Err: err}
}

// guard runs fn and turns a panic into an error: an allocation failure of
// our allocator (*memory.AllocError, e.g. a quota) is returned as is; any
// other panic comes from arrow-go meeting data it cannot decode, and is
// reported as ErrCorrupt.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && errors.As(e, new(*memory.AllocError)) {
				err = e
				return
			}
			err = fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	return memory.Catch(fn)
}
