package exec

import (
	"fmt"
	"strings"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/internal/safepath"
	"github.com/hados-io/hados/operators/scan"
	"github.com/hados-io/hados/race/rules"
)

// unpartitioned is the partition count of a broadcast: every task reads
// all of it.
const unpartitioned = -1

// partitions is the number of partitions node n produces in stage s: the
// splits of a scan, the (coalesced) reduce partitions of a shuffle read,
// the sum over a union's children (Spark's UnionRDD), the common count of
// a join's partitioned sides.
func (q *query) partitions(s *stage, n *rules.Node) (int, error) {
	kind, _ := q.leaf(s, n)
	switch kind {
	case leafShuffle:
		return len(s.groupsOf(n)), nil
	case leafBroadcast:
		return unpartitioned, nil
	case leafGather, leafInput:
		return 1, nil
	}
	switch n.Kind {
	case rules.DpuScan:
		splits, err := q.splits(n)
		return len(splits), err
	case rules.DpuUnion:
		total := 0
		for _, c := range n.Children {
			k, err := q.partitions(s, c)
			if err != nil {
				return 0, err
			}
			total += max(k, 1)
		}
		return total, nil
	case rules.DpuHashJoin:
		l, err := q.partitions(s, n.Children[0])
		if err != nil {
			return 0, err
		}
		r, err := q.partitions(s, n.Children[1])
		switch {
		case err != nil:
			return 0, err
		case l == unpartitioned:
			return r, nil
		case r == unpartitioned:
			return l, nil
		case l != r:
			return 0, fmt.Errorf("%w: %s joins %d partitions with %d (its sides must be partitioned alike)", ErrNotExecutable, label(n), l, r)
		}
		return l, nil
	}
	if len(n.Children) == 0 {
		return 1, nil
	}
	return q.partitions(s, n.Children[0])
}

// unionPart routes partition p of a union to one child: the child and its
// own partition number; the other children read nothing (-1).
func (q *query) unionPart(s *stage, n *rules.Node, p int) ([]int, error) {
	out := make([]int, len(n.Children))
	base := 0
	for i, c := range n.Children {
		k, err := q.partitions(s, c)
		if err != nil {
			return nil, err
		}
		k = max(k, 1)
		out[i] = -1
		if p >= base && p < base+k {
			out[i] = p - base
		}
		base += k
	}
	return out, nil
}

// files lists a scan's Parquet files (its splits, one task each), in path
// order, skipping names starting with "_" or "." as Spark does.
func (q *query) files(n *rules.Node) ([]string, error) {
	q.mu.Lock()
	if q.fileCache == nil {
		q.fileCache = map[*rules.Node][]string{}
	}
	files, ok := q.fileCache[n]
	q.mu.Unlock()
	if ok {
		return files, nil
	}
	dir, err := q.tableDir(n.Spark.Scan.Table)
	if err != nil {
		return nil, err
	}
	if files, err = scan.TableFiles(dir); err != nil {
		return nil, fmt.Errorf("exec: table %s: %w", n.Spark.Scan.Table, err)
	}
	q.mu.Lock()
	q.fileCache[n] = files
	q.mu.Unlock()
	return files, nil
}

// tableDir maps a scan's table identifier ("spark_catalog.default.lineitem")
// to its directory in the warehouse, refusing anything that leaves it.
func (q *query) tableDir(table string) (string, error) {
	name := table
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Trim(name, "`")
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("%w: exec: table %q is not a plain table name", device.ErrInvalid, table)
	}
	if q.env.Warehouse == "" {
		return "", fmt.Errorf("%w: exec: no warehouse directory to read table %s from", device.ErrInvalid, name)
	}
	root, err := safepath.New(q.env.Warehouse)
	if err != nil {
		return "", fmt.Errorf("exec: warehouse: %w", err)
	}
	dir, err := root.Resolve(name)
	if err != nil {
		return "", fmt.Errorf("exec: table %s: %w", table, err)
	}
	return dir, nil
}

// planGroups decides, before a stage runs, which reduce partitions of
// each shuffle it reads go to which task: contiguous runs of small
// partitions are coalesced up to Env.AdvisoryPartitionBytes (like AQE).
// Shuffles read side by side (the two sides of a shuffled join) share one
// grouping computed from their summed sizes, so partition i of one meets
// partition i of the other; under a union each keeps its own.
func (q *query) planGroups(s *stage) error {
	var leaves []*rules.Node
	union := false
	var walk func(n *rules.Node)
	walk = func(n *rules.Node) {
		kind, _ := q.leaf(s, n)
		if kind == leafShuffle {
			leaves = append(leaves, n)
		}
		if kind != notLeaf {
			return
		}
		if n.Kind == rules.DpuUnion {
			union = true
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(s.top)
	s.groups = map[*rules.Node][][2]int{}
	target := q.advisoryBytes()
	var total int64 // the bytes the stage reads, for parallelismFirst
	outs := make([]*shuffleOut, len(leaves))
	for i, l := range leaves {
		_, dep := q.leaf(s, l)
		if dep == nil || dep.shuffle == nil {
			return fmt.Errorf("exec: %s reads %s before it ran", s.name(), label(l))
		}
		outs[i] = dep.shuffle
		for _, b := range dep.shuffle.lengths() {
			total += b
		}
	}
	target = q.parallelismFirst(target, total)
	common := !union && len(leaves) > 1
	for i := 1; common && i < len(outs); i++ {
		common = outs[i].n == outs[0].n
	}
	if common {
		sum := make([]int64, outs[0].n)
		for _, o := range outs {
			for p, b := range o.lengths() {
				sum[p] += b
			}
		}
		g := coalesce(sum, target)
		for _, l := range leaves {
			s.groups[l] = g
		}
		return nil
	}
	if len(leaves) > 1 && !union {
		return fmt.Errorf("%w: exec: %s reads shuffles of different partition counts side by side", ErrNotExecutable, s.name())
	}
	for i, l := range leaves {
		s.groups[l] = coalesce(outs[i].lengths(), target)
	}
	return nil
}

// advisoryBytes is the size reduce partitions are coalesced up to
// (Env.AdvisoryPartitionBytes, 64 MiB by default; negative: none).
func (q *query) advisoryBytes() int64 {
	if q.env.AdvisoryPartitionBytes == 0 {
		return 64 << 20
	}
	return q.env.AdvisoryPartitionBytes
}

// minPartitionBytes is the smallest coalesced partition parallelismFirst
// aims for (Spark's spark.sql.adaptive.coalescePartitions.minPartitionSize).
const minPartitionBytes = 1 << 20

// parallelismFirst lowers the coalescing target so that a stage reading
// total bytes still gives every task slot a task, as Spark's AQE does by
// default (spark.sql.adaptive.coalescePartitions.parallelismFirst): the
// advisory size is only an upper bound, the target is at most total /
// slots, and at least minPartitionBytes. Without it a reduce stage whose
// input is smaller than the advisory size (TPC-H Q18's final aggregation
// of 1.5M groups, about 30 MB) is one task holding one core while the
// others idle. An explicit Env.AdvisoryPartitionBytes is kept as given.
func (q *query) parallelismFirst(target, total int64) int64 {
	slots := int64(q.slots.size())
	if q.env.AdvisoryPartitionBytes != 0 || target < 0 || slots < 2 {
		return target
	}
	share := (total + slots - 1) / slots
	return min(target, max(int64(minPartitionBytes), share))
}

// coalesce groups partitions [0, len(sizes)) into contiguous runs of at
// most target bytes (a bigger partition alone); target < 0 keeps one
// group per partition.
func coalesce(sizes []int64, target int64) [][2]int {
	var out [][2]int
	start, sum := 0, int64(0)
	for p, b := range sizes {
		if target < 0 || (p > start && sum+b > target) {
			if p > start {
				out = append(out, [2]int{start, p})
			}
			start, sum = p, 0
		}
		sum += b
	}
	if start < len(sizes) {
		out = append(out, [2]int{start, len(sizes)})
	}
	if len(out) == 0 {
		out = append(out, [2]int{0, 0})
	}
	return out
}
