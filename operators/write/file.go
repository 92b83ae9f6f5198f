package write

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// byteChunk is the most rows handed to the encoder between two checks of
// the row group byte size.
const byteChunk = 4096

// sink is the io.Writer under a pqarrow.FileWriter: it buffers, counts the
// bytes and deliberately has no Close, so that closing the parquet writer
// leaves the *os.File to partFile.
type sink struct {
	bw *bufio.Writer
	n  int64
}

func (s *sink) Write(p []byte) (int, error) {
	n, err := s.bw.Write(p)
	s.n += int64(n)
	return n, err
}

// partFile is one Parquet file being written under the task's temporary
// directory. It owns the open *os.File and the encoder's buffers (allocated
// from Options.Allocator); finish or discard releases both, exactly once.
type partFile struct {
	info     FileInfo // final RelPath and partition values; counts filled by finish
	tempPath string
	f        *os.File
	out      *sink
	pw       *pqarrow.FileWriter

	rows      int64 // rows in the file
	groupRows int64 // rows in the open row group
	newGroup  bool  // start a row group before the next write
}

// createFile opens tempPath (0644, must not exist) and starts a Parquet file
// of schema sc in it.
func createFile(tempPath string, info FileInfo, sc *arrow.Schema, props *parquet.WriterProperties, arrowProps pqarrow.ArrowWriterProperties) (*partFile, error) {
	f, err := openFile(tempPath)
	if err != nil {
		return nil, fmt.Errorf("write: create temporary file: %w", err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tempPath)
		return nil, fmt.Errorf("write: create temporary file: %w", err)
	}
	out := &sink{bw: bufio.NewWriterSize(f, 1<<20)}
	pw, err := pqarrow.NewFileWriter(sc, out, props, arrowProps)
	if err != nil {
		f.Close()
		os.Remove(tempPath)
		return nil, fmt.Errorf("write: start parquet file %s: %w", info.RelPath, err)
	}
	return &partFile{info: info, tempPath: tempPath, f: f, out: out, pw: pw, newGroup: true}, nil
}

// openFile is os.OpenFile for a new file; a variable so tests can inject
// I/O failures.
var openFile = func(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// room is how many more rows the file may take (MaxFileRows).
func (p *partFile) room(c *config) int64 { return c.MaxFileRows - p.rows }

// write appends rec (all of it: the caller respects room) to the file,
// closing row groups at RowGroupRows rows or RowGroupBytes bytes. It does
// not take ownership of rec.
func (p *partFile) write(c *config, rec arrow.Record) error {
	n := rec.NumRows()
	for off := int64(0); off < n; {
		if p.newGroup {
			if err := p.pw.NewBufferedRowGroupChecked(); err != nil {
				return p.errorf("start row group", err)
			}
			p.newGroup, p.groupRows = false, 0
		}
		size := min(n-off, c.RowGroupRows-p.groupRows, byteChunk)
		chunk := rec
		if off != 0 || size != n {
			chunk = rec.NewSlice(off, off+size)
		}
		err := p.pw.WriteBuffered(chunk)
		if chunk != rec {
			chunk.Release()
		}
		if err != nil {
			return p.errorf("encode rows", err)
		}
		off += size
		p.rows += size
		p.groupRows += size
		if p.groupRows >= c.RowGroupRows || p.pw.RowGroupTotalCompressedBytes() >= c.RowGroupBytes {
			p.newGroup = true
		}
	}
	return nil
}

// finish writes the footer, syncs and closes the file, and fills in the
// counts of p.info.
func (p *partFile) finish() error {
	err := p.pw.Close()
	if err == nil {
		err = p.out.bw.Flush()
	}
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return p.errorf("close", err)
	}
	md, err := p.pw.FileMetadata()
	if err != nil {
		return p.errorf("read back footer", err)
	}
	p.info.Rows = md.NumRows
	p.info.RowGroups = md.NumRowGroups()
	p.info.Bytes = p.out.n
	return nil
}

// discard releases the encoder and the file without caring for errors and
// removes the temporary file.
func (p *partFile) discard() {
	_ = p.pw.Close() // releases the encoder's buffers; the bytes are thrown away
	_ = p.f.Close()
	_ = os.Remove(p.tempPath)
}

func (p *partFile) errorf(step string, err error) error {
	if errors.Is(err, ErrSchemaMismatch) || errors.Is(err, ErrNotSupported) {
		return err
	}
	return fmt.Errorf("write: %s: %s: %w", p.info.RelPath, step, err)
}
