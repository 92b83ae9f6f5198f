package operators_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// sortBenchInput is rows random (bigint k, bigint v) rows, with a string
// column s of 8-24 random letters when withStr, in batches of 64Ki rows
// allocated from mem.
func sortBenchInput(rows int, withStr bool, mem memory.Allocator) (*arrow.Schema, []arrow.Record) {
	fields := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}
	if withStr {
		fields = append(fields, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String})
	}
	schema := arrow.NewSchema(fields, nil)
	rng := rand.New(rand.NewPCG(42, 42))
	var recs []arrow.Record
	buf := make([]byte, 24)
	for done := 0; done < rows; {
		n := min(rows-done, 1<<16)
		b := array.NewRecordBuilder(mem, schema)
		for i := 0; i < n; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(rng.Uint64()))
			b.Field(1).(*array.Int64Builder).Append(int64(done + i))
			if withStr {
				l := 8 + rng.IntN(17)
				for j := range buf[:l] {
					buf[j] = byte('a' + rng.IntN(26))
				}
				b.Field(2).(*array.StringBuilder).BinaryBuilder.Append(buf[:l])
			}
		}
		recs = append(recs, b.NewRecord())
		b.Release()
		done += n
	}
	return schema, recs
}

// BenchmarkSort1M sorts 1Mi rows on two engine cores: by a random bigint,
// and by (string, bigint).
func BenchmarkSort1M(b *testing.B) {
	for _, withStr := range []bool{false, true} {
		b.Run(fmt.Sprintf("strings=%v", withStr), func(b *testing.B) {
			tgt := newTarget(b, "soft:memory=2GiB,cores=2,mode=host-visible")
			schema, recs := sortBenchInput(1<<20, withStr, tgt.OutputAllocator())
			defer releaseAll(recs)
			keys := []operators.SortKey{{Expr: expr.Column(0, "k", types.DataType{Kind: types.Long})}}
			if withStr {
				keys = []operators.SortKey{{Expr: expr.Column(2, "s", types.DataType{Kind: types.String})}, keys[0]}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				releaseAll(runSort(b, tgt, schema, keys, recs...))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1<<20), "ns/row")
		})
	}
}
