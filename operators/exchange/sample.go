package exchange

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Sampler keeps a uniform reservoir sample of the sort keys of the rows it
// is shown, from which Bounds picks range-partition bounds like Spark's
// RangePartitioner (reservoir sampling, then determineBounds over the sorted
// sample). The random choices come from a seeded JavaRandom, so a sample is
// reproducible, but it is not the sample Spark would draw: bit-exact range
// partitioning needs Spark's own bounds passed to NewRange.
//
// A Sampler retains the key columns of the records that still contribute a
// sampled row; Release drops them. Not safe for concurrent use.
type Sampler struct {
	orders []SortOrder
	k      int
	seen   int64
	rng    *JavaRandom
	refs   []sampleRef
	live   map[arrow.RecordBatch]int // sampled rows per retained key record
	schema *arrow.Schema
}

type sampleRef struct {
	rec arrow.RecordBatch // key columns only, one per order
	row int
}

// NewSampler samples up to k rows' keys for the given sort orders.
func NewSampler(orders []SortOrder, k int, seed int64) (*Sampler, error) {
	if k <= 0 || len(orders) == 0 {
		return nil, fmt.Errorf("exchange: sampler needs k > 0 (got %d) and sort orders (got %d)", k, len(orders))
	}
	return &Sampler{orders: append([]SortOrder(nil), orders...), k: k, rng: NewJavaRandom(seed), live: map[arrow.RecordBatch]int{}}, nil
}

// Seen is the number of rows shown to the sampler.
func (s *Sampler) Seen() int64 { return s.seen }

// Add shows the rows of rec to the sampler.
func (s *Sampler) Add(rec arrow.RecordBatch) error {
	keys, err := s.project(rec)
	if err != nil {
		return err
	}
	defer keys.Release()
	for i := 0; i < int(rec.NumRows()); i++ {
		s.seen++
		if len(s.refs) < s.k {
			s.take(len(s.refs), keys, i)
			continue
		}
		if r := int64(s.rng.NextDouble() * float64(s.seen)); r < int64(s.k) {
			s.take(int(r), keys, i)
		}
	}
	return nil
}

func (s *Sampler) project(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(s.orders))
	fields := make([]arrow.Field, len(s.orders))
	for k, o := range s.orders {
		if o.Column < 0 || o.Column >= int(rec.NumCols()) {
			return nil, fmt.Errorf("exchange: sort column %d out of range (record has %d columns)", o.Column, rec.NumCols())
		}
		cols[k] = rec.Column(o.Column)
		fields[k] = rec.Schema().Field(o.Column)
	}
	if s.schema == nil {
		s.schema = arrow.NewSchema(fields, nil)
	}
	return array.NewRecordBatch(s.schema, cols, rec.NumRows()), nil
}

// take puts row i of keys at reservoir slot.
func (s *Sampler) take(slot int, keys arrow.RecordBatch, i int) {
	if slot == len(s.refs) {
		s.refs = append(s.refs, sampleRef{})
	} else {
		s.drop(s.refs[slot].rec)
	}
	if s.live[keys] == 0 {
		keys.Retain()
	}
	s.live[keys]++
	s.refs[slot] = sampleRef{rec: keys, row: i}
}

func (s *Sampler) drop(rec arrow.RecordBatch) {
	s.live[rec]--
	if s.live[rec] == 0 {
		delete(s.live, rec)
		rec.Release()
	}
}

// Release drops every retained record; the Sampler is empty afterwards.
func (s *Sampler) Release() {
	for rec := range s.live {
		rec.Release()
	}
	clear(s.live)
	s.refs = nil
}

// Bounds sorts the sample and picks up to n-1 distinct bounds splitting it
// into n equal shares (Spark's RangePartitioner.determineBounds with equal
// weights). The result has one column per sort order, is allocated from
// mem, and is released by the caller; pass it to NewRange. An empty sample
// gives zero bounds (one partition).
func (s *Sampler) Bounds(n int, mem memory.Allocator) (arrow.RecordBatch, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	sample, err := s.sampleRecord(mem)
	if err != nil || sample == nil {
		return sample, err
	}
	defer sample.Release()
	self := make([]SortOrder, len(s.orders))
	for k, o := range s.orders {
		self[k] = SortOrder{Column: k, Descending: o.Descending, NullsFirst: o.NullsFirst}
	}
	rc, err := newRowComparator(sample, sample, self, false)
	if err != nil {
		return nil, err
	}
	order := make([]int32, sample.NumRows())
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(x, y int) bool { return rc.compare(int(order[x]), int(order[y])) < 0 })
	picked := determineBounds(order, n, rc.compare)
	return takeRecord(sample, picked, mem)
}

// determineBounds walks the sorted sample with equal weights, taking a
// bound each time the cumulative weight passes the next multiple of
// len/n, skipping candidates not above the previous bound.
func determineBounds(sorted []int32, n int, cmp func(i, j int) int) []int32 {
	var out []int32
	step := float64(len(sorted)) / float64(n)
	target := step
	cum := 0.0
	prev := int32(-1)
	for i := 0; i < len(sorted) && len(out) < n-1; i++ {
		cum++
		if cum >= target {
			key := sorted[i]
			if prev < 0 || cmp(int(key), int(prev)) > 0 {
				out = append(out, key)
				target += step
				prev = key
			}
		}
	}
	return out
}

// sampleRecord gathers the sampled keys into one record (nil if empty).
func (s *Sampler) sampleRecord(mem memory.Allocator) (arrow.RecordBatch, error) {
	if len(s.refs) == 0 {
		if s.schema == nil {
			return nil, fmt.Errorf("exchange: no rows sampled")
		}
		cols := make([]arrow.Array, s.schema.NumFields())
		for i, f := range s.schema.Fields() {
			cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
			defer cols[i].Release()
		}
		return array.NewRecordBatch(s.schema, cols, 0), nil
	}
	slices := make([]arrow.RecordBatch, len(s.refs))
	for k, r := range s.refs {
		slices[k] = r.rec.NewSlice(int64(r.row), int64(r.row+1))
	}
	defer func() {
		for _, r := range slices {
			r.Release()
		}
	}()
	return Concat(slices, mem)
}
