package write

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Filesystem steps the commit protocol takes, as variables so tests can
// inject a failure into any of them.
var (
	renameFile = os.Rename
	makeDir    = os.Mkdir
)

// mkdirs creates dir and its missing parents with mode 0755 and returns the
// directories it created, outermost first, so that a rollback can remove
// exactly those.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return nil, &fs.PathError{Op: "mkdir", Path: d, Err: errors.New("exists and is not a directory")}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		if err := makeDir(d, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				if fi, serr := os.Stat(d); serr == nil && fi.IsDir() {
					continue // made concurrently by another task: not ours to remove
				}
			}
			removeDirs(created)
			return nil, err
		}
		_ = os.Chmod(d, 0o755) // make the mode independent of the umask
		created = append(created, d)
	}
	return created, nil
}

// removeDirs removes the given directories, innermost first, where empty;
// errors are ignored since another task may have put files in them.
func removeDirs(dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
}
