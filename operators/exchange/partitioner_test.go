package exchange

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func int32Record(t *testing.T, mem memory.Allocator, vals []int32, valid []bool) arrow.RecordBatch {
	t.Helper()
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(len(vals)))
}

func ids(t *testing.T, p Partitioner, rec arrow.RecordBatch) []int32 {
	t.Helper()
	out := make([]int32, rec.NumRows())
	if err := p.PartitionIDs(rec, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHashPartitionIDs: the partition Spark's hashpartitioning(k, n)
// computes is pmod(hash(k), n).
func TestHashPartitionIDs(t *testing.T) {
	mem := checkedMem(t)
	rec := int32Record(t, mem, []int32{0, 1, 2, 3, 4, -1, 0}, []bool{true, true, true, true, true, true, false})
	defer rec.Release()
	known := []int32{933211791, -559580957, 1765031574, -1823081949, -397064898, -1604776387, 42}
	for _, n := range []int{1, 7, 200, 1000} {
		h, err := NewHash([]int{0}, n)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(t, h, rec)
		for i, k := range known {
			want := int32(((int64(k) % int64(n)) + int64(n)) % int64(n))
			if got[i] != want {
				t.Errorf("n=%d row %d: partition %d, want %d", n, i, got[i], want)
			}
		}
	}
	// Spot values: hash(1) = -559580957, pmod 200 = 43; null -> 42.
	h, _ := NewHash([]int{0}, 200)
	got := ids(t, h, rec)
	if got[1] != 43 || got[6] != 42 {
		t.Errorf("pmod(hash(1),200)=%d want 43; null -> %d want 42", got[1], got[6])
	}
	if _, err := NewHash(nil, 3); err == nil {
		t.Error("no keys: no error")
	}
	if _, err := NewHash([]int{0}, 0); err == nil {
		t.Error("0 partitions: no error")
	}
	bad, _ := NewHash([]int{3}, 4)
	if err := bad.PartitionIDs(rec, make([]int32, rec.NumRows())); err == nil {
		t.Error("key column out of range: no error")
	}
}

func TestRoundRobinIDs(t *testing.T) {
	mem := checkedMem(t)
	rec := int32Record(t, mem, make([]int32, 10), nil)
	defer rec.Release()
	tests := []struct {
		mapID, n int
	}{{0, 8}, {1, 8}, {5, 7}, {3, 200}, {2, 1}}
	for _, tt := range tests {
		rr, err := NewRoundRobin(tt.n, tt.mapID)
		if err != nil {
			t.Fatal(err)
		}
		start := RoundRobinStart(tt.mapID, tt.n)
		got := append(ids(t, rr, rec), ids(t, rr, rec)...) // position carries over batches
		for i, p := range got {
			want := int32((int(start) + 1 + i) % tt.n)
			if p != want {
				t.Errorf("map %d n %d row %d: %d, want %d", tt.mapID, tt.n, i, p, want)
			}
		}
	}
	// Map task 0 with 8 partitions starts at 5, so its first row goes to 6.
	rr, _ := NewRoundRobin(8, 0)
	if got := ids(t, rr, rec)[0]; got != 6 {
		t.Errorf("first row of map 0 / 8 partitions went to %d, want 6", got)
	}
	// Overflow of the Int position wraps like Scala's and stays in range.
	rr = &RoundRobin{n: 7, position: math.MaxInt32 - 2}
	for _, p := range ids(t, rr, rec) {
		if p < 0 || p >= 7 {
			t.Fatalf("partition %d out of range after overflow", p)
		}
	}
}

func TestSingle(t *testing.T) {
	mem := checkedMem(t)
	rec := int32Record(t, mem, []int32{1, 2, 3}, nil)
	defer rec.Release()
	for _, p := range ids(t, Single{}, rec) {
		if p != 0 {
			t.Fatalf("single partition gave %d", p)
		}
	}
}

func float64Record(t *testing.T, mem memory.Allocator, vals []float64, valid []bool) arrow.RecordBatch {
	t.Helper()
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(len(vals)))
}

// TestRangePartitionIDs: a row goes to the first bound >= it; orders
// follow Spark (asc nulls first, desc nulls last, NaN largest, -0 == 0).
func TestRangePartitionIDs(t *testing.T) {
	mem := checkedMem(t)
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	rows := []float64{-5, 0, negZero, 1, 2, 10, nan, 0, math.Inf(1), 3}
	valid := []bool{true, true, true, true, true, true, true, false, true, true}
	rec := float64Record(t, mem, rows, valid)
	defer rec.Release()
	tests := []struct {
		name   string
		order  SortOrder
		bounds []float64
		want   []int32
	}{
		// bounds 0, 2, 10: p0 <= 0 < p1 <= 2 < p2 <= 10 < p3; null first -> 0; NaN above all -> 3.
		{"asc nulls first", Asc(0), []float64{0, 2, 10}, []int32{0, 0, 0, 1, 1, 2, 3, 0, 3, 2}},
		{"asc nulls last", SortOrder{Column: 0, NullsFirst: false}, []float64{0, 2, 10}, []int32{0, 0, 0, 1, 1, 2, 3, 3, 3, 2}},
		// desc: bounds NaN, 10, 2 (descending). NaN -> 0; +Inf <= NaN... -> 1.
		{"desc nulls last", Desc(0), []float64{nan, 10, 2}, []int32{3, 3, 3, 3, 2, 1, 0, 3, 1, 2}},
		{"desc nulls first", SortOrder{Column: 0, Descending: true, NullsFirst: true}, []float64{nan, 10, 2}, []int32{3, 3, 3, 3, 2, 1, 0, 0, 1, 2}},
	}
	for _, tt := range tests {
		b := float64Record(t, mem, tt.bounds, nil)
		r, err := NewRange([]SortOrder{tt.order}, b)
		b.Release()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if r.NumPartitions() != len(tt.bounds)+1 {
			t.Errorf("%s: %d partitions", tt.name, r.NumPartitions())
		}
		got := ids(t, r, rec)
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: row %d (%v valid=%v): partition %d, want %d", tt.name, i, rows[i], valid[i], got[i], tt.want[i])
			}
		}
		r.Release()
	}
	// Unsorted or duplicate bounds are rejected.
	for _, bad := range [][]float64{{2, 1}, {1, 1}, {0, negZero}} {
		b := float64Record(t, mem, bad, nil)
		if _, err := NewRange([]SortOrder{Asc(0)}, b); err == nil {
			t.Errorf("bounds %v accepted", bad)
		}
		b.Release()
	}
}

// TestRangeMultiKey orders by (s asc, i desc) over the random record.
func TestRangeMultiKeyAndSample(t *testing.T) {
	mem := checkedMem(t)
	rng := rand.New(rand.NewPCG(3, 4))
	orders := []SortOrder{Asc(12), Desc(3), Asc(8)}
	s, err := NewSampler(orders, 100, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	var recs []arrow.RecordBatch
	for i := 0; i < 5; i++ {
		rec := randomRecord(t, rng, mem, 300, 0.1)
		recs = append(recs, rec)
		if err := s.Add(rec); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if s.Seen() != 1500 {
		t.Errorf("seen %d rows", s.Seen())
	}
	bounds, err := s.Bounds(8, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer bounds.Release()
	if bounds.NumRows() == 0 || bounds.NumRows() > 7 {
		t.Fatalf("%d bounds for 8 partitions", bounds.NumRows())
	}
	r, err := NewRange(orders, bounds)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	// Every row is <= its partition's bound and > the previous bound.
	for _, rec := range recs {
		got := ids(t, r, rec)
		rc, err := newRowComparator(rec, bounds, orders, true)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, r.NumPartitions())
		for i, p := range got {
			counts[p]++
			if int(p) < int(bounds.NumRows()) && rc.compare(i, int(p)) > 0 {
				t.Fatalf("row %d above its bound %d", i, p)
			}
			if p > 0 && rc.compare(i, int(p)-1) <= 0 {
				t.Fatalf("row %d not above bound %d", i, p-1)
			}
		}
		if counts[0] == len(got) {
			t.Errorf("all rows in partition 0: %v", counts)
		}
	}
}

func TestSamplerEmpty(t *testing.T) {
	mem := checkedMem(t)
	s, _ := NewSampler([]SortOrder{Asc(0)}, 10, 1)
	defer s.Release()
	if _, err := s.Bounds(4, mem); err == nil {
		t.Error("bounds of an unused sampler: no error")
	}
	rec := int32Record(t, mem, nil, nil)
	defer rec.Release()
	if err := s.Add(rec); err != nil {
		t.Fatal(err)
	}
	b, err := s.Bounds(4, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if b.NumRows() != 0 {
		t.Errorf("%d bounds from an empty sample", b.NumRows())
	}
}

// TestRangeDictionaryNulls: a dictionary index pointing at a null value is
// a null for ordering, placed by the sort order like any null.
func TestRangeDictionaryNulls(t *testing.T) {
	mem := checkedMem(t)
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"b", "", "a", "c"}, []bool{true, false, true, true})
	values := sb.NewArray()
	sb.Release()
	defer values.Release()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{0, 1, 2, 3, 0}, []bool{true, true, true, true, false})
	indices := ib.NewArray()
	ib.Release()
	defer indices.Release()
	col := array.NewDictionaryArray(dictType, indices, values)
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dictType, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 5)
	defer rec.Release()

	bb := array.NewStringBuilder(mem)
	bb.AppendValues([]string{"a", "b"}, nil)
	bcol := bb.NewArray()
	bb.Release()
	defer bcol.Release()
	// Bounds must have the key's type: build a dictionary bound column.
	bidx := array.NewInt32Builder(mem)
	bidx.AppendValues([]int32{0, 1}, nil)
	bind := bidx.NewArray()
	bidx.Release()
	defer bind.Release()
	bdict := array.NewDictionaryArray(dictType, bind, bcol)
	defer bdict.Release()
	bounds := array.NewRecordBatch(schema, []arrow.Array{bdict}, 2)
	defer bounds.Release()

	tests := []struct {
		order SortOrder
		want  []int32 // rows: "b", null value, "a", "c", null index
	}{
		{Asc(0), []int32{1, 0, 0, 2, 0}},
		{SortOrder{Column: 0}, []int32{1, 2, 0, 2, 2}}, // asc nulls last
	}
	for _, tt := range tests {
		r, err := NewRange([]SortOrder{tt.order}, bounds)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(t, r, rec)
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%+v row %d: partition %d, want %d", tt.order, i, got[i], tt.want[i])
			}
		}
		r.Release()
	}
}
