package tpchgen_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hados-io/hados/internal/tpchgen"
)

// Stream a table as Arrow record batches without writing files.
func ExampleNewTableReader() {
	rr, err := tpchgen.NewTableReader("region", tpchgen.Options{SF: 1})
	if err != nil {
		panic(err)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		fmt.Println(rec.NumRows(), "rows:", rec.Column(1))
	}
	// Output:
	// 5 rows: ["AFRICA" "AMERICA" "ASIA" "EUROPE" "MIDDLE EAST"]
}

// Write a small scale factor to Parquet and list what was written.
func ExampleGenerate() {
	dir, err := os.MkdirTemp("", "tpch")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	sum, err := tpchgen.Generate(context.Background(), tpchgen.Options{
		SF: 0.001, Out: dir, Schema: tpchgen.SparkTest,
		Tables: []string{"supplier", "nation", "region"},
	})
	if err != nil {
		panic(err)
	}
	for _, t := range sum.Tables {
		fmt.Println(t.Name, t.Rows, len(t.Files))
	}
	// Output:
	// supplier 10 1
	// nation 25 1
	// region 5 1
}
