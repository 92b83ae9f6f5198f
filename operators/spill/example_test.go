package spill_test

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/operators/spill"
)

// An operator out of memory writes its state to a run, frees it, and reads
// it back later; the task's manager removes everything at the end.
func Example() {
	dir, _ := os.MkdirTemp("", "spill-example")
	defer os.RemoveAll(dir)
	m, err := spill.NewManager(dir, exchange.LZ4)
	if err != nil {
		panic(err)
	}
	defer m.Close() // removes every run

	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{3, 1, 2}, nil)
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	col.Release()
	b.Release()

	w, _ := m.Create("Sort", schema)
	if err := w.Write(rec); err != nil { // copies: rec stays ours
		panic(err)
	}
	rec.Release()
	run, _ := w.Finish()
	fmt.Println("rows spilled:", run.Rows())

	rd, _ := run.Open(memory.DefaultAllocator)
	defer rd.Close()
	for {
		r, err := rd.Next()
		if err != nil {
			panic(err)
		}
		if r == nil {
			break
		}
		fmt.Println(r.Column(0))
		r.Release()
	}
	fmt.Println("runs:", m.Stats().Runs)
	// Output:
	// rows spilled: 3
	// [3 1 2]
	// runs: 1
}
