package write_test

import (
	"context"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/write"
)

// Example writes a small table partitioned by country.
func Example() {
	dir, _ := os.MkdirTemp("", "hados-write-example")
	defer os.RemoveAll(dir)

	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "country", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"FR", "FR", ""}, []bool{true, true, false})
	rec := b.NewRecordBatch()
	defer rec.Release()

	w, err := write.NewWriter(context.Background(), write.Options{
		Dir: dir, Schema: schema, PartitionBy: []string{"country"}, TaskID: "example",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Write(rec); err != nil {
		fmt.Println(err) // the Writer has already cleaned up
		return
	}
	res, err := w.Commit()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Files {
		fmt.Println(f.RelPath, f.Rows)
	}
	// Output:
	// country=FR/part-00000-example.c000.snappy.parquet 2
	// country=__HIVE_DEFAULT_PARTITION__/part-00000-example.c000.snappy.parquet 1
}
