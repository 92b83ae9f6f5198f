package exchange

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// expectedPartitions gathers, the slow way (one-row slices concatenated by
// arrow), the rows of rec with ids == p for every p; nil where none.
func expectedPartitions(t testing.TB, rec arrow.RecordBatch, ids []int32, n int, mem memory.Allocator) []arrow.RecordBatch {
	t.Helper()
	buckets := make([][]arrow.RecordBatch, n)
	for i, id := range ids {
		buckets[id] = append(buckets[id], rec.NewSlice(int64(i), int64(i+1)))
	}
	out := make([]arrow.RecordBatch, n)
	for p, slices := range buckets {
		if len(slices) == 0 {
			continue
		}
		var err error
		if out[p], err = Concat(slices, mem); err != nil {
			t.Fatal(err)
		}
		for _, s := range slices {
			s.Release()
		}
	}
	return out
}

func TestPartition(t *testing.T) {
	mem := checkedMem(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 3, 7, 200} {
		for _, rows := range []int{0, 1, 17, 1000} {
			rec := randomRecord(t, rng, mem, rows, 0.15)
			h, _ := NewHash([]int{3, 12}, n)
			id := ids(t, h, rec)
			parts, err := Partition(rec, id, n, mem)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			wants := expectedPartitions(t, rec, id, n, mem)
			for p, part := range parts {
				want := wants[p]
				switch {
				case want == nil && part != nil:
					t.Errorf("n=%d rows=%d: partition %d has %d rows, want none", n, rows, p, part.NumRows())
				case want != nil && part == nil:
					t.Errorf("n=%d rows=%d: partition %d missing", n, rows, p)
				case want != nil:
					if err := sameRows(want, part); err != nil {
						t.Errorf("n=%d rows=%d partition %d: %v", n, rows, p, err)
					}
					total += int(part.NumRows())
				}
				if want != nil {
					want.Release()
				}
				if part != nil {
					part.Release()
				}
			}
			if total != rows {
				t.Errorf("n=%d: %d rows out of %d", n, total, rows)
			}
			rec.Release()
		}
	}
}

func TestPartitionErrors(t *testing.T) {
	mem := checkedMem(t)
	rec := int32Record(t, mem, []int32{1, 2}, nil)
	defer rec.Release()
	if _, err := Partition(rec, []int32{0, 5}, 3, mem); err == nil {
		t.Error("id out of range: no error")
	}
	if _, err := Partition(rec, []int32{0}, 3, mem); err == nil {
		t.Error("short ids: no error")
	}
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	lb.Append(true)
	list := lb.NewArray()
	lb.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: list.DataType()}}, nil)
	lrec := array.NewRecordBatch(schema, []arrow.Array{list}, 1)
	list.Release()
	defer lrec.Release()
	if _, err := Partition(lrec, []int32{0}, 1, mem); err == nil {
		t.Error("list column: no error")
	}
}
