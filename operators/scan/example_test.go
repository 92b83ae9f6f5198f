package scan_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowmem "github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/scan"
	"github.com/hados-io/hados/operators/types"
)

func Example() {
	dir, _ := os.MkdirTemp("", "scan-example")
	defer os.RemoveAll(dir)

	// A table with one partition, written with row groups of 2 rows.
	b := array.NewInt64Builder(arrowmem.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3, 4, 5, 6}, nil)
	col := b.NewArray()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 6)
	path := filepath.Join(dir, "day=2024-01-02", "part-0.parquet")
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, _ := os.Create(path)
	w, _ := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(2)), pqarrow.DefaultWriterProps())
	w.Write(rec)
	w.Close()
	f.Close()

	pool := memory.NewHostPool(memory.PoolOptions{}, false)
	defer pool.Close()
	alloc := memory.NewHostAllocator(pool, nil)

	filter := scan.GreaterThan{Attr: "x", Value: int64(4)}
	s, err := scan.Open(context.Background(), scan.Options{
		Dir: dir,
		Columns: []scan.Column{
			{Name: "x", Type: types.LongType},
			{Name: "day", Type: types.DateType, Partition: true},
		},
		Filters: []scan.Filter{filter},
		Alloc:   alloc,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	for {
		r, err := s.Next()
		if err != nil || r == nil {
			break
		}
		keep, _ := scan.Eval(filter, r) // the exact filter runs after the scan
		for i, k := range keep {
			if k {
				fmt.Println(r.Column(0).ValueStr(i), r.Column(1).ValueStr(i))
			}
		}
		r.Release()
	}
	st := s.Stats()
	fmt.Println(filter, "row groups:", st.RowGroups, "pruned:", st.RowGroupsPrunedStats)
	// Output:
	// 5 2024-01-02
	// 6 2024-01-02
	// GreaterThan(x,4) row groups: 3 pruned: 2
}
