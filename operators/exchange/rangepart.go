package exchange

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
)

// Range is Spark's RangePartitioning(orders, n) once its bounds are known:
// bounds is a record with one column per sort order (column k holds the
// values of orders[k]) and one row per bound, strictly increasing under the
// orders. A row goes to the first partition p whose bound p is >= the row,
// or to len(bounds) when it is above every bound — the partition Spark's
// RangePartitioner.getPartition computes (linear scan up to 128 bounds,
// binary search beyond: the same answer for distinct bounds). There are
// len(bounds)+1 partitions, which may be fewer than requested when the
// sample had few distinct keys, as in Spark.
type Range struct {
	orders []SortOrder
	bounds arrow.RecordBatch
}

// NewRange returns a range partitioner. It retains bounds; Release drops
// that reference. Bounds that are not strictly increasing are an error.
func NewRange(orders []SortOrder, bounds arrow.RecordBatch) (*Range, error) {
	if len(orders) == 0 {
		return nil, fmt.Errorf("exchange: range partitioning needs at least one sort order")
	}
	if int(bounds.NumCols()) != len(orders) {
		return nil, fmt.Errorf("exchange: range bounds have %d columns for %d sort orders", bounds.NumCols(), len(orders))
	}
	if err := checkN(int(bounds.NumRows()) + 1); err != nil {
		return nil, err
	}
	self := make([]SortOrder, len(orders))
	for k, o := range orders {
		self[k] = SortOrder{Column: k, Descending: o.Descending, NullsFirst: o.NullsFirst}
	}
	rc, err := newRowComparator(bounds, bounds, self, false)
	if err != nil {
		return nil, err
	}
	for j := 1; j < int(bounds.NumRows()); j++ {
		if rc.compare(j-1, j) >= 0 {
			return nil, fmt.Errorf("exchange: range bound %d is not above bound %d", j, j-1)
		}
	}
	bounds.Retain()
	return &Range{orders: append([]SortOrder(nil), orders...), bounds: bounds}, nil
}

// Release drops the reference to the bounds.
func (r *Range) Release() {
	if r.bounds != nil {
		r.bounds.Release()
		r.bounds = nil
	}
}

// NumPartitions implements Partitioner.
func (r *Range) NumPartitions() int { return int(r.bounds.NumRows()) + 1 }

// PartitionIDs implements Partitioner.
func (r *Range) PartitionIDs(rec arrow.RecordBatch, ids []int32) error {
	if err := checkIDs(rec, ids); err != nil {
		return err
	}
	rc, err := newRowComparator(rec, r.bounds, r.orders, true)
	if err != nil {
		return err
	}
	nb := int(r.bounds.NumRows())
	for i := range ids {
		ids[i] = int32(sort.Search(nb, func(j int) bool { return rc.compare(i, j) <= 0 }))
	}
	return nil
}
