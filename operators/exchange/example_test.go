package exchange_test

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/exchange"
)

// Example hash-partitions a record on its key like Spark's
// hashpartitioning(k, 4), writes a map output and reads partition 2 back.
func Example() {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{0, 1, 2, 3, 4, 5, 6, 7}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()

	fmt.Println("hash(1) =", exchange.HashInt(1, exchange.SparkSeed))

	dir, _ := os.MkdirTemp("", "exchange-example")
	defer os.RemoveAll(dir)
	part, _ := exchange.NewHash([]int{0}, 4)
	w, _ := exchange.NewShuffleWriter(part, exchange.WriterOptions{Dir: dir, Codec: exchange.LZ4, Allocator: mem})
	if err := w.Write(rec); err != nil {
		fmt.Println(err)
		return
	}
	out, err := w.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _ := exchange.NewShuffleReader([]exchange.MapOutput{out}, 2, schema, mem)
	defer r.Close()
	for {
		got, err := r.Next()
		if err != nil || got == nil {
			break
		}
		fmt.Println("partition 2:", got.Column(0))
		got.Release()
	}
	// Output:
	// hash(1) = -559580957
	// partition 2: [2 4 5]
}
