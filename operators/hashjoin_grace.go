package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators/spill"
)

// Grace hash join
//
// When the build side does not fit the task's memory quota and the target
// can spill (Target.Spill), HashJoin runs as a grace hash join: it splits
// both sides by a hash of their join keys into P partitions written as
// spill runs (the build side first, starting with the batches it had read
// when it found out, then the probe side), and joins partition by
// partition — an ordinary HashJoin of partition i's build run and probe
// run, which builds a table of 1/P of the build side. Rows with equal keys
// share a partition (join_keyhash.go hashes as the device compares), so
// the union of the partitions' results is the join's result. A partition
// that still does not fit partitions itself again, with another hash seed,
// up to maxGraceLevel levels; a partition that holds every row of its
// parent (a single hot key: no seed can split it) gives up at once.
//
// This is the stand-in for Spark's SortMergeJoin spilling to disk: Spark
// sorts both sides into spill files and merges them; hados partitions
// both sides into spill files and hashes each pair, which reads and
// writes every row once per level as the sort-merge join does, and keeps
// the device's hash join for the work.
//
// Join types keep their meaning because every output row depends on one
// partition only: a probe row matches only build rows of its own
// partition, so its outer, semi, anti and existence output is decided
// there, and so is every build row's. A row with a null in a key that is
// not null-safe matches nothing anywhere; it goes to any partition (round
// robin, so many of them spread), where the partition's join emits it as
// unmatched exactly as the type requires. The global rules of a
// null-aware anti join (NOT IN) are applied around the partitions: a null
// key on the right side empties the result, and when the right side has
// rows a left row with a null key never qualifies — so with the right
// side built, such left rows are dropped while the probe is partitioned
// (the build side, read first, is known by then), and with the left side
// built, they are set aside in a run of their own that is emitted only
// when the right side turns out to be empty. The partitions then run as
// plain anti joins.

// maxGraceLevel bounds the recursion of partitions that do not fit.
const maxGraceLevel = 6

// maxGracePartitions bounds P (each open partition holds a spill writer's
// buffer of host memory per side).
var maxGracePartitions = 32

// graceJoin is a HashJoin's grace state: the partition writers while it
// reads its children, then the runs it joins one partition at a time.
// It owns the writers, the runs (removed once joined, the rest by close)
// and the partition join in progress.
type graceJoin struct {
	h     *HashJoin
	parts int
	seed  uint64
	naaj  bool

	build, probe []*spill.Writer
	held         *spill.Writer // null-aware anti join, left side built: left rows with a null key
	buildRuns    []*spill.Run
	probeRuns    []*spill.Run
	heldRun      *spill.Run

	buildRows, probeRows int64
	buildNull, probeNull bool // a null key (null-aware anti join)
	spread               int  // round robin of rows with a null key

	buffers spillBuffers // the writers' host memory (quota.go)

	hashes []uint64
	nulls  []bool
	ids    []int32

	probed  bool // the probe side is partitioned
	part    int  // the next partition to join; parts = the held run
	sub     *HashJoin
	subRuns []*spill.Run
	done    bool
}

// startGrace switches h to a grace hash join: it partitions held (the
// build batches read so far; it takes them over) and, unless complete, the
// rest of the build side. cause is why the build side does not fit.
func (h *HashJoin) startGrace(ctx context.Context, held []arrow.Record, complete bool, cause error) error {
	if h.level >= maxGraceLevel || h.unsplittable {
		releaseRecords(held)
		why := fmt.Sprintf("a grace hash join partition still does not fit after %d levels of partitioning", h.level)
		if h.unsplittable {
			why = fmt.Sprintf("a grace hash join partition (level %d) holds every build row of its parent: they share a join key, which no partitioning can split", h.level)
		}
		return QuotaExceeded("HashJoin", cause, why)
	}
	rows, bytes := recordsSize(held)
	g := &graceJoin{h: h, parts: graceParts(h.t.Account, rows, bytes, complete), seed: uint64(h.level) + 1,
		naaj: h.spec.NullAwareAnti}
	h.grace = g
	var err error
	if g.build, err = g.writersOf(g.parts, h.buildSide.schema); err != nil {
		releaseRecords(held)
		return err
	}
	if g.naaj && !h.plan.probeLeft {
		if g.held, err = h.t.Spill.Create("HashJoin", h.buildSide.schema); err != nil {
			releaseRecords(held)
			return err
		}
		g.buffers.charge(h.t, "HashJoin", g.held)
	}
	for i, r := range held {
		if err == nil {
			err = g.write(r, true)
		}
		r.Release()
		held[i] = nil
	}
	for err == nil && !complete {
		var r arrow.Record
		if r, err = h.buildSide.op.Next(ctx); err != nil || r == nil {
			break
		}
		err = g.write(r, true)
		r.Release()
	}
	if err != nil {
		return err
	}
	if g.buildRuns, err = g.finish(g.build); err != nil {
		return err
	}
	g.build = nil
	if g.held != nil {
		w := g.held
		g.held = nil
		runs, err := g.finish([]*spill.Writer{w})
		if err != nil {
			return err
		}
		g.heldRun = runs[0]
	}
	return nil
}

// graceParts chooses P so that a partition's table takes about a quarter
// of what the quota has left (fitsInMemory allows half): from the build
// side's size when it is all read (complete), else from twice what was
// read (it goes on).
func graceParts(a *hmem.Account, rows int, bytes uint64, complete bool) int {
	if a == nil || a.Limit() == 0 {
		return 8 // a device out of memory without a quota: no size to go by
	}
	need := bytes + joinStateBytes(rows)
	if !complete {
		need *= 2
	}
	avail := max(1, a.Limit()-min(a.Limit(), a.InUse()))
	p := (4*need + avail - 1) / avail
	return int(min(max(p, 2), uint64(maxGracePartitions)))
}

// writersOf creates n partition runs of a side's own columns.
func (g *graceJoin) writersOf(n int, schema *arrow.Schema) ([]*spill.Writer, error) {
	ws := make([]*spill.Writer, 0, n)
	for range n {
		w, err := g.h.t.Spill.Create("HashJoin", schema)
		if err != nil {
			for _, w := range ws {
				w.Abort()
			}
			return nil, err
		}
		g.buffers.charge(g.h.t, "HashJoin", w)
		ws = append(ws, w)
	}
	return ws, nil
}

// finish finishes the writers into runs, counting them in the stats; on
// an error it aborts the writers not finished.
func (g *graceJoin) finish(ws []*spill.Writer) ([]*spill.Run, error) {
	runs := make([]*spill.Run, 0, len(ws))
	for i, w := range ws {
		r, err := w.Finish()
		if err != nil {
			for _, w := range ws[i+1:] {
				w.Abort()
			}
			for _, r := range runs {
				r.Remove()
			}
			return nil, err
		}
		g.h.stats.addSpill(r)
		runs = append(runs, r)
	}
	return runs, nil
}

// write splits a batch of the build or probe side (its own columns, then
// computed key columns) into the partitions; rec stays the caller's.
func (g *graceJoin) write(rec arrow.Record, build bool) error {
	rows := int(rec.NumRows())
	if rows == 0 {
		return nil
	}
	h := g.h
	s, ws := &h.probeSide, g.probe
	if build {
		s, ws = &h.buildSide, g.build
	}
	if cap(g.ids) < rows {
		g.hashes, g.nulls, g.ids = make([]uint64, rows), make([]bool, rows), make([]int32, rows)
	}
	hashes, nulls, ids := g.hashes[:rows], g.nulls[:rows], g.ids[:rows]
	keys := make([]arrow.Array, len(s.keys))
	for k, c := range s.keys {
		keys[k] = rec.Column(c)
	}
	if err := hashJoinKeys(keys, h.spec.NullSafe, g.seed, hashes, nulls); err != nil {
		return err
	}
	held, drop := int32(g.parts), int32(g.parts+1)
	anyNull := false
	for i := range rows {
		if !nulls[i] {
			ids[i] = int32((hashes[i] >> 32) * uint64(g.parts) >> 32)
			continue
		}
		anyNull = true
		switch {
		case g.naaj && build && !h.plan.probeLeft:
			ids[i] = held
		case g.naaj && !build && h.plan.probeLeft && g.buildRows > 0:
			ids[i] = drop
		default:
			ids[i] = int32(g.spread % g.parts)
			g.spread++
		}
	}
	if build {
		g.buildRows += int64(rows)
		g.buildNull = g.buildNull || anyNull
	} else {
		g.probeRows += int64(rows)
		g.probeNull = g.probeNull || anyNull
	}
	data := dataRecord(rec, s.data)
	defer data.Release()
	return writePartitions("hash join: grace partitioning", data, ids, g.parts+2, func(p int, part arrow.Record) error {
		switch {
		case p < g.parts:
			return ws[p].Write(part)
		case int32(p) == held:
			return g.held.Write(part)
		}
		return nil // the dropped rows
	})
}

// emptyResult: a null-aware anti join whose right side has rows and a
// null key has no rows.
func (g *graceJoin) emptyResult() bool {
	if !g.naaj {
		return false
	}
	if g.h.plan.probeLeft {
		return g.buildRows > 0 && g.buildNull
	}
	return g.probeRows > 0 && g.probeNull
}

// partitionProbe reads the probe side into its partitions.
func (g *graceJoin) partitionProbe(ctx context.Context) error {
	g.probed = true
	h := g.h
	if g.emptyResult() {
		return nil
	}
	var err error
	if g.probe, err = g.writersOf(g.parts, h.probeSide.schema); err != nil {
		return err
	}
	for {
		r, err := h.probeSide.op.Next(ctx)
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		h.stats.RowsIn += r.NumRows()
		h.stats.Batches++
		err = g.write(r, false)
		r.Release()
		if err != nil {
			return err
		}
	}
	ws := g.probe
	g.probe = nil
	g.probeRuns, err = g.finish(ws)
	return err
}

// next returns the next output batch: the partitions' joins in turn.
func (g *graceJoin) next(ctx context.Context) (arrow.Record, error) {
	if !g.probed {
		if err := g.partitionProbe(ctx); err != nil {
			return nil, err
		}
		g.done = g.emptyResult()
	}
	for {
		if g.sub != nil {
			r, err := g.sub.Next(ctx)
			if err != nil || r != nil {
				return r, err
			}
			if err := g.closeSub(); err != nil {
				return nil, err
			}
		}
		if g.done {
			return nil, nil
		}
		b, p, ok := g.nextPartition()
		if !ok {
			g.done = true
			return nil, nil
		}
		if err := g.openSub(ctx, b, p); err != nil {
			return nil, err
		}
	}
}

// nextPartition picks the next pair of runs with output to give (nil:
// an empty side), removing the pairs it skips.
func (g *graceJoin) nextPartition() (build, probe *spill.Run, ok bool) {
	for g.part <= g.parts {
		i := g.part
		g.part++
		if i == g.parts {
			// the left rows with a null key of a null-aware anti join:
			// output only when the right side is empty
			if g.heldRun != nil && g.heldRun.Rows() > 0 && g.probeRows == 0 {
				return g.heldRun, nil, true
			}
			continue
		}
		b, p := g.buildRuns[i], g.probeRuns[i]
		if g.needed(b.Rows(), p.Rows()) {
			return b, p, true
		}
		b.Remove()
		p.Remove()
	}
	return nil, nil, false
}

// needed reports whether a partition of bRows build and pRows probe rows
// has output.
func (g *graceJoin) needed(bRows, pRows int64) bool {
	p := g.h.plan
	switch {
	case bRows > 0 && pRows > 0:
		return true
	case bRows == 0 && pRows == 0:
		return false
	case bRows == 0: // only probe rows, none matched
		return p.probeOuter || p.mode == modeAnti || p.mode == modeExists
	default: // only build rows, none matched
		return p.buildOuter || (p.mode == modeMark && g.h.spec.Type != JoinLeftSemi)
	}
}

// openSub starts the join of one partition.
func (g *graceJoin) openSub(ctx context.Context, build, probe *spill.Run) error {
	h := g.h
	spec := h.spec
	spec.NullAwareAnti = false // applied around the partitions
	bs, ps := runOperator(build, h.buildSide.schema), runOperator(probe, h.probeSide.schema)
	left, right := ps, bs
	if spec.Build == BuildLeft {
		left, right = bs, ps
	}
	sub, err := NewHashJoin(h.t, left, right, spec)
	if err != nil {
		bs.Close()
		ps.Close()
		return err
	}
	sub.level = h.level + 1
	sub.unsplittable = build != nil && build != g.heldRun && build.Rows() > 1 && build.Rows() == g.buildRows
	g.sub, g.subRuns = sub, []*spill.Run{build, probe}
	return sub.Open(ctx)
}

// runOperator reads a run (nil or empty: no rows of schema).
func runOperator(r *spill.Run, schema *arrow.Schema) Operator {
	if r == nil || r.Rows() == 0 {
		return NewRecordSource(schema)
	}
	return &runSource{run: r, schema: schema}
}

// closeSub closes the partition join in progress and removes its runs.
func (g *graceJoin) closeSub() error {
	err := g.sub.Close()
	st := g.sub.Stats()
	g.h.stats.SpillFiles += st.SpillFiles
	g.h.stats.SpillBytes += st.SpillBytes
	g.h.stats.SpillRows += st.SpillRows
	g.sub = nil
	for _, r := range g.subRuns {
		if r == nil {
			continue
		}
		if e := r.Remove(); err == nil {
			err = e
		}
	}
	g.subRuns = nil
	return err
}

// close aborts unfinished runs, closes a partition join in progress and
// removes every run left.
func (g *graceJoin) close() error {
	for _, ws := range [][]*spill.Writer{g.build, g.probe, {g.held}} {
		for _, w := range ws {
			if w != nil {
				w.Abort()
			}
		}
	}
	g.build, g.probe, g.held = nil, nil, nil
	var err error
	if g.sub != nil {
		err = g.closeSub()
	}
	for _, r := range append(append(g.buildRuns, g.probeRuns...), g.heldRun) {
		if r == nil {
			continue
		}
		if e := r.Remove(); err == nil {
			err = e
		}
	}
	g.buildRuns, g.probeRuns, g.heldRun = nil, nil, nil
	if e := g.buffers.close(); err == nil {
		err = e
	}
	return err
}
