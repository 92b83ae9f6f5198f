package exchange

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Partitioner assigns every row of a record to an output partition, as one
// of Spark's Partitionings does in ShuffleExchangeExec.
//
// Partitioners are immutable specs except RoundRobin, whose position moves
// with every row; none is safe for concurrent use. They own no Arrow memory
// (a RangePartitioner holds a reference to its bounds, see NewRange).
type Partitioner interface {
	// NumPartitions is the number of output partitions.
	NumPartitions() int
	// PartitionIDs writes the partition of row i of rec into ids[i];
	// len(ids) must equal rec.NumRows().
	PartitionIDs(rec arrow.RecordBatch, ids []int32) error
}

func checkIDs(rec arrow.RecordBatch, ids []int32) error {
	if int64(len(ids)) != rec.NumRows() {
		return fmt.Errorf("exchange: %d partition ids for a record of %d rows", len(ids), rec.NumRows())
	}
	return nil
}

func checkN(n int) error {
	if n <= 0 || n > 1<<24 {
		return fmt.Errorf("exchange: partition count %d out of range [1, %d]", n, 1<<24)
	}
	return nil
}

// Hash is Spark's HashPartitioning(keys, n): the partition of a row is
// Pmod(Murmur3Hash(keys; seed 42), n), keys being already-evaluated key
// columns of the record, in the order of the partitioning expressions.
type Hash struct {
	keys []int
	n    int
}

// NewHash returns a hash partitioner over the key column indices.
func NewHash(keys []int, n int) (*Hash, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("exchange: hash partitioning needs at least one key column")
	}
	return &Hash{keys: append([]int(nil), keys...), n: n}, nil
}

// NumPartitions implements Partitioner.
func (h *Hash) NumPartitions() int { return h.n }

// PartitionIDs implements Partitioner.
func (h *Hash) PartitionIDs(rec arrow.RecordBatch, ids []int32) error {
	if err := checkIDs(rec, ids); err != nil {
		return err
	}
	cols := make([]arrow.Array, len(h.keys))
	for k, c := range h.keys {
		if c < 0 || c >= int(rec.NumCols()) {
			return fmt.Errorf("exchange: hash key column %d out of range (record has %d columns)", c, rec.NumCols())
		}
		cols[k] = rec.Column(c)
	}
	if err := HashColumns(cols, SparkSeed, ids); err != nil {
		return err
	}
	n := int32(h.n)
	for i, v := range ids {
		ids[i] = Pmod(v, n)
	}
	return nil
}

// RoundRobin is Spark's RoundRobinPartitioning(n) for one map task: the
// position starts at new java.util.Random(byteswap32(mapPartition))
// .nextInt(n) and every row first increments it, then goes to partition
// nonNegativeMod(position, n) (Spark's HashPartitioner over the Int).
//
// Spark by default (spark.sql.execution.sortBeforeRepartition=true) sorts a
// map task's rows by their UnsafeRow bytes before this assignment; hados
// assigns rows in arrival order, which equals Spark with that setting off.
type RoundRobin struct {
	n        int32
	position int32
}

// NewRoundRobin returns the round-robin partitioner of map task
// mapPartition (TaskContext.partitionId()).
func NewRoundRobin(n int, mapPartition int) (*RoundRobin, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	return &RoundRobin{n: int32(n), position: RoundRobinStart(mapPartition, n)}, nil
}

// RoundRobinStart is the position Spark starts a round-robin exchange at in
// map task mapPartition: new Random(byteswap32(mapPartition)).nextInt(n).
// The first row goes to partition (start+1) mod n.
func RoundRobinStart(mapPartition, n int) int32 {
	return NewJavaRandom(int64(Byteswap32(int32(mapPartition)))).NextIntN(int32(n))
}

// NumPartitions implements Partitioner.
func (r *RoundRobin) NumPartitions() int { return int(r.n) }

// PartitionIDs implements Partitioner; it advances the position.
func (r *RoundRobin) PartitionIDs(rec arrow.RecordBatch, ids []int32) error {
	if err := checkIDs(rec, ids); err != nil {
		return err
	}
	for i := range ids {
		r.position++ // wraps like a Scala Int
		ids[i] = Pmod(r.position, r.n)
	}
	return nil
}

// Single is Spark's SinglePartition: every row goes to partition 0.
type Single struct{}

// NumPartitions implements Partitioner.
func (Single) NumPartitions() int { return 1 }

// PartitionIDs implements Partitioner.
func (Single) PartitionIDs(rec arrow.RecordBatch, ids []int32) error {
	if err := checkIDs(rec, ids); err != nil {
		return err
	}
	clear(ids)
	return nil
}
