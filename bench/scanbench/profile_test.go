package scanbench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkHadosScanQ6Columns scans Q6's columns of lineitem SF1 (made by
// TestScanBench) on one thread into Go memory, for profiling the scan alone:
//
//	go test -run XXX -bench HadosScan -cpuprofile cpu.prof ./scanbench
func BenchmarkHadosScanQ6Columns(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(os.TempDir(), "hados-bench", "sf1", "lineitem", "*.parquet"))
	if len(files) == 0 {
		b.Skip("no lineitem SF1 under $TMPDIR/hados-bench/sf1: run TestScanBench first")
	}
	cols := columnsOf(b, files[0], q6Columns...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := hadosScan(files, cols, nil, memory.DefaultAllocator, 1); err != nil {
			b.Fatal(err)
		}
	}
}
