package write

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestSplit(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	f := b.Field(0).(*array.Float64Builder)
	s := b.Field(1).(*array.StringBuilder)
	f.AppendValues([]float64{1, 1, math.NaN(), math.NaN(), 2, 1, 0, math.Copysign(0, -1)}, nil)
	s.AppendValues([]string{"a", "a", "x", "x", "", "a", "", ""}, []bool{true, true, true, true, true, true, false, false})
	rec := b.NewRecordBatch()
	defer rec.Release()

	sp, err := newSplitter(&config{Options: Options{Schema: sch}, partIdx: []int{0, 1}, loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	parts := sp.split(rec)
	want := []struct {
		path string
		runs [][2]int64
	}{
		{"f=1.0/s=a", [][2]int64{{0, 2}, {5, 6}}},
		{"f=NaN/s=x", [][2]int64{{2, 4}}},
		{"f=2.0/s=__HIVE_DEFAULT_PARTITION__", [][2]int64{{4, 5}}}, // "" and null share the directory
		{"f=0.0/s=__HIVE_DEFAULT_PARTITION__", [][2]int64{{6, 7}}},
		{"f=-0.0/s=__HIVE_DEFAULT_PARTITION__", [][2]int64{{7, 8}}}, // 0.0 and -0.0 do not
	}
	if len(parts) != len(want) {
		t.Fatalf("%d partitions, want %d", len(parts), len(want))
	}
	for i, w := range want {
		if parts[i].path != w.path || len(parts[i].runs) != len(w.runs) {
			t.Errorf("partition %d: %s %v, want %s %v", i, parts[i].path, parts[i].runs, w.path, w.runs)
			continue
		}
		for k := range w.runs {
			if parts[i].runs[k] != w.runs[k] {
				t.Errorf("partition %d: runs %v, want %v", i, parts[i].runs, w.runs)
			}
		}
	}

	// gather through take, and through the concatenation fallback
	got, err := parts[0].take(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if got.NumRows() != 3 || got.Column(1).ValueStr(2) != "a" {
		t.Errorf("gathered %v", got)
	}
	db := array.NewDecimal64Builder(memory.DefaultAllocator, &arrow.Decimal64Type{Precision: 10, Scale: 1})
	defer db.Release()
	db.AppendValues([]decimal.Decimal64{10, 11, 12, 13, 14, 15, 16}, nil)
	dec := db.NewArray()
	defer dec.Release()
	cat, err := parts[0].concatRuns(dec, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Release()
	if cat.Len() != 3 || cat.ValueStr(0) != "1" || cat.ValueStr(2) != "1.5" {
		t.Errorf("concatRuns: %v", cat)
	}
}
