// Package joinbench compares hados's device hash join with DuckDB's JOIN in
// the same run on the same data: the lineitem ⋈ orders shape, 6M
// probe rows × 1.5M unique build rows on a bigint order key.
//
// The data are generated identically on both sides: orders(o_orderkey =
// i, o_orderdate = i % 2500) for i < 1.5M and lineitem(l_orderkey = i *
// 7919 % 1.5M, l_quantity = i % 50) for i < 6M, so every lineitem row
// matches exactly one order. hados materialises the joined rows
// (l_orderkey, l_quantity, o_orderkey, o_orderdate) in device memory;
// DuckDB runs the join under a sum over the joined columns (so the timing
// is not dominated by shipping 6M rows through database/sql), which lets
// it skip materialising the join's output: the comparison favours DuckDB.
//
// Run with: HADOS_JOINBENCH=1 go test -run XXX -bench . ./joinbench/
package joinbench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/bench/internal/measure"
	"github.com/hados-io/hados/bench/internal/vsduckdb"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

const (
	orders   = 1_500_000
	lineitem = 6_000_000
	batch    = 1 << 18
)

// table builds rows rows of (key bigint, val int) in batches in mem.
func table(mem memory.Allocator, names [2]string, rows int, key func(i int) int64, val func(i int) int32) (*arrow.Schema, []arrow.Record) {
	s := arrow.NewSchema([]arrow.Field{{Name: names[0], Type: arrow.PrimitiveTypes.Int64}, {Name: names[1], Type: arrow.PrimitiveTypes.Int32}}, nil)
	var recs []arrow.Record
	for lo := 0; lo < rows; lo += batch {
		n := min(batch, rows-lo)
		kb, vb := array.NewInt64Builder(mem), array.NewInt32Builder(mem)
		kb.Reserve(n)
		vb.Reserve(n)
		for i := lo; i < lo+n; i++ {
			kb.UnsafeAppend(key(i))
			vb.UnsafeAppend(val(i))
		}
		k, v := kb.NewArray(), vb.NewArray()
		recs = append(recs, array.NewRecord(s, []arrow.Array{k, v}, int64(n)))
		k.Release()
		v.Release()
		kb.Release()
		vb.Release()
	}
	return s, recs
}

func release(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}

func BenchmarkJoinVsDuckDB(b *testing.B) {
	if os.Getenv("HADOS_JOINBENCH") == "" {
		b.Skip("set HADOS_JOINBENCH=1 to run the 6M x 1.5M join against DuckDB")
	}
	for _, threads := range []int{1, 2} {
		p, err := vsduckdb.OpenPair(threads, "4GiB")
		if err != nil {
			b.Fatal(err)
		}
		db, tgt := p.DB, p.Target
		// The shape has dense order keys 0..1.5M (as TPC-H's
		// dimension keys are), which the device joins through a dense
		// table; "sparse" multiplies every key by a large odd number, so
		// the join goes through the hashed slot table.
		for _, shape := range []struct {
			name   string
			spread int64
		}{{"", 1}, {"sparse-", 1_000_003}} {
			runShape(b, db, tgt, threads, shape.name, shape.spread)
		}
		p.Close()
	}
}

// runShape runs one shape of the join at one thread count: hados 5 times,
// then DuckDB 5 times, and reports their medians.
func runShape(b *testing.B, db *duckdbh.DB, tgt *operators.Target, threads int, name string, spread int64) {
	ctx := context.Background()
	sfx := strings.TrimSuffix(name, "-")
	for _, stmt := range []string{
		fmt.Sprintf("CREATE TABLE orders%s AS SELECT i * %d AS o_orderkey, CAST(i %% 2500 AS INTEGER) AS o_orderdate FROM range(%d) t(i)", sfx, spread, orders),
		fmt.Sprintf("CREATE TABLE lineitem%s AS SELECT ((i * 7919) %% %d) * %d AS l_orderkey, CAST(i %% 50 AS INTEGER) AS l_quantity FROM range(%d) t(i)", sfx, orders, spread, lineitem),
	} {
		if err := db.Exec(stmt); err != nil {
			b.Fatal(err)
		}
	}
	b.Run(fmt.Sprintf("%sthreads%d", name, threads), func(b *testing.B) {
		mem := tgt.OutputAllocator()
		os_, orecs := table(mem, [2]string{"o_orderkey", "o_orderdate"}, orders, func(i int) int64 { return int64(i) * spread }, func(i int) int32 { return int32(i % 2500) })
		ls, lrecs := table(mem, [2]string{"l_orderkey", "l_quantity"}, lineitem, func(i int) int64 { return int64(i) * 7919 % orders * spread }, func(i int) int32 { return int32(i % 50) })
		defer release(orecs)
		defer release(lrecs)
		long := types.DataType{Kind: types.Long}
		var hd, hcpu []time.Duration
		for range 5 {
			start, cpu := time.Now(), measure.ProcessCPU()
			j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(ls, lrecs...), operators.NewRecordSource(os_, orecs...),
				operators.JoinSpec{Type: operators.JoinInner, Build: operators.BuildRight,
					LeftKeys: []*expr.Expr{expr.Column(0, "l_orderkey", long)}, RightKeys: []*expr.Expr{expr.Column(0, "o_orderkey", long)}})
			if err != nil {
				b.Fatal(err)
			}
			out, err := operators.Collect(ctx, j)
			if err != nil {
				b.Fatal(err)
			}
			hd = append(hd, time.Since(start))
			hcpu = append(hcpu, measure.ProcessCPU()-cpu)
			n := int64(0)
			for _, r := range out {
				n += r.NumRows()
			}
			release(out)
			if n != lineitem {
				b.Fatalf("hados joined %d rows, want %d", n, lineitem)
			}
		}
		m, err := db.Measure(ctx, fmt.Sprintf("SELECT count(*), sum(l_orderkey), sum(l_quantity), sum(o_orderkey), sum(o_orderdate) FROM lineitem%s JOIN orders%s ON l_orderkey = o_orderkey", sfx, sfx), 5)
		if err != nil {
			b.Fatal(err)
		}
		h := measure.Median(hd)
		ratio := vsduckdb.ReportWall(b, "", h, m.Median)
		b.ReportMetric(float64(measure.Median(hcpu).Microseconds())/1000, "hados-cpu-ms")
		b.Logf("join 6M x 1.5M %sthreads=%d: hados %v (CPU %v), DuckDB %v (CPU %v), ratio %.2f", name, threads, h, measure.Median(hcpu), m.Median, m.MedianCPU, ratio)
	})
}
