package tpchgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writerProperties are the Parquet settings of every generated file:
// snappy, statistics on, row groups of rowGroupRows, decimals stored as
// INT64 (as Spark writes decimals of precision <= 18).
func writerProperties(mem memory.Allocator, rowGroupRows int) *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithStats(true),
		parquet.WithMaxRowGroupLength(int64(rowGroupRows)),
		parquet.WithStoreDecimalAsInteger(true),
	)
}

// noClose hides the Close method of the buffered writer so that closing the
// Parquet writer only flushes the footer; the file is closed by writePart.
type noClose struct{ io.Writer }

// writePart writes units [lo, hi) of t to a new temporary file in dir and
// returns its name, byte size and row count. The temporary file is removed
// on any error or cancellation. onBatch is called with the row count of
// every batch written.
func writePart(ctx context.Context, g *gen, t *tableSpec, opt resolved, dir, final string, lo, hi int64, onBatch func(rows int64)) (tmp string, size int64, rows int64, err error) {
	if err := ctx.Err(); err != nil {
		return "", 0, 0, err
	}
	f, err := os.CreateTemp(dir, "."+final+".*.tmp")
	if err != nil {
		return "", 0, 0, fmt.Errorf("tpchgen: cannot create a file in %s: %w", dir, err)
	}
	path := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(path)
		}
	}()

	rr := newRangeReader(g, t, opt.Mem, opt.BatchRows, lo, hi)
	defer rr.Release()
	bw := bufio.NewWriterSize(f, 1<<20)
	fw, err := pqarrow.NewFileWriter(rr.Schema(), noClose{bw}, writerProperties(opt.Mem, opt.RowGroupRows),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(opt.Mem)))
	if err != nil {
		return "", 0, 0, fmt.Errorf("tpchgen: %s: %w", t.name, err)
	}
	for rr.Next() {
		if err = ctx.Err(); err != nil {
			fw.Close()
			return "", 0, 0, err
		}
		rec := rr.RecordBatch()
		if err = fw.WriteBuffered(rec); err != nil {
			fw.Close()
			return "", 0, 0, fmt.Errorf("tpchgen: writing %s: %w", path, err)
		}
		rows += rec.NumRows()
		onBatch(rec.NumRows())
	}
	if err = fw.Close(); err != nil {
		return "", 0, 0, fmt.Errorf("tpchgen: writing %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return "", 0, 0, fmt.Errorf("tpchgen: writing %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return "", 0, 0, fmt.Errorf("tpchgen: syncing %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return "", 0, 0, fmt.Errorf("tpchgen: %w", err)
	}
	if err = f.Close(); err != nil {
		return "", 0, 0, fmt.Errorf("tpchgen: closing %s: %w", path, err)
	}
	return path, st.Size(), rows, nil
}
