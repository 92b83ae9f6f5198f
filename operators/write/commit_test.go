package write

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// failAfter returns a replacement for an fs step that fails from its n-th
// call on (1-based) and restores the original when the test ends.
func failAfter[F any](t *testing.T, target *F, n int32, wrap func(orig F, fail func() bool) F) {
	t.Helper()
	orig := *target
	var calls atomic.Int32
	*target = wrap(orig, func() bool { return calls.Add(1) >= n })
	t.Cleanup(func() { *target = orig })
}

var errInjected = errors.New("injected I/O failure")

// TestAtomicCommit makes each step of a partitioned write fail in turn and
// checks that nothing stays visible: Dir holds only what was there before.
func TestAtomicCommit(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup prepares Dir or injects a failure; it may return a
		// context cancel func to call at the named point.
		setup func(t *testing.T, dir string)
		run   func(t *testing.T, w *Writer, cancel context.CancelFunc) error
	}{
		{
			name: "schema mismatch halfway",
			run: func(t *testing.T, w *Writer, _ context.CancelFunc) error {
				if err := writePart(t, w, 600); err != nil {
					return err
				}
				bad := makeRecord(t, w.cfg.Allocator, metaSchema, 10, 1)
				defer bad.Release()
				err := w.Write(bad)
				if !errors.Is(err, ErrSchemaMismatch) {
					t.Errorf("mismatch error %v, want ErrSchemaMismatch", err)
				}
				return err
			},
		},
		{
			name: "null in non-nullable column",
			run: func(t *testing.T, w *Writer, _ context.CancelFunc) error {
				b := array.NewRecordBuilder(w.cfg.Allocator, partSchema)
				defer b.Release()
				b.Field(0).AppendNull()
				b.Field(1).AppendNull()
				b.Field(2).AppendNull()
				b.Field(3).AppendNull()
				rec := b.NewRecordBatch()
				defer rec.Release()
				if err := writePart(t, w, 100); err != nil {
					return err
				}
				err := w.Write(rec)
				if !errors.Is(err, ErrSchemaMismatch) || !strings.Contains(err.Error(), `column "id" is not nullable`) {
					t.Errorf("error %v, want a not-nullable mismatch", err)
				}
				return err
			},
		},
		{
			name: "context cancelled before write",
			run: func(t *testing.T, w *Writer, cancel context.CancelFunc) error {
				if err := writePart(t, w, 300); err != nil {
					return err
				}
				cancel()
				err := writePart(t, w, 300)
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error %v, want context.Canceled", err)
				}
				return err
			},
		},
		{
			name: "context cancelled before commit",
			run: func(t *testing.T, w *Writer, cancel context.CancelFunc) error {
				if err := writePart(t, w, 300); err != nil {
					return err
				}
				cancel()
				_, err := w.Commit()
				return err
			},
		},
		{
			name: "partition directory blocked by a file",
			setup: func(t *testing.T, dir string) {
				// a regular file where the writer needs a directory: fails
				// even for root, unlike a read-only directory
				if err := os.WriteFile(filepath.Join(dir, "d=2024-01-01"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			run: commitAfter(600),
		},
		{
			name: "third rename fails",
			setup: func(t *testing.T, dir string) {
				failAfter(t, &renameFile, 3, func(orig func(string, string) error, fail func() bool) func(string, string) error {
					return func(a, b string) error {
						if fail() {
							return &os.LinkError{Op: "rename", Old: a, New: b, Err: errInjected}
						}
						return orig(a, b)
					}
				})
			},
			run: commitAfter(600),
		},
		{
			name: "partition mkdir fails",
			setup: func(t *testing.T, dir string) {
				failAfter(t, &makeDir, 4, func(orig func(string, os.FileMode) error, fail func() bool) func(string, os.FileMode) error {
					return func(p string, m os.FileMode) error {
						if fail() {
							return &fs.PathError{Op: "mkdir", Path: p, Err: errInjected}
						}
						return orig(p, m)
					}
				})
			},
			run: commitAfter(600),
		},
		{
			name: "file creation fails",
			setup: func(t *testing.T, dir string) {
				failAfter(t, &openFile, 3, func(orig func(string) (*os.File, error), fail func() bool) func(string) (*os.File, error) {
					return func(p string) (*os.File, error) {
						if fail() {
							return nil, &fs.PathError{Op: "open", Path: p, Err: errInjected}
						}
						return orig(p)
					}
				})
			},
			run: commitAfter(600),
		},
		{
			name: "abort",
			run: func(t *testing.T, w *Writer, _ context.CancelFunc) error {
				if err := writePart(t, w, 600); err != nil {
					return err
				}
				if err := w.Abort(); err != nil {
					t.Fatal(err)
				}
				if err := writePart(t, w, 1); !errors.Is(err, ErrClosed) {
					t.Errorf("Write after Abort: %v, want ErrClosed", err)
				}
				return errors.New("aborted")
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := checkedMem(t)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "existing.txt"), []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			before := listTree(t, dir)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w, err := NewWriter(ctx, Options{Dir: dir, Schema: partSchema, PartitionBy: []string{"d", "region"}, TaskID: "job", Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			err = tc.run(t, w, cancel)
			if err == nil {
				t.Fatal("the injected failure did not fail the write")
			}
			t.Logf("failure: %v", err)
			if after := listTree(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("visible after failure:\n got %v\nwant %v", after, before)
			}
			if err := w.Abort(); err != nil {
				t.Errorf("Abort after failure: %v", err)
			}
			if _, err := w.Commit(); !errors.Is(err, ErrClosed) {
				t.Errorf("Commit after failure: %v, want ErrClosed", err)
			}
		})
	}
}

// writePart writes n rows of partRows.
func writePart(t *testing.T, w *Writer, n int) error {
	rec := partRows(t, w.cfg.Allocator, n, false)
	defer rec.Release()
	return w.Write(rec)
}

func commitAfter(n int) func(t *testing.T, w *Writer, _ context.CancelFunc) error {
	return func(t *testing.T, w *Writer, _ context.CancelFunc) error {
		if err := writePart(t, w, n); err != nil {
			return err
		}
		_, err := w.Commit()
		return err
	}
}

// TestDirCreatedAndRemoved checks that a Writer creates a missing Dir and
// that Abort removes it again, and the file and directory modes.
func TestDirCreatedAndRemoved(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "a", "table")
	w := mustWriter(t, Options{Dir: dir, Schema: partSchema, PartitionBy: []string{"region"}})
	if err := writePart(t, w, 10); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := listTree(t, parent); len(got) != 0 {
		t.Fatalf("after Abort: %v", got)
	}

	old := umask(0o077)
	defer umask(old)
	w = mustWriter(t, Options{Dir: dir, Schema: partSchema, PartitionBy: []string{"region"}})
	if err := writePart(t, w, 10); err != nil {
		t.Fatal(err)
	}
	res, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if fi, err := os.Stat(f.Path); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want 0644", f.RelPath, fi.Mode(), err)
		}
		if fi, err := os.Stat(filepath.Dir(f.Path)); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: directory mode %v (%v), want 0755", f.RelPath, fi.Mode(), err)
		}
	}
	for _, e := range listTree(t, dir) {
		if strings.HasPrefix(e, temporaryDir) {
			t.Errorf("temporary left behind: %s", e)
		}
	}
}

// TestConcurrentTasks commits two tasks into one Dir at once: each keeps
// its own temporaries and neither removes the other's.
func TestConcurrentTasks(t *testing.T) {
	dir := t.TempDir()
	var ws []*Writer
	for split := 0; split < 2; split++ {
		w := mustWriter(t, Options{Dir: dir, Schema: partSchema, PartitionBy: []string{"region"}, TaskID: "job", Split: split})
		if err := writePart(t, w, 60); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	r0, err := ws[0].Commit()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws[1].tempDir); err != nil {
		t.Fatalf("task 1's temporaries vanished when task 0 committed: %v", err)
	}
	r1, err := ws[1].Commit()
	if err != nil {
		t.Fatal(err)
	}
	if len(r0.Files) != 5 || len(r1.Files) != 5 {
		t.Errorf("%d and %d files, want 5 each", len(r0.Files), len(r1.Files))
	}
	if _, err := os.Stat(filepath.Join(dir, temporaryDir)); !os.IsNotExist(err) {
		t.Errorf("_temporary still there after the last commit (%v)", err)
	}
}

// TestEmptyOutput: split 0 of an unpartitioned write leaves one empty file
// holding the schema, as Spark does; other splits and partitioned writes
// leave nothing.
func TestEmptyOutput(t *testing.T) {
	for _, tc := range []struct {
		split     int
		partition []string
		files     int
	}{{0, nil, 1}, {1, nil, 0}, {0, []string{"region"}, 0}} {
		dir := t.TempDir()
		w := mustWriter(t, Options{Dir: dir, Schema: partSchema, PartitionBy: tc.partition, Split: tc.split})
		empty := partRows(t, w.cfg.Allocator, 0, false)
		if err := w.Write(empty); err != nil {
			t.Fatal(err)
		}
		empty.Release()
		res, err := w.Commit()
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Files) != tc.files {
			t.Fatalf("split %d partition %v: %d files, want %d", tc.split, tc.partition, len(res.Files), tc.files)
		}
		if tc.files == 1 {
			tbl := readFile(t, res.Files[0].Path)
			if tbl.NumRows() != 0 || tbl.Schema().NumFields() != 4 {
				t.Errorf("empty file: %d rows, schema %s", tbl.NumRows(), tbl.Schema())
			}
			tbl.Release()
		}
	}
}
