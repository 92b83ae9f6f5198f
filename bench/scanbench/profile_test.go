package scanbench

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// lineitemSF1 lists lineitem SF1's files made by TestScanBench, skipping
// the benchmark when they are absent.
func lineitemSF1(b *testing.B) []string {
	files, _ := lineitemSF1Files()
	if len(files) == 0 {
		b.Skip("no lineitem SF1 under $TMPDIR/hados-bench/sf1: run TestScanBench first")
	}
	return files
}

// BenchmarkHadosScanQ6Columns scans Q6's columns of lineitem SF1 (made by
// TestScanBench) into Go memory with GOMAXPROCS threads, for profiling the
// scan alone:
//
//	go test -run XXX -bench HadosScan -cpu 1,2 -cpuprofile cpu.prof ./scanbench
func BenchmarkHadosScanQ6Columns(b *testing.B) {
	benchScan(b, memory.DefaultAllocator)
}

// BenchmarkHadosScanQ6ColumnsDevice is the same scan into the software
// DPU's memory, as TestScanBench measures it.
func BenchmarkHadosScanQ6ColumnsDevice(b *testing.B) {
	benchScan(b, deviceAllocator(b))
}

func benchScan(b *testing.B, alloc memory.Allocator) {
	files := lineitemSF1(b)
	cols := columnsOf(b, files[0], q6Columns...)
	threads := runtime.GOMAXPROCS(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := hadosScan(files, cols, nil, alloc, threads); err != nil {
			b.Fatal(err)
		}
	}
}

func lineitemSF1Files() ([]string, error) {
	return filepath.Glob(filepath.Join(os.TempDir(), "hados-bench", "sf1", "lineitem", "*.parquet"))
}
