package safepath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The reasons Resolve refuses a name; test them with errors.Is.
var (
	// ErrInvalid: the name is empty or holds a NUL byte.
	ErrInvalid = errors.New("invalid path")
	// ErrAbsolute: the name is absolute; names must be relative to the root.
	ErrAbsolute = errors.New("absolute path not allowed")
	// ErrEscape: the name leads outside the root, by ".." or through a
	// symbolic link.
	ErrEscape = errors.New("path escapes the root")
)

// Error is the error Resolve and New return: the name, the root it was
// resolved under (empty from New) and why it was refused. Err wraps one of
// the sentinels above or a file-system error.
type Error struct {
	Path string
	Root string
	Err  error
}

func (e *Error) Error() string {
	if e.Root == "" {
		return fmt.Sprintf("safepath: root %q: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("safepath: %q under root %q: %v", e.Path, e.Root, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Root is a directory plans may read or write under. The zero Root refuses
// every name.
type Root struct {
	dir string // absolute, cleaned, symbolic links evaluated
}

// New makes a Root of dir, an existing directory (relative names are taken
// from the working directory). Symbolic links in dir itself are evaluated
// once here: the root is trusted, only names resolved under it are not.
func New(dir string) (Root, error) {
	if dir == "" || strings.IndexByte(dir, 0) >= 0 {
		return Root{}, &Error{Path: dir, Err: ErrInvalid}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, &Error{Path: dir, Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Root{}, &Error{Path: dir, Err: err}
	}
	fi, err := os.Stat(real)
	if err != nil {
		return Root{}, &Error{Path: dir, Err: err}
	}
	if !fi.IsDir() {
		return Root{}, &Error{Path: dir, Err: errors.New("not a directory")}
	}
	return Root{dir: real}, nil
}

// Dir is the root directory: absolute, with symbolic links evaluated ("" for
// the zero Root).
func (r Root) Dir() string { return r.dir }

// String is the root directory, for messages.
func (r Root) String() string { return r.dir }

// Resolve joins rel to the root, refusing absolute paths, ".." escapes and
// symlinks leading outside, with an error naming the path and the root.
// "." is the root itself. The result is absolute, cleaned, with the
// existing symbolic links along it evaluated; the part of rel that does not
// exist yet is appended as written.
func (r Root) Resolve(rel string) (string, error) {
	fail := func(err error) (string, error) { return "", &Error{Path: rel, Root: r.dir, Err: err} }
	switch {
	case r.dir == "":
		return fail(errors.New("zero Root: make one with safepath.New"))
	case rel == "":
		return fail(fmt.Errorf("%w: empty name", ErrInvalid))
	case strings.IndexByte(rel, 0) >= 0:
		return fail(fmt.Errorf("%w: NUL byte in name", ErrInvalid))
	case filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" || strings.HasPrefix(rel, string(filepath.Separator)):
		return fail(ErrAbsolute)
	}
	clean := filepath.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fail(fmt.Errorf("%w: %q climbs above it", ErrEscape, clean))
	}
	if clean == "." {
		return r.dir, nil
	}
	parts := strings.Split(clean, string(filepath.Separator))
	cur := r.dir
	for i, part := range parts {
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if errors.Is(err, os.ErrNotExist) {
			// Nothing below a missing name exists: the rest cannot lead
			// anywhere but where it says.
			return filepath.Join(append([]string{next}, parts[i+1:]...)...), nil
		}
		if err != nil {
			return fail(err)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		link := filepath.Join(parts[:i+1]...)
		target, err := filepath.EvalSymlinks(next)
		if err != nil {
			// A dangling link could be made to point anywhere before the
			// caller creates its target: refuse rather than guess.
			return fail(fmt.Errorf("%w: symbolic link %q cannot be followed: %v", ErrEscape, link, err))
		}
		if !within(r.dir, target) {
			return fail(fmt.Errorf("%w: symbolic link %q leads to %q", ErrEscape, link, target))
		}
		cur = target
	}
	return cur, nil
}

// within reports whether path (absolute, clean) is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}
