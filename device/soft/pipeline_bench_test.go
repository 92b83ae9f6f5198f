package soft_test

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hados-io/hados/device"
)

// Benchmarks of the interpreter on one engine core:
//   - FILTER i64 > const + COUNT over 64M rows, in GB/s of input, with the
//     ratio to a single-thread read of the same memory (sum of int64)
//     measured in the same run (target >= 0.7);
//   - a TPC-H Q6-shaped pipeline over 6M rows (date range on I32, decimal
//     BETWEEN on I64, quantity < const, DEC_MUL I64 x I64 -> I128, SUM into
//     an aggregation state), in ms per run.

// sumInt64 is the read-bandwidth baseline: a plain loop with four
// independent accumulators.
func sumInt64(xs []int64) int64 {
	var a, b, c, d int64
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		a += xs[i]
		b += xs[i+1]
		c += xs[i+2]
		d += xs[i+3]
	}
	for ; i < len(xs); i++ {
		a += xs[i]
	}
	return a + b + c + d
}

var benchSink int64

func BenchmarkPipelineFilterCount(b *testing.B) {
	const rows = 64 << 20
	e := newEnv(b, "soft:memory=640MiB,cores=1,mode=host-visible", 8*rows+(4<<20))
	data := e.alloc(8 * rows)
	m, err := e.d.Map(data, 8*rows)
	if err != nil {
		b.Fatal(err)
	}
	xs := unsafe.Slice((*int64)(unsafe.Pointer(&m[0])), rows)
	r := rand.New(rand.NewPCG(1, 1))
	want := uint64(0)
	for i := range xs {
		xs[i] = r.Int64N(1000)
		if xs[i] > 500 {
			want++
		}
	}
	col := device.Column{VType: device.VTI64, Length: rows, Data: data}
	desc, err := filterGT(col, 500, device.SinkCount).Encode()
	if err != nil {
		b.Fatal(err)
	}
	da := e.put(desc)
	op := device.Op{Code: device.OpPipeline, Src: da, Len: uint64(len(desc)), Args: [4]uint64{0, rows}}
	var pipe, read time.Duration
	b.SetBytes(8 * rows)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := run(b, e.q, op)
		pipe += c.Exec // engine time of the op, without submit/poll overhead
		if c.Err != nil || c.Results[0] != want {
			b.Fatalf("count %d, %v; want %d", c.Results[0], c.Err, want)
		}
		t0 := time.Now()
		benchSink += sumInt64(xs)
		read += time.Since(t0)
	}
	b.StopTimer()
	gbs := func(d time.Duration) float64 { return float64(8*rows) * float64(b.N) / d.Seconds() / 1e9 }
	b.ReportMetric(gbs(pipe), "pipeline_GB/s")
	b.ReportMetric(gbs(read), "read_GB/s")
	b.ReportMetric(gbs(pipe)/gbs(read), "ratio")
}

// q6 builds the Q6-shaped pipeline and its columns over rows rows; it
// returns the expected sum of extendedprice * discount.
func q6(b testing.TB, e *env, rows int) (*device.Pipeline, *big.Int) {
	r := rand.New(rand.NewPCG(6, 6))
	ship := make([]byte, 4*rows)
	disc, qty, price := make([]byte, 8*rows), make([]byte, 8*rows), make([]byte, 8*rows)
	le := binary.LittleEndian
	const d0, d1 = 8766, 9131 // 1994-01-01, 1995-01-01
	want := new(big.Int)
	for i := 0; i < rows; i++ {
		sd := int32(8036 + r.IntN(2526)) // 1992-01-02 .. 1998-12-01
		dc := int64(r.IntN(11))          // 0.00 .. 0.10
		qt := int64(100 * (1 + r.IntN(50)))
		pr := int64(90000 + r.IntN(10000000))
		le.PutUint32(ship[4*i:], uint32(sd))
		le.PutUint64(disc[8*i:], uint64(dc))
		le.PutUint64(qty[8*i:], uint64(qt))
		le.PutUint64(price[8*i:], uint64(pr))
		if sd >= d0 && sd < d1 && dc >= 5 && dc <= 7 && qt < 2400 {
			want.Add(want, big.NewInt(pr*dc))
		}
	}
	col := func(vt device.VType, buf []byte) device.Column {
		return device.Column{VType: vt, Length: uint64(rows), Data: e.put(buf)}
	}
	I32, I64, I128, B := device.VTI32, device.VTI64, device.VTI128, device.VTBool
	p := &device.Pipeline{
		RegTypes: []device.VType{I32, B, B, I64, B, B, I64, B, I64, I128},
		Columns:  []device.Column{col(I32, ship), col(I64, disc), col(I64, qty), col(I64, price)},
		Consts:   []device.Const{device.ConstI32(d0), device.ConstI32(d1), device.ConstI64(5), device.ConstI64(7), device.ConstI64(2400)},
		Insns: []device.Insn{
			{Op: device.KColumn, VType: I32, Dst: 0, P1: 0},
			{Op: device.KGe, VType: I32, Flags: device.IfBConst, Dst: 1, A: 0, B: 0},
			{Op: device.KFilter, A: 1},
			{Op: device.KLt, VType: I32, Flags: device.IfBConst, Dst: 2, A: 0, B: 1},
			{Op: device.KFilter, A: 2},
			{Op: device.KColumn, VType: I64, Dst: 3, P1: 1},
			{Op: device.KGe, VType: I64, Flags: device.IfBConst, Dst: 4, A: 3, B: 2},
			{Op: device.KFilter, A: 4},
			{Op: device.KLe, VType: I64, Flags: device.IfBConst, Dst: 5, A: 3, B: 3},
			{Op: device.KFilter, A: 5},
			{Op: device.KColumn, VType: I64, Dst: 6, P1: 2},
			{Op: device.KLt, VType: I64, Flags: device.IfBConst, Dst: 7, A: 6, B: 4},
			{Op: device.KFilter, A: 7},
			{Op: device.KColumn, VType: I64, Dst: 8, P1: 3},
			{Op: device.KDecMul, VType: I128, Dst: 9, A: 8, B: 3, P1: 0, P2: int32(I64), P3: int32(I64)},
		},
		Sink: device.SinkAgg,
		Agg: &device.AggSpec{Aggs: []device.Agg{
			{Func: device.AggSum, Flags: device.AggDecimal, Arg: 9, InVType: I128, OutVType: I128},
		}},
	}
	return p, want
}

func BenchmarkPipelineQ6(b *testing.B) {
	const rows = 6_000_000
	e := newEnv(b, "soft:memory=320MiB,cores=1,mode=host-visible", 200<<20)
	p, want := q6(b, e, rows)
	desc, err := p.Encode()
	if err != nil {
		b.Fatal(err)
	}
	da := e.put(desc)
	slot := e.alloc(8)
	c := run(b, e.q, device.Op{Code: device.OpAggCreate, Src: da, Len: uint64(len(desc)), Dst: slot})
	if c.Err != nil {
		b.Fatal(c.Err)
	}
	st := device.Addr(c.Results[0])
	defer run(b, e.q, device.Op{Code: device.OpAggFree, Src: st})
	op := device.Op{Code: device.OpPipeline, Src: da, Len: uint64(len(desc)), Args: [4]uint64{0, rows, uint64(st)}}
	var exec time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := run(b, e.q, op)
		if c.Err != nil {
			b.Fatal(c.Err)
		}
		exec += c.Exec
	}
	b.StopTimer()
	b.ReportMetric(float64(exec.Microseconds())/1000/float64(b.N), "device_ms/run")
	// The state summed b.N runs: check it.
	cols := []device.Column{e.outColumn(device.VTI128, 1, 0), e.outColumn(device.VTBool, 1, 0)}
	out := e.put(device.EncodeColumns(cols, 1))
	if c := run(b, e.q, device.Op{Code: device.OpAggEmit, Src: st, Dst: out}); c.Err != nil || c.Results[0] != 1 {
		b.Fatalf("emit: %d groups, %v", c.Results[0], c.Err)
	}
	got := e.readColumn(cols[0], 1).vals[0]
	want.Mul(want, big.NewInt(int64(b.N)))
	if got.null || got.x.Cmp(want) != 0 {
		b.Fatalf("Q6 sum %v, want %v", got, want)
	}
}

// TestPipelineQ6Small checks the Q6-shaped pipeline's result on a small
// input (the benchmark checks it at scale).
func TestPipelineQ6Small(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 8<<20)
	p, want := q6(t, e, 20000)
	cols := []device.Column{e.outColumn(device.VTI128, 1, 0), e.outColumn(device.VTBool, 1, 0)}
	if g := aggRun(t, e, p, [][2]uint64{{0, 7000}, {7000, 20000}}, cols, 1); g != 1 {
		t.Fatalf("%d groups", g)
	}
	if got := e.readColumn(cols[0], 1).vals[0]; got.null || got.x.Cmp(want) != 0 {
		t.Fatalf("sum %v, want %v", got, want)
	}
}

// BenchmarkPipelineFPS is the interpreter's side of operators'
// BenchmarkVsArrowCompute fps case on one engine core: sum(cast(a as
// double) * (1.0 - b)) where a > 500000 over 16M rows (a bigint uniform in
// [0, 1e6), so about half the rows pass; b a double in [0, 1)). It reports
// the engine's time and the process CPU time per run (the CPU time moves
// less than the wall time on a shared machine).
func BenchmarkPipelineFPS(b *testing.B) {
	const rows = 16 << 20
	e := newEnv(b, "soft:memory=320MiB,cores=1,mode=host-visible", 16*rows+(4<<20))
	r := rand.New(rand.NewPCG(8, 8))
	ab, bb := make([]byte, 8*rows), make([]byte, 8*rows)
	le := binary.LittleEndian
	want := 0.0
	for i := 0; i < rows; i++ {
		a, x := r.Int64N(1_000_000), r.Float64()
		le.PutUint64(ab[8*i:], uint64(a))
		le.PutUint64(bb[8*i:], math.Float64bits(x))
		if a > 500_000 {
			want += float64(a) * (1 - x)
		}
	}
	I64, F64, B := device.VTI64, device.VTF64, device.VTBool
	p := &device.Pipeline{
		RegTypes: []device.VType{I64, B, F64, F64, F64, F64},
		Columns:  []device.Column{{VType: I64, Length: rows, Data: e.put(ab)}, {VType: F64, Length: rows, Data: e.put(bb)}},
		Consts:   []device.Const{device.ConstI64(500_000), device.ConstF64(1)},
		Insns: []device.Insn{
			{Op: device.KColumn, VType: I64, Dst: 0, P1: 0},
			{Op: device.KGt, VType: I64, Flags: device.IfBConst, Dst: 1, A: 0, B: 0},
			{Op: device.KFilter, A: 1},
			{Op: device.KCastToF64, VType: F64, Dst: 2, A: 0, P2: int32(I64)},
			{Op: device.KColumn, VType: F64, Dst: 3, P1: 1},
			{Op: device.KSub, VType: F64, Flags: device.IfAConst, Dst: 4, A: 1, B: 3},
			{Op: device.KMul, VType: F64, Dst: 5, A: 2, B: 4},
		},
		Sink: device.SinkAgg,
		Agg:  &device.AggSpec{Aggs: []device.Agg{{Func: device.AggSum, Arg: 5, Arg2: device.NoReg, InVType: F64, OutVType: F64}}},
	}
	desc, err := p.Encode()
	if err != nil {
		b.Fatal(err)
	}
	da := e.put(desc)
	op := device.Op{Code: device.OpPipeline, Src: da, Len: uint64(len(desc)), Args: [4]uint64{0, rows}}
	var exec, cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := run(b, e.q, device.Op{Code: device.OpAggCreate, Src: da, Len: uint64(len(desc)), Dst: e.alloc(8)})
		if c.Err != nil {
			b.Fatal(c.Err)
		}
		st := device.Addr(c.Results[0])
		op.Args[2] = uint64(st)
		b.StartTimer()
		cpu0 := processCPU()
		c = run(b, e.q, op)
		cpu += processCPU() - cpu0
		if c.Err != nil {
			b.Fatal(c.Err)
		}
		exec += c.Exec
		b.StopTimer()
		cols := []device.Column{e.outColumn(F64, 1, 0)}
		out := e.put(device.EncodeColumns(cols, 1))
		if c := run(b, e.q, device.Op{Code: device.OpAggEmit, Src: st, Dst: out}); c.Err != nil || c.Results[0] != 1 {
			b.Fatalf("emit: %d groups, %v", c.Results[0], c.Err)
		}
		// one vector loop in row order, one accumulator: the same bits
		if got := e.readColumn(cols[0], 1).vals[0]; got.null || got.f != want {
			b.Fatalf("sum %v, want %v", got.f, want)
		}
		run(b, e.q, device.Op{Code: device.OpAggFree, Src: st})
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(exec.Microseconds())/1000/float64(b.N), "device_ms/run")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu_ms/run")
}

// processCPU is the process's user + system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
