package exec

import (
	"os"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/hados-io/hados/race/rules"
)

// piece is a run of one file's row groups, [rgLo, rgHi), or the whole
// file when rgHi is 0.
type piece struct {
	file       string
	rgLo, rgHi int
}

// split is one scan task's input: pieces of one or more files, in file
// and row-group order.
type split struct {
	pieces []piece
}

// files lists the files a split reads.
func (s split) files() []string {
	out := make([]string, len(s.pieces))
	for i, p := range s.pieces {
		out[i] = p.file
	}
	return out
}

// Scan splits: a table is cut into tasks of about equal bytes, like
// Spark's FilePartition packs files and file chunks into partitions of at
// most maxSplitBytes: the task count is the table's bytes over
// max(minSplitBytes, table bytes / engine cores), at most maxSplitBytes
// each, so a table of few files still gives every core a task. Files and
// row groups keep their order; a file is cut only between row groups,
// and a task may read the end of one file and the start of the next, so
// that the tasks balance over the cores: TPC-H SF1's lineitem (3 files of
// 2 row groups, 70, 70 and 60 MB) is 2 tasks of 3 row groups on 2 cores,
// not 3 tasks of which the last runs alone. Cutting it finer (its 6 row
// groups as 6 tasks) measured worse at 2 cores (2026-11-29): each task's
// partial aggregation emits its own groups (Q17: 600K → 1.19M rows of
// 200K part keys into the shuffle). The cores are the devices' (not
// Env.Parallelism), so that Stages and RunStage agree.
const (
	minSplitBytes = 4 << 20
	maxSplitBytes = 128 << 20
)

// fixedSplitBytes, when positive, replaces the computed split size
// (tests).
var fixedSplitBytes int64

// splits lists a scan's tasks (cached per query).
func (q *query) splits(n *rules.Node) ([]split, error) {
	q.mu.Lock()
	if q.splitCache == nil {
		q.splitCache = map[*rules.Node][]split{}
	}
	out, ok := q.splitCache[n]
	q.mu.Unlock()
	if ok {
		return out, nil
	}
	files, err := q.files(n)
	if err != nil {
		return nil, err
	}
	out = planSplits(files, q.cores)
	q.mu.Lock()
	q.splitCache[n] = out
	q.mu.Unlock()
	return out, nil
}

// unit is a piece with its size, the grain splits are made of.
type unit struct {
	piece
	bytes int64
}

// planSplits cuts files into tasks of about equal bytes for cores engine
// cores (see minSplitBytes).
func planSplits(files []string, cores int) []split {
	sizes := make([]int64, len(files))
	var total int64
	for i, f := range files {
		if st, err := os.Stat(f); err == nil {
			sizes[i] = st.Size()
			total += st.Size()
		}
	}
	target := splitTarget(total, cores)
	if fixedSplitBytes > 0 {
		target = fixedSplitBytes
	}
	tasks := max(1, (total+target-1)/target)
	share := max(1, total/tasks)
	// the grain: whole files, and the row groups of the files bigger than
	// a quarter of a task's share (those a cut between tasks could leave
	// far off balance); small files stay whole, their footers unread
	var units []unit
	for i, f := range files {
		if sizes[i] > share/4 {
			if rgs := rowGroupUnits(f, sizes[i]); len(rgs) > 1 {
				units = append(units, rgs...)
				continue
			}
		}
		units = append(units, unit{piece{file: f}, sizes[i]})
	}
	// each unit goes to the task whose share holds its midpoint
	var out []split
	last := int64(-1)
	var at int64
	for _, u := range units {
		t := min(tasks-1, (at+u.bytes/2)/share)
		at += u.bytes
		if t != last || len(out) == 0 {
			out = append(out, split{})
			last = t
		}
		s := &out[len(out)-1]
		if k := len(s.pieces) - 1; k >= 0 && s.pieces[k].file == u.file && s.pieces[k].rgHi == u.rgLo && u.rgHi > 0 {
			s.pieces[k].rgHi = u.rgHi // the next row group of the same file
			continue
		}
		s.pieces = append(s.pieces, u.piece)
	}
	// a file whose row groups all landed in one task is read whole
	for i := range out {
		for k, p := range out[i].pieces {
			if p.rgHi > 0 && p.rgLo == 0 && p.rgHi == rowGroupCount(units, p.file) {
				out[i].pieces[k].rgHi = 0
			}
		}
	}
	return out
}

// splitTarget is the bytes a scan task of a table of total bytes is
// given at cores engine cores (see minSplitBytes): the table's bytes over
// the cores rounded up — rounded down, a table whose bytes are not a
// multiple of the cores was planned as one task more than the cores.
func splitTarget(total int64, cores int) int64 {
	c := int64(max(1, cores))
	return min(int64(maxSplitBytes), max(int64(minSplitBytes), (total+c-1)/c))
}

// rowGroupUnits are file f's row groups as units, their sizes scaled so
// they sum to the file's size; nil when the footer cannot be read (the
// scan reports the error).
func rowGroupUnits(f string, size int64) []unit {
	r, err := file.OpenParquetFile(f, false)
	if err != nil {
		return nil
	}
	defer r.Close()
	md := r.MetaData()
	n := md.NumRowGroups()
	rgBytes := make([]int64, n)
	var sum int64
	for rg := range n {
		m := md.RowGroup(rg)
		b := m.TotalCompressedSize()
		if b <= 0 {
			b = m.TotalByteSize()
		}
		rgBytes[rg] = max(1, b)
		sum += rgBytes[rg]
	}
	out := make([]unit, n)
	for rg := range n {
		out[rg] = unit{piece{file: f, rgLo: rg, rgHi: rg + 1}, max(1, rgBytes[rg]*size/max(1, sum))}
	}
	return out
}

// rowGroupCount is how many row-group units file f has among units.
func rowGroupCount(units []unit, f string) int {
	n := 0
	for _, u := range units {
		if u.file == f && u.rgHi > 0 {
			n++
		}
	}
	return n
}
