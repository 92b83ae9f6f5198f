package tpchgen

import (
	"context"
	"os"
	"strconv"
	"testing"
)

// benchSF is the scale factor of BenchmarkGenerate: 0.01 unless
// HADOS_TPCHGEN_BENCH_SF says otherwise, e.g. to time SF 1:
//
//	HADOS_TPCHGEN_BENCH_SF=1 go test -run X -bench Generate -benchtime 1x ./internal/tpchgen
func benchSF(b *testing.B) float64 {
	if s := os.Getenv("HADOS_TPCHGEN_BENCH_SF"); s != "" {
		sf, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("HADOS_TPCHGEN_BENCH_SF: %v", err)
		}
		return sf
	}
	return testSF
}

func BenchmarkGenerate(b *testing.B) {
	sf := benchSF(b)
	var rows int64
	for b.Loop() {
		sum, err := Generate(context.Background(), Options{SF: sf, Out: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		rows = 0
		for _, t := range sum.Tables {
			rows += t.Rows
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkLineitemReader(b *testing.B) {
	var rows int64
	for b.Loop() {
		rr, err := NewTableReader("lineitem", Options{SF: testSF})
		if err != nil {
			b.Fatal(err)
		}
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		rr.Release()
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
