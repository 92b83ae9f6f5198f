package sortbench

import (
	"math/rand/v2"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Generate returns rows rows of (k bigint) or, withStr, (s string of 8-24
// random lowercase letters, k bigint), in batches of 64Ki rows from mem,
// always the same for the same arguments. The caller releases them.
func Generate(rows int, withStr bool, mem memory.Allocator) (*arrow.Schema, []arrow.Record) {
	var fields []arrow.Field
	if withStr {
		fields = append(fields, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String})
	}
	fields = append(fields, arrow.Field{Name: "k", Type: arrow.PrimitiveTypes.Int64})
	schema := arrow.NewSchema(fields, nil)
	rng := rand.New(rand.NewPCG(16, 16))
	var recs []arrow.Record
	buf := make([]byte, 24)
	for done := 0; done < rows; {
		n := min(rows-done, 1<<16)
		b := array.NewRecordBuilder(mem, schema)
		kb := b.Field(len(fields) - 1).(*array.Int64Builder)
		kb.Reserve(n)
		for i := 0; i < n; i++ {
			if withStr {
				l := 8 + rng.IntN(17)
				for j := range buf[:l] {
					buf[j] = byte('a' + rng.IntN(26))
				}
				b.Field(0).(*array.StringBuilder).BinaryBuilder.Append(buf[:l])
				kb.Append(int64(rng.IntN(1000)))
			} else {
				kb.Append(int64(rng.Uint64()))
			}
		}
		recs = append(recs, b.NewRecord())
		b.Release()
		done += n
	}
	return schema, recs
}

// WriteParquet writes recs to a Parquet file at path.
func WriteParquet(path string, schema *arrow.Schema, recs []arrow.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1<<20)),
		pqarrow.DefaultWriterProps())
	if err != nil {
		f.Close()
		return err
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close() // closes f
}
