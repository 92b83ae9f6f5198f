package write

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/google/uuid"
)

type state int

const (
	stateOpen state = iota
	stateCommitted
	stateAborted
	stateFailed
)

// Writer writes the rows of one task as Parquet files under Options.Dir.
// Files grow under Dir/_temporary/<task attempt>/ and become visible only
// when Commit renames them into place; a failed Write or Commit removes
// every temporary and every file it had already moved.
//
// A Writer owns open files and encoder buffers from Options.Allocator until
// Commit or Abort returns; one of them must be called. It is not safe for
// concurrent use.
type Writer struct {
	ctx        context.Context
	cfg        *config
	schema     *arrow.Schema // of the stored columns
	props      *parquet.WriterProperties
	arrowProps pqarrow.ArrowWriterProperties
	split      *splitter

	created []string // directories NewWriter made (Dir and parents, _temporary, the task's)
	tempDir string

	open    map[string]*partFile // by partition path ("" when unpartitioned)
	counter map[string]int       // next file counter by partition path
	done    []*partFile          // finished temporaries
	seq     int

	state   state
	err     error
	cleaned bool
}

// NewWriter validates opt and prepares the task's temporary directory. Bad
// options give an error wrapping ErrInvalidOptions (or ErrNotSupported for a
// column type) that names the offending option or column. ctx is checked by
// Write and Commit; once cancelled they fail and clean up.
func NewWriter(ctx context.Context, opt Options) (*Writer, error) {
	cfg, err := newConfig(opt)
	if err != nil {
		return nil, err
	}
	w := &Writer{
		ctx:     ctx,
		cfg:     cfg,
		schema:  cfg.dataSchema(),
		open:    map[string]*partFile{},
		counter: map[string]int{},
	}
	w.props, w.arrowProps = cfg.writerProperties()
	if err := cfg.checkStorable(w.schema, w.props, w.arrowProps); err != nil {
		return nil, err
	}
	if w.split, err = newSplitter(cfg); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	attempt := strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	w.tempDir = filepath.Join(cfg.Dir, temporaryDir, tempDirName(cfg.TaskID, cfg.Split, attempt))
	// Another task may remove an empty _temporary between our Stat and
	// Mkdir of its child: retry then.
	for try := 0; ; try++ {
		if w.created, err = mkdirs(w.tempDir); err == nil {
			break
		}
		if try == 2 || !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("write: create temporary directory: %w", err)
		}
	}
	return w, nil
}

// Write appends the rows of rec, whose schema must match Options.Schema
// (names and types). It does not take ownership of rec and keeps no
// reference to it after returning. On error the Writer has already removed
// its temporaries and only Abort remains to be called (a no-op).
func (w *Writer) Write(rec arrow.Record) error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := w.ctx.Err(); err != nil {
		return w.fail(fmt.Errorf("write: %w", err))
	}
	if err := w.cfg.checkRecord(rec); err != nil {
		return w.fail(err)
	}
	if rec.NumRows() == 0 {
		return nil
	}
	data := w.cfg.dataRecord(rec, w.schema)
	defer data.Release()
	if len(w.cfg.partIdx) == 0 {
		return w.failIf(w.writeTo("", nil, data))
	}
	ctx := exec.WithAllocator(w.ctx, w.cfg.Allocator)
	for _, p := range w.split.split(rec) {
		part, err := p.take(ctx, data)
		if err != nil {
			return w.fail(fmt.Errorf("write: gather rows of partition %s: %w", p.path, err))
		}
		err = w.writeTo(p.path, p.values, part)
		part.Release()
		if err != nil {
			return w.fail(err)
		}
	}
	return nil
}

// writeTo appends rec to the open file of a partition, rolling over to a
// new file at MaxFileRows.
func (w *Writer) writeTo(path string, values []PartitionValue, rec arrow.Record) error {
	for off, n := int64(0), rec.NumRows(); off < n; {
		pf := w.open[path]
		if pf == nil {
			var err error
			if pf, err = w.newFile(path, values); err != nil {
				return err
			}
		}
		size := min(n-off, pf.room(w.cfg))
		chunk := rec
		if off != 0 || size != n {
			chunk = rec.NewSlice(off, off+size)
		}
		err := pf.write(w.cfg, chunk)
		if chunk != rec {
			chunk.Release()
		}
		if err != nil {
			return err
		}
		off += size
		if pf.room(w.cfg) == 0 {
			if err := w.finishFile(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// newFile opens the next file of a partition.
func (w *Writer) newFile(path string, values []PartitionValue) (*partFile, error) {
	counter := w.counter[path]
	w.counter[path] = counter + 1
	name := fileName(w.cfg.Split, w.cfg.TaskID, counter, w.cfg.codec.ext)
	w.seq++
	info := FileInfo{RelPath: relPath(path, name), PartitionPath: path, Partition: values}
	tempPath := filepath.Join(w.tempDir, fmt.Sprintf("%06d-%s", w.seq, name))
	pf, err := createFile(tempPath, info, w.schema, w.props, w.arrowProps)
	if err != nil {
		return nil, err
	}
	w.open[path] = pf
	return pf, nil
}

// finishFile closes the open file of a partition and queues it for Commit.
func (w *Writer) finishFile(path string) error {
	pf := w.open[path]
	delete(w.open, path)
	if err := pf.finish(); err != nil {
		_ = os.Remove(pf.tempPath)
		return err
	}
	w.done = append(w.done, pf)
	return nil
}

// Commit closes every file and renames each into Dir/<partition path>/,
// creating the partition directories (0755) it needs, then removes the
// task's temporary directory. If any step fails, or ctx is cancelled, the
// files already moved and the directories Commit created are removed again
// and the error is returned: nothing of the task stays visible.
//
// A task that wrote no rows leaves no file, except that split 0 of an
// unpartitioned write leaves one empty file carrying the schema, as Spark
// does.
func (w *Writer) Commit() (Result, error) {
	if err := w.usable(); err != nil {
		return Result{}, err
	}
	if err := w.ctx.Err(); err != nil {
		return Result{}, w.fail(fmt.Errorf("write: commit: %w", err))
	}
	paths := make([]string, 0, len(w.open))
	for p := range w.open {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := w.finishFile(p); err != nil {
			return Result{}, w.fail(err)
		}
	}
	if len(w.done) == 0 && len(w.cfg.partIdx) == 0 && w.cfg.Split == 0 {
		if _, err := w.newFile("", nil); err != nil {
			return Result{}, w.fail(err)
		}
		if err := w.finishFile(""); err != nil {
			return Result{}, w.fail(err)
		}
	}
	res, err := w.publish()
	if err != nil {
		return Result{}, w.fail(err)
	}
	w.state = stateCommitted
	w.done = nil
	w.removeTemporaries()
	return res, nil
}

// publish renames the finished temporaries into place, undoing its own
// renames and directories on failure.
func (w *Writer) publish() (Result, error) {
	sort.Slice(w.done, func(i, j int) bool { return w.done[i].info.RelPath < w.done[j].info.RelPath })
	var (
		moved []string
		dirs  []string
		res   Result
	)
	undo := func(err error) (Result, error) {
		for _, f := range moved {
			_ = os.Remove(f)
		}
		removeDirs(dirs)
		return Result{}, err
	}
	for _, pf := range w.done {
		if err := w.ctx.Err(); err != nil {
			return undo(fmt.Errorf("write: commit: %w", err))
		}
		final := filepath.Join(w.cfg.Dir, filepath.FromSlash(pf.info.RelPath))
		made, err := mkdirs(filepath.Dir(final))
		dirs = append(dirs, made...)
		if err != nil {
			return undo(fmt.Errorf("write: commit %s: create partition directory: %w", pf.info.RelPath, err))
		}
		if _, err := os.Lstat(final); err == nil {
			return undo(fmt.Errorf("write: commit: %s already exists", final))
		}
		if err := renameFile(pf.tempPath, final); err != nil {
			return undo(fmt.Errorf("write: commit %s: %w", pf.info.RelPath, err))
		}
		moved = append(moved, final)
		pf.info.Path = final
		res.Files = append(res.Files, pf.info)
	}
	return res, nil
}

// Abort discards everything the Writer wrote: open files, temporaries and
// the directories NewWriter created, if empty. After a successful Commit it
// does nothing. It is idempotent.
func (w *Writer) Abort() error {
	switch w.state {
	case stateCommitted:
		return nil
	case stateOpen:
		w.state = stateAborted
	}
	return w.cleanup()
}

// cleanup releases open files and removes every temporary, once.
func (w *Writer) cleanup() error {
	if w.cleaned {
		return nil
	}
	w.cleaned = true
	for p, pf := range w.open {
		pf.discard()
		delete(w.open, p)
	}
	w.done = nil
	return w.removeTemporaries()
}

// removeTemporaries deletes the task's temporary directory and _temporary
// if no other task uses it; unless the Writer committed, it also removes the
// directories NewWriter created (Dir included) that are now empty.
func (w *Writer) removeTemporaries() error {
	err := os.RemoveAll(w.tempDir)
	_ = os.Remove(filepath.Join(w.cfg.Dir, temporaryDir))
	if w.state != stateCommitted {
		removeDirs(w.created)
	}
	if err != nil {
		return fmt.Errorf("write: remove temporary directory: %w", err)
	}
	return nil
}

// fail records err, cleans up and returns err.
func (w *Writer) fail(err error) error {
	w.state, w.err = stateFailed, err
	_ = w.cleanup()
	return err
}

func (w *Writer) failIf(err error) error {
	if err != nil {
		return w.fail(err)
	}
	return nil
}

// usable returns an ErrClosed error unless the Writer still accepts calls.
func (w *Writer) usable() error {
	switch w.state {
	case stateOpen:
		return nil
	case stateFailed:
		return fmt.Errorf("write: an earlier call failed (%v): %w", w.err, ErrClosed)
	case stateCommitted:
		return fmt.Errorf("write: already committed: %w", ErrClosed)
	}
	return fmt.Errorf("write: already aborted: %w", ErrClosed)
}
