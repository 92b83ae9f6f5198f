package exchange

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/arrowsize"
)

var lineitemSchema = arrow.NewSchema([]arrow.Field{
	{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64},
	{Name: "l_partkey", Type: arrow.PrimitiveTypes.Int64},
	{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int64},
	{Name: "l_linenumber", Type: arrow.PrimitiveTypes.Int32},
	{Name: "l_quantity", Type: &arrow.Decimal64Type{Precision: 12, Scale: 2}},
	{Name: "l_extendedprice", Type: &arrow.Decimal64Type{Precision: 12, Scale: 2}},
	{Name: "l_discount", Type: &arrow.Decimal64Type{Precision: 12, Scale: 2}},
	{Name: "l_tax", Type: &arrow.Decimal64Type{Precision: 12, Scale: 2}},
	{Name: "l_returnflag", Type: arrow.BinaryTypes.String},
	{Name: "l_linestatus", Type: arrow.BinaryTypes.String},
	{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32},
	{Name: "l_commitdate", Type: arrow.FixedWidthTypes.Date32},
	{Name: "l_receiptdate", Type: arrow.FixedWidthTypes.Date32},
	{Name: "l_shipinstruct", Type: arrow.BinaryTypes.String},
	{Name: "l_shipmode", Type: arrow.BinaryTypes.String},
	{Name: "l_comment", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// lineitemBatches makes rows of TPC-H-like lineitem data in batches of
// 64Ki rows; HADOS_BENCH_ROWS overrides the default of 1M rows.
func lineitemBatches(b *testing.B, mem memory.Allocator) ([]arrow.RecordBatch, int64) {
	rows := 1 << 20
	if s := os.Getenv("HADOS_BENCH_ROWS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			rows = n
		}
	}
	rng := rand.New(rand.NewPCG(42, 42))
	instr := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	comment := "carefully final deposits detect slyly agai"
	var recs []arrow.RecordBatch
	var bytes int64
	for done := 0; done < rows; {
		n := min(1<<16, rows-done)
		bld := array.NewRecordBuilder(mem, lineitemSchema)
		f := bld.Fields()
		for i := 0; i < n; i++ {
			order := int64(done+i) / 4
			f[0].(*array.Int64Builder).Append(order*7 + 1)
			f[1].(*array.Int64Builder).Append(rng.Int64N(200000))
			f[2].(*array.Int64Builder).Append(rng.Int64N(10000))
			f[3].(*array.Int32Builder).Append(int32(i%7 + 1))
			f[4].(*array.Decimal64Builder).Append(decimal.Decimal64(rng.Int64N(5000) + 100))
			f[5].(*array.Decimal64Builder).Append(decimal.Decimal64(rng.Int64N(10000000)))
			f[6].(*array.Decimal64Builder).Append(decimal.Decimal64(rng.Int64N(11)))
			f[7].(*array.Decimal64Builder).Append(decimal.Decimal64(rng.Int64N(9)))
			f[8].(*array.StringBuilder).Append([]string{"A", "N", "R"}[rng.IntN(3)])
			f[9].(*array.StringBuilder).Append([]string{"O", "F"}[rng.IntN(2)])
			d := arrow.Date32(8000 + rng.IntN(2500))
			f[10].(*array.Date32Builder).Append(d)
			f[11].(*array.Date32Builder).Append(d + arrow.Date32(rng.IntN(60)))
			f[12].(*array.Date32Builder).Append(d + arrow.Date32(rng.IntN(30)))
			f[13].(*array.StringBuilder).Append(instr[rng.IntN(len(instr))])
			f[14].(*array.StringBuilder).Append(modes[rng.IntN(len(modes))])
			f[15].(*array.StringBuilder).Append(comment[rng.IntN(20):])
		}
		rec := bld.NewRecordBatch()
		bld.Release()
		bytes += arrowsize.Record(rec)
		recs = append(recs, rec)
		done += n
	}
	return recs, bytes
}

// cpuTime is the process's user+system CPU time. The benchmarks report
// throughput per CPU second as well as per wall second because the
// machines they run on are often shared (the code is single-threaded).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration, bytes int64) {
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkExchange hash-partitions lineitem-like batches on l_orderkey
// into 200 partitions through shuffle files and reads every partition
// back; the reported MB/s is in-memory Arrow bytes per second of the write
// (partition, compress, write) and read (read, decompress, decode) sides.
func BenchmarkExchange(b *testing.B) {
	mem := memory.NewGoAllocator()
	recs, size := lineitemBatches(b, mem)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	const n = 200
	for _, codec := range []Codec{LZ4, Snappy} {
		dir := b.TempDir()
		var out MapOutput
		b.Run(fmt.Sprintf("write/%s", codec), func(b *testing.B) {
			b.SetBytes(size)
			defer reportCPU(b, cpuTime(), size)
			for i := 0; i < b.N; i++ {
				h, _ := NewHash([]int{0}, n)
				w, err := NewShuffleWriter(h, WriterOptions{Dir: dir, Codec: codec, Allocator: mem})
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range recs {
					if err := w.Write(r); err != nil {
						b.Fatal(err)
					}
				}
				if out, err = w.Close(); err != nil {
					b.Fatal(err)
				}
				st := w.Stats()
				b.ReportMetric(st.CompressionRatio(), "ratio")
				b.ReportMetric(float64(st.Spills), "spills")
			}
		})
		b.Run(fmt.Sprintf("read/%s", codec), func(b *testing.B) {
			b.SetBytes(size)
			defer reportCPU(b, cpuTime(), size)
			for i := 0; i < b.N; i++ {
				var rows int64
				for p := 0; p < n; p++ {
					r, err := NewShuffleReader([]MapOutput{out}, p, lineitemSchema, mem)
					if err != nil {
						b.Fatal(err)
					}
					for {
						rec, err := r.Next()
						if err != nil {
							b.Fatal(err)
						}
						if rec == nil {
							break
						}
						rows += rec.NumRows()
						rec.Release()
					}
					r.Close()
				}
				if want := func() (t int64) {
					for _, r := range recs {
						t += r.NumRows()
					}
					return
				}(); rows != want {
					b.Fatalf("read %d rows, want %d", rows, want)
				}
			}
		})
	}
}

// BenchmarkHashPartitionIDs measures Spark-compatible hashing of two key
// columns (bigint, string) and pmod.
func BenchmarkHashPartitionIDs(b *testing.B) {
	mem := memory.NewGoAllocator()
	recs, _ := lineitemBatches(b, mem)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	h, _ := NewHash([]int{0, 14}, 200)
	ids := make([]int32, 1<<16)
	b.SetBytes(int64(recs[0].NumRows()) * 8)
	b.ResetTimer()
	defer reportCPU(b, cpuTime(), int64(recs[0].NumRows())*8)
	for i := 0; i < b.N; i++ {
		r := recs[i%len(recs)]
		if err := h.PartitionIDs(r, ids[:r.NumRows()]); err != nil {
			b.Fatal(err)
		}
	}
}
