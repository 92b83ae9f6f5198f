package operators_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// This file compares hados's fused device pipelines with arrow-go's own
// compute package on the same Arrow arrays, and with a plain Go loop reading
// the same memory (this machine's single-thread read bandwidth, measured in
// the same run).
//
// The table is (a bigint, b double, bd decimal(15,2)): the headline project
// uses b, a double, so that compute runs its native float64 kernels, not its
// slower decimal ones; the decimal variant uses bd.
// a is uniform in [0, 1e6) and the filter is a > 500000, so about half the
// rows pass (the worst case for a branchy filter).
//
// arrow-go v18.8.0's compute has no aggregate functions (no "sum", no
// "count": only scalar and vector kernels), so on the compute side the final
// sum is a plain Go loop over compute's float64 output and the count is the
// length of compute's "filter" output. Both favour compute.

// vsLiteral is the filter's literal: a > vsLiteral.
const vsLiteral = 500_000

// vsData is the benchmark table, in batches, in one target's memory. recs
// own the buffers; release frees them.
type vsData struct {
	schema *arrow.Schema
	recs   []arrow.Record
	a      [][]int64 // column a of each batch (views of recs' buffers)
	rows   int
}

func (d *vsData) release() {
	for _, r := range d.recs {
		r.Release()
	}
	d.recs, d.a = nil, nil
}

var vsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "a", Type: arrow.PrimitiveTypes.Int64},
	{Name: "b", Type: arrow.PrimitiveTypes.Float64},
	{Name: "bd", Type: vsDecType},
}, nil)

// vsDecType is the decimal variant of b: decimal(15,2), stored as
// Decimal128 because arrow-go's compute has no Decimal64 arithmetic.
var vsDecType = &arrow.Decimal128Type{Precision: 15, Scale: 2}

// genVsData places rows rows, in batches of batch, in the target's
// host-visible device memory: generated from a fixed seed, or copied from
// like (so every target reads the same bytes). The test's cleanup releases
// them.
func genVsData(tb testing.TB, t *operators.Target, rows, batch int, like *vsData) *vsData {
	tb.Helper()
	mem, err := hmem.NewDeviceAllocator(t.Pool, nil)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	d := &vsData{schema: vsSchema, rows: rows}
	tb.Cleanup(d.release)
	for lo, k := 0, 0; lo < rows; lo, k = lo+batch, k+1 {
		n := min(batch, rows-lo)
		bufs := []*memory.Buffer{newFixed(mem, 8*n), newFixed(mem, 8*n), newFixed(mem, 16*n)}
		a := arrow.Int64Traits.CastFromBytes(bufs[0].Bytes())
		if like != nil {
			for j, buf := range bufs {
				copy(buf.Bytes(), like.recs[k].Column(j).Data().Buffers()[1].Bytes())
			}
		} else {
			b := arrow.Float64Traits.CastFromBytes(bufs[1].Bytes())
			bd := arrow.Decimal128Traits.CastFromBytes(bufs[2].Bytes())
			for i := range a {
				a[i] = rng.Int64N(1_000_000)
				b[i] = rng.Float64()
				bd[i] = decimal128.FromI64(rng.Int64N(100)) // 0.00 to 0.99
			}
		}
		cols := make([]arrow.Array, len(bufs))
		for j, buf := range bufs {
			data := array.NewData(vsSchema.Field(j).Type, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
			cols[j] = array.MakeFromData(data)
			data.Release()
			buf.Release()
		}
		d.recs = append(d.recs, array.NewRecord(vsSchema, cols, int64(n)))
		d.a = append(d.a, a)
		for _, c := range cols {
			c.Release()
		}
	}
	return d
}

// newFixed allocates a buffer of exactly size bytes from mem.
func newFixed(mem memory.Allocator, size int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(size)
	return b
}

// vsCond is a > vsLiteral over vsSchema.
func vsCond() *expr.Expr {
	return expr.Call(expr.OpGt, tBool, expr.Column(0, "a", types.LongType), expr.Literal(int64(vsLiteral), types.LongType))
}

// vsProject is cast(a as double) * (1.0 - b) over vsSchema, or with dec
// Spark's decimal form, cast(a as decimal(20,0)) * (1 - bd): decimal(37,2).
func vsProject(tb testing.TB, dec bool) *expr.Expr {
	if !dec {
		a := expr.Call(expr.OpCast, types.DoubleType, expr.Column(0, "a", types.LongType))
		oneMinusB := expr.Call(expr.OpSub, types.DoubleType, expr.Literal(1.0, types.DoubleType), expr.Column(1, "b", types.DoubleType))
		return expr.Call(expr.OpMul, types.DoubleType, a, oneMinusB)
	}
	a := expr.Call(expr.OpCast, types.DecimalOf(20, 0), expr.Column(0, "a", types.LongType))
	oneMinusB := arith(tb, expr.OpSub, "-", expr.Decimal(1, 1, 0), expr.Column(2, "bd", types.DecimalOf(15, 2)))
	return arith(tb, expr.OpMul, "*", a, oneMinusB)
}

// hadosAgg runs one fused device pipeline, filter a > lit then one
// aggregate call, and returns its single output value.
func hadosAgg(tb testing.TB, t *operators.Target, d *vsData, call operators.AggCall) any {
	names := []string{call.Func}
	if call.Input.Kind == types.Decimal {
		names = append(names, "isEmpty")
	}
	h, err := operators.NewHashAggregate(t, operators.NewRecordSource(d.schema, d.recs...), vsCond(), nil,
		[]operators.AggCall{call}, operators.AggUpdate, names)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := operators.Collect(context.Background(), h)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() {
		for _, r := range out {
			r.Release()
		}
	}()
	if len(out) != 1 || out[0].NumRows() != 1 || out[0].Column(0).IsNull(0) {
		tb.Fatalf("hados %s: want one non-null row, got %d records", call.Func, len(out))
	}
	switch c := out[0].Column(0).(type) {
	case *array.Int64:
		return c.Value(0)
	case *array.Float64:
		return c.Value(0)
	case *array.Decimal128:
		return c.Value(0)
	}
	tb.Fatalf("hados %s: unexpected output %s", call.Func, out[0].Column(0).DataType())
	return nil
}

func hadosCount(tb testing.TB, t *operators.Target, d *vsData) int64 {
	return hadosAgg(tb, t, d, operators.AggCall{Func: "count", Input: types.LongType}).(int64)
}

func hadosSum(tb testing.TB, t *operators.Target, d *vsData) float64 {
	e := vsProject(tb, false)
	return hadosAgg(tb, t, d, operators.AggCall{Func: "sum", Args: []*expr.Expr{e}, Input: e.Type}).(float64)
}

func hadosSumDec(tb testing.TB, t *operators.Target, d *vsData) decimal128.Num {
	e := vsProject(tb, true)
	return hadosAgg(tb, t, d, operators.AggCall{Func: "sum", Args: []*expr.Expr{e}, Input: e.Type}).(decimal128.Num)
}

// call is compute.CallFunction failing the test on error.
func call(tb testing.TB, name string, opts compute.FunctionOptions, args ...compute.Datum) compute.Datum {
	out, err := compute.CallFunction(context.Background(), name, opts, args...)
	if err != nil {
		tb.Fatalf("compute %s: %v", name, err)
	}
	return out
}

// computeCount counts a > lit with compute: "greater", then either "filter"
// (materialise the passing values, as a Filter operator would) or, when
// popcount, counting the mask's set bits (the least compute can do).
func computeCount(tb testing.TB, d *vsData, popcount bool) int64 {
	lit := compute.NewDatum(scalar.NewInt64Scalar(vsLiteral))
	var n int64
	for _, r := range d.recs {
		a := compute.NewDatum(r.Column(0))
		mask := call(tb, "greater", nil, a, lit)
		if popcount {
			m := mask.(*compute.ArrayDatum).Value
			n += int64(bitutil.CountSetBits(m.Buffers()[1].Bytes(), m.Offset(), m.Len()))
		} else {
			f := call(tb, "filter", compute.DefaultFilterOptions(), a, mask)
			n += f.(*compute.ArrayDatum).Len()
			f.Release()
		}
		mask.Release()
		a.Release()
	}
	return n
}

// computeSum is sum(cast(a as double) * (1 - b)) where a > lit with
// compute's kernels: greater, filter a and b, cast, subtract, multiply; the
// sum is a Go loop (compute has none).
func computeSum(tb testing.TB, d *vsData) float64 {
	lit := compute.NewDatum(scalar.NewInt64Scalar(vsLiteral))
	one := compute.NewDatum(scalar.NewFloat64Scalar(1))
	castOpts := compute.SafeCastOptions(arrow.PrimitiveTypes.Float64)
	var sum float64
	for _, r := range d.recs {
		a, b := compute.NewDatum(r.Column(0)), compute.NewDatum(r.Column(1))
		mask := call(tb, "greater", nil, a, lit)
		af := call(tb, "filter", compute.DefaultFilterOptions(), a, mask)
		bf := call(tb, "filter", compute.DefaultFilterOptions(), b, mask)
		ad := call(tb, "cast", castOpts, af)
		omb := call(tb, "subtract", nil, one, bf)
		p := call(tb, "multiply", nil, ad, omb)
		sum += sum4(arrow.Float64Traits.CastFromBytes(p.(*compute.ArrayDatum).Value.Buffers()[1].Bytes())[:p.Len()])
		for _, x := range []compute.Datum{a, b, mask, af, bf, ad, omb, p} {
			x.Release()
		}
	}
	return sum
}

// computeSumDec is computeSum's decimal variant: a is cast to
// decimal128(20,0), 1 is a decimal(1,0) scalar, compute promotes the
// operands as Spark does (1 - bd: decimal(16,2); the product
// decimal(37,2)); the sum is a Go loop of 128-bit adds.
func computeSumDec(tb testing.TB, d *vsData) decimal128.Num {
	lit := compute.NewDatum(scalar.NewInt64Scalar(vsLiteral))
	one := compute.NewDatum(scalar.NewDecimal128Scalar(decimal128.FromI64(1), &arrow.Decimal128Type{Precision: 1, Scale: 0}))
	castOpts := compute.SafeCastOptions(&arrow.Decimal128Type{Precision: 20, Scale: 0})
	var sum decimal128.Num
	for _, r := range d.recs {
		a, b := compute.NewDatum(r.Column(0)), compute.NewDatum(r.Column(2))
		mask := call(tb, "greater", nil, a, lit)
		af := call(tb, "filter", compute.DefaultFilterOptions(), a, mask)
		bf := call(tb, "filter", compute.DefaultFilterOptions(), b, mask)
		ad := call(tb, "cast", castOpts, af)
		omb := call(tb, "subtract", nil, one, bf)
		p := call(tb, "multiply", nil, ad, omb)
		pv := p.(*compute.ArrayDatum).Value
		if dt := pv.DataType().(*arrow.Decimal128Type); dt.Scale != 2 {
			tb.Fatalf("compute a*(1-bd): type %s, want scale 2", dt)
		}
		for _, x := range arrow.Decimal128Traits.CastFromBytes(pv.Buffers()[1].Bytes())[pv.Offset() : pv.Offset()+pv.Len()] {
			sum = sum.Add(x)
		}
		for _, x := range []compute.Datum{a, b, mask, af, bf, ad, omb, p} {
			x.Release()
		}
	}
	return sum
}

// sum4 is a plain Go loop with four accumulators (one would be bound by
// the add latency, not by memory).
func sum4[T int64 | float64](v []T) T {
	var s0, s1, s2, s3 T
	for len(v) >= 4 {
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		v = v[4:]
	}
	for _, x := range v {
		s0 += x
	}
	return (s0 + s1) + (s2 + s3)
}

// vsSink keeps the Go read loop's result alive.
var vsSink int64

// checkVsAgree fails unless hados and compute give the same count (exact)
// and sum (within 1e-9 relative).
func checkVsAgree(tb testing.TB, t *operators.Target, d *vsData) (int64, float64) {
	tb.Helper()
	hc, cc, pc := hadosCount(tb, t, d), computeCount(tb, d, false), computeCount(tb, d, true)
	if hc != cc || hc != pc {
		tb.Fatalf("count(a > %d): hados %d, compute filter %d, compute popcount %d", vsLiteral, hc, cc, pc)
	}
	if hc == 0 || hc == int64(d.rows) {
		tb.Fatalf("count(a > %d) = %d of %d rows: the filter does not filter", vsLiteral, hc, d.rows)
	}
	hs, cs := hadosSum(tb, t, d), computeSum(tb, d)
	if rel := math.Abs(hs-cs) / math.Abs(cs); !(rel <= 1e-9) {
		tb.Fatalf("sum(a*(1-b)) where a > %d: hados %.17g, compute %.17g (relative difference %.3g)", vsLiteral, hs, cs, rel)
	}
	if hd, cd := hadosSumDec(tb, t, d), computeSumDec(tb, d); hd != cd || cd.Sign() <= 0 {
		tb.Fatalf("sum(a*(1-bd)) where a > %d: hados %s, compute %s (decimal(38,2) unscaled)", vsLiteral, hd.BigInt(), cd.BigInt())
	}
	return hc, hs
}

func vsTarget(tb testing.TB, rows, cores int) *operators.Target {
	mib := rows*32>>20 + 256
	return newTarget(tb, fmt.Sprintf("soft:memory=%dMiB,cores=%d,mode=host-visible", mib, cores))
}

// TestVsArrowComputeAgree checks, on a small table, that the benchmark's
// hados and compute sides compute the same thing.
func TestVsArrowComputeAgree(t *testing.T) {
	for _, cores := range []int{1, 2} {
		t.Run(fmt.Sprintf("cores%d", cores), func(t *testing.T) {
			tgt := vsTarget(t, 1<<18, cores)
			d := genVsData(t, tgt, 1<<18+123, 1<<16, nil)
			checkVsAgree(t, tgt, d)
		})
	}
}

// BenchmarkVsArrowCompute measures, in one run over the same arrays in
// host-visible device memory (HADOS_BENCH_ROWS rows, default 64Mi, in
// batches of HADOS_BENCH_BATCH rows, default 1Mi):
//
//   - goread: a Go loop summing column a, the single-thread read bandwidth;
//   - filter: count(*) where a > lit, hados (1 and 2 engine cores) and
//     compute (greater+filter, and greater+popcount); GB/s = 8·rows/time;
//   - fps: sum(a*(1-b)) where a > lit, hados and compute; GB/s =
//     16·rows/time (both columns are read);
//   - fps-dec: the same with b a decimal(15,2) (Decimal128, 16 bytes), the
//     sum exact in decimal(38,2); GB/s = 24·rows/time.
//
// The table is generated once per target (the cores=2 copy is a byte copy
// of the cores=1 one), about 32·rows bytes each; compute and goread read
// the cores=1 copy. Before timing, every result is checked: hados and
// compute agree on the count exactly, on the double sum within 1e-9
// relative, on the decimal sum exactly, and hados cores=1 and cores=2 agree.
// -short skips the benchmark.
//
// Every case reports GB/s and median-ms; hados filter reports its share of
// goread, compute cases their time over hados cores=1 and cores=2. Times are
// medians over b.N runs.
func BenchmarkVsArrowCompute(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: the comparison reads gigabytes")
	}
	rows, batch := envInt(b, "HADOS_BENCH_ROWS", 64<<20), envInt(b, "HADOS_BENCH_BATCH", 1<<20)
	t1, t2 := vsTarget(b, rows, 1), vsTarget(b, rows, 2)
	d1 := genVsData(b, t1, rows, batch, nil)
	d2 := genVsData(b, t2, rows, batch, d1)
	count, sum := checkVsAgree(b, t1, d1)
	if c, s := hadosCount(b, t2, d2), hadosSum(b, t2, d2); c != count || s != sum && math.Abs(s-sum)/math.Abs(sum) > 1e-9 {
		b.Fatalf("hados cores=2 disagrees with cores=1: count %d vs %d, sum %.17g vs %.17g", c, count, s, sum)
	}
	if s1, s2 := hadosSumDec(b, t1, d1), hadosSumDec(b, t2, d2); s1 != s2 {
		b.Fatalf("hados cores=2 disagrees with cores=1: decimal sum %s vs %s", s2.BigInt(), s1.BigInt())
	}

	med, low := map[string]time.Duration{}, map[string]time.Duration{}
	gbs := func(bytes int, d time.Duration) float64 { return float64(bytes) / d.Seconds() / 1e9 }
	run := func(name string, bytes int, fn func(b *testing.B), report func(b *testing.B, d time.Duration)) {
		b.Run(name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				start := time.Now()
				fn(b)
				times = append(times, time.Since(start))
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			d := times[len(times)/2]
			med[name], low[name] = d, times[0]
			b.ReportMetric(gbs(bytes, d), "GB/s")
			b.ReportMetric(float64(d.Microseconds())/1e3, "median-ms")
			b.ReportMetric(float64(times[0].Microseconds())/1e3, "min-ms")
			if report != nil {
				report(b, d)
			}
		})
	}
	ratio := func(base string) func(b *testing.B, d time.Duration) {
		return func(b *testing.B, d time.Duration) {
			for _, c := range []string{"cores1", "cores2"} {
				if h := med[base+"/"+c]; h > 0 {
					b.ReportMetric(d.Seconds()/h.Seconds(), "x-vs-hados-"+c)
				}
			}
		}
	}

	run("goread", 8*rows, func(*testing.B) {
		var s int64
		for _, a := range d1.a {
			s += sum4(a)
		}
		vsSink = s
	}, nil)
	for _, c := range []struct {
		name string
		t    *operators.Target
		d    *vsData
	}{{"cores1", t1, d1}, {"cores2", t2, d2}} {
		run("hados-filter/"+c.name, 8*rows, func(b *testing.B) { hadosCount(b, c.t, c.d) }, func(b *testing.B, d time.Duration) {
			b.ReportMetric(100*med["goread"].Seconds()/d.Seconds(), "%-of-goread")
		})
	}
	run("compute-filter", 8*rows, func(b *testing.B) { computeCount(b, d1, false) }, ratio("hados-filter"))
	run("compute-popcount", 8*rows, func(b *testing.B) { computeCount(b, d1, true) }, ratio("hados-filter"))
	for _, c := range []struct {
		name string
		t    *operators.Target
		d    *vsData
	}{{"cores1", t1, d1}, {"cores2", t2, d2}} {
		run("hados-fps/"+c.name, 16*rows, func(b *testing.B) { hadosSum(b, c.t, c.d) }, nil)
	}
	run("compute-fps", 16*rows, func(b *testing.B) { computeSum(b, d1) }, ratio("hados-fps"))
	for _, c := range []struct {
		name string
		t    *operators.Target
		d    *vsData
	}{{"cores1", t1, d1}, {"cores2", t2, d2}} {
		run("hados-fps-dec/"+c.name, 24*rows, func(b *testing.B) { hadosSumDec(b, c.t, c.d) }, nil)
	}
	run("compute-fps-dec", 24*rows, func(b *testing.B) { computeSumDec(b, d1) }, ratio("hados-fps-dec"))

	var tab strings.Builder
	fmt.Fprintf(&tab, "rows=%d batch=%d count=%d sum=%.6g (hados and compute agree)\n", rows, batch, count, sum)
	fmt.Fprintf(&tab, "%-24s %10s %8s %8s %s\n", "case", "median-ms", "GB/s", "min-ms", "note (medians; [mins] on a shared machine)")
	note := func(name string) string {
		switch name {
		case "hados-filter/cores1", "hados-filter/cores2":
			return fmt.Sprintf("%.0f%% [%.0f%%] of goread (target >= 70%% at cores1)", 100*med["goread"].Seconds()/med[name].Seconds(),
				100*low["goread"].Seconds()/low[name].Seconds())
		case "compute-filter", "compute-popcount":
			return fmt.Sprintf("%.2fx [%.2fx] hados cores1, %.2fx [%.2fx] cores2 (target >= 5x)",
				med[name].Seconds()/med["hados-filter/cores1"].Seconds(), low[name].Seconds()/low["hados-filter/cores1"].Seconds(),
				med[name].Seconds()/med["hados-filter/cores2"].Seconds(), low[name].Seconds()/low["hados-filter/cores2"].Seconds())
		case "compute-fps", "compute-fps-dec":
			base := strings.TrimPrefix(name, "compute")
			return fmt.Sprintf("%.2fx [%.2fx] hados cores1, %.2fx [%.2fx] cores2 (target >= 5x)",
				med[name].Seconds()/med["hados"+base+"/cores1"].Seconds(), low[name].Seconds()/low["hados"+base+"/cores1"].Seconds(),
				med[name].Seconds()/med["hados"+base+"/cores2"].Seconds(), low[name].Seconds()/low["hados"+base+"/cores2"].Seconds())
		}
		return ""
	}
	for _, name := range []string{"goread", "hados-filter/cores1", "hados-filter/cores2", "compute-filter", "compute-popcount",
		"hados-fps/cores1", "hados-fps/cores2", "compute-fps", "hados-fps-dec/cores1", "hados-fps-dec/cores2", "compute-fps-dec"} {
		d, ok := med[name]
		if !ok {
			continue // filtered out by -bench
		}
		bytes := 8 * rows
		switch {
		case strings.Contains(name, "fps-dec"):
			bytes = 24 * rows
		case strings.Contains(name, "fps"):
			bytes = 16 * rows
		}
		fmt.Fprintf(&tab, "%-24s %10.1f %8.2f %8.1f %s\n", name, float64(d.Microseconds())/1e3, gbs(bytes, d),
			float64(low[name].Microseconds())/1e3, note(name))
	}
	// A parent benchmark's log shows only under -v: print the table either way.
	if testing.Verbose() {
		b.Log("\n" + tab.String())
	} else {
		fmt.Print(tab.String())
	}
}

// envInt reads a positive integer from the environment, or def.
func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive number of rows", name, v)
	}
	return n
}
