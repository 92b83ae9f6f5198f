package tpchgen

import (
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// testSF is the scale factor of the tests: 60k lineitem rows.
const testSF = 0.01

// table is a generated table materialised as Go slices, one per column:
// []int64 (bigint, and decimals as unscaled integers), []int32 (int,
// date) or []string.
type table struct {
	name string
	cols map[string]any
	rows int
}

func (t *table) i64(c string) []int64  { return t.cols[c].([]int64) }
func (t *table) i32(c string) []int32  { return t.cols[c].([]int32) }
func (t *table) str(c string) []string { return t.cols[c].([]string) }

// appendColumn appends the values of a to dst (nil to start a column).
func appendColumn(dst any, a arrow.Array) any {
	switch a := a.(type) {
	case *array.Int64:
		d, _ := dst.([]int64)
		return append(d, a.Int64Values()...)
	case *array.Int32:
		d, _ := dst.([]int32)
		return append(d, a.Int32Values()...)
	case *array.Date32:
		d, _ := dst.([]int32)
		for _, v := range a.Date32Values() {
			d = append(d, int32(v))
		}
		return d
	case *array.Decimal128:
		d, _ := dst.([]int64)
		for i := 0; i < a.Len(); i++ {
			d = append(d, int64(a.Value(i).LowBits()))
		}
		return d
	case *array.String:
		d, _ := dst.([]string)
		for i := 0; i < a.Len(); i++ {
			d = append(d, a.Value(i))
		}
		return d
	}
	panic(fmt.Sprintf("unexpected array type %T", a))
}

// collect drains a record reader into a table and releases it.
func collect(t testing.TB, name string, rr array.RecordReader) *table {
	t.Helper()
	defer rr.Release()
	tb := &table{name: name, cols: map[string]any{}}
	for rr.Next() {
		rec := rr.RecordBatch()
		for i, f := range rec.Schema().Fields() {
			if f.Nullable {
				t.Fatalf("%s.%s is nullable", name, f.Name)
			}
			if rec.Column(i).NullN() != 0 {
				t.Fatalf("%s.%s has nulls", name, f.Name)
			}
			tb.cols[f.Name] = appendColumn(tb.cols[f.Name], rec.Column(i))
		}
		tb.rows += int(rec.NumRows())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return tb
}

// generateTable streams one table through NewTableReader.
func generateTable(t testing.TB, name string, opt Options) *table {
	t.Helper()
	rr, err := NewTableReader(name, opt)
	if err != nil {
		t.Fatal(err)
	}
	return collect(t, name, rr)
}

var (
	datasetOnce sync.Once
	dataset     map[string]*table
)

// testData returns all eight tables at testSF, seed 7, standard schema,
// generated once per test binary (with a leak-checking allocator).
func testData(t testing.TB) map[string]*table {
	t.Helper()
	datasetOnce.Do(func() {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		dataset = map[string]*table{}
		for _, n := range TableNames() {
			dataset[n] = generateTable(t, n, Options{SF: testSF, Seed: 7, Mem: mem})
		}
		if mem.CurrentAlloc() != 0 {
			t.Fatalf("reader leaked %d bytes", mem.CurrentAlloc())
		}
	})
	if dataset == nil {
		t.Fatal("test data failed to generate")
	}
	return dataset
}
