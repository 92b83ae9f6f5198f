package write

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchRecords builds records of 64Ki rows: id, a string, a decimal and a
// date partition key taking `parts` values in sorted runs (or cycling when
// !sorted).
func benchRecords(b *testing.B, n, parts int, sorted bool) []arrow.Record {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal64Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}, nil)
	var out []arrow.Record
	const batch = 1 << 16
	for off := 0; off < n; off += batch {
		rec := makeRecord(b, memory.DefaultAllocator, sch, min(batch, n-off), uint64(off))
		d := rec.Column(3).(*array.Date32).Date32Values()
		for i := range d {
			row := off + i
			if sorted {
				d[i] = arrow.Date32(row * parts / n)
			} else {
				d[i] = arrow.Date32(row % parts)
			}
		}
		out = append(out, rec)
	}
	return out
}

func benchWrite(b *testing.B, n, parts int, sorted bool, partitionBy []string) {
	recs := benchRecords(b, n, parts, sorted)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	b.SetBytes(int64(n) * (8 + 8 + 8 + 4))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := NewWriter(context.Background(), Options{Dir: b.TempDir(), Schema: recs[0].Schema(), PartitionBy: partitionBy})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkWrite(b *testing.B) {
	const n = 1 << 20
	b.Run("unpartitioned", func(b *testing.B) { benchWrite(b, n, 1, true, nil) })
	b.Run("partitioned-sorted-100", func(b *testing.B) { benchWrite(b, n, 100, true, []string{"d"}) })
	b.Run("partitioned-unsorted-100", func(b *testing.B) { benchWrite(b, n, 100, false, []string{"d"}) })
}
