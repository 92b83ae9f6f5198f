package scan

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkScanDictStrings scans lineitem's dictionary-encoded string
// columns (l_shipmode, l_shipinstruct, l_returnflag, l_linestatus) dense
// and as dictionaries (Options.DictColumns), alternating in each
// iteration on one worker, and reports both times and their ratio
// (dict/dense).
func BenchmarkScanDictStrings(b *testing.B) {
	files, cols := lineitem(b)
	names := []string{"l_shipmode", "l_shipinstruct", "l_returnflag", "l_linestatus"}
	cols = pick(cols, names...)
	scan := func(dicts []string) time.Duration {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(b, 0)
		t0 := time.Now()
		s, err := Open(context.Background(), Options{Files: files, Columns: cols, DictColumns: dicts, Alloc: mem, Parallelism: 1})
		if err != nil {
			b.Fatal(err)
		}
		each(b, s, func(arrow.RecordBatch) {})
		s.Close()
		return time.Since(t0)
	}
	var dense, dict time.Duration
	b.ResetTimer()
	for range b.N {
		dense += scan(nil)
		dict += scan(names)
	}
	b.ReportMetric(float64(dense.Nanoseconds())/float64(b.N), "dense-ns/op")
	b.ReportMetric(float64(dict.Nanoseconds())/float64(b.N), "dict-ns/op")
	b.ReportMetric(float64(dict)/float64(dense), "dict/dense")
}
