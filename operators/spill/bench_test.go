package spill

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/arrowsize"
	"github.com/hados-io/hados/operators/exchange"
)

// BenchmarkRun writes 16 records of 64K rows (int64, string, decimal,
// boolean with nulls) to a run and reads them back; bytes/op is the
// records' in-memory size.
func BenchmarkRun(b *testing.B) {
	for _, codec := range []exchange.Codec{exchange.LZ4, exchange.Snappy, exchange.NoCompression} {
		b.Run(codec.String(), func(b *testing.B) {
			rec := makeRecord(memory.DefaultAllocator, 64<<10, 1)
			defer rec.Release()
			m, err := NewManager(b.TempDir(), codec)
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			b.SetBytes(16 * arrowsize.Record(rec))
			var disk int64
			for b.Loop() {
				w, _ := m.Create("bench", testSchema)
				for range 16 {
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
				}
				r, err := w.Finish()
				if err != nil {
					b.Fatal(err)
				}
				disk = r.Bytes()
				if err := drain(r, memory.DefaultAllocator); err != nil {
					b.Fatal(err)
				}
				r.Remove()
			}
			b.ReportMetric(float64(16*arrowsize.Record(rec))/float64(disk), "ratio")
		})
	}
}
