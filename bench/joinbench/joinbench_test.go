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
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

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
	ctx := context.Background()
	for _, threads := range []int{1, 2} {
		p, err := vsduckdb.OpenPair(threads, "4GiB")
		if err != nil {
			b.Fatal(err)
		}
		db, tgt := p.DB, p.Target
		for _, stmt := range []string{
			fmt.Sprintf("CREATE TABLE orders AS SELECT i AS o_orderkey, CAST(i %% 2500 AS INTEGER) AS o_orderdate FROM range(%d) t(i)", orders),
			fmt.Sprintf("CREATE TABLE lineitem AS SELECT (i * 7919) %% %d AS l_orderkey, CAST(i %% 50 AS INTEGER) AS l_quantity FROM range(%d) t(i)", orders, lineitem),
		} {
			if err := db.Exec(stmt); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("threads%d", threads), func(b *testing.B) {
			mem := tgt.OutputAllocator()
			os_, orecs := table(mem, [2]string{"o_orderkey", "o_orderdate"}, orders, func(i int) int64 { return int64(i) }, func(i int) int32 { return int32(i % 2500) })
			ls, lrecs := table(mem, [2]string{"l_orderkey", "l_quantity"}, lineitem, func(i int) int64 { return int64(i) * 7919 % orders }, func(i int) int32 { return int32(i % 50) })
			defer release(orecs)
			defer release(lrecs)
			long := types.DataType{Kind: types.Long}
			var hd []time.Duration
			for range 5 {
				start := time.Now()
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
				n := int64(0)
				for _, r := range out {
					n += r.NumRows()
				}
				release(out)
				if n != lineitem {
					b.Fatalf("hados joined %d rows, want %d", n, lineitem)
				}
			}
			m, err := db.Measure(ctx, "SELECT count(*), sum(l_orderkey), sum(l_quantity), sum(o_orderkey), sum(o_orderdate) FROM lineitem JOIN orders ON l_orderkey = o_orderkey", 5)
			if err != nil {
				b.Fatal(err)
			}
			h := measure.Median(hd)
			ratio := vsduckdb.ReportWall(b, "", h, m.Median)
			b.Logf("join 6M x 1.5M threads=%d: hados %v, DuckDB %v (CPU %v), ratio %.2f", threads, h, m.Median, m.MedianCPU, ratio)
		})
		p.Close()
	}
}
