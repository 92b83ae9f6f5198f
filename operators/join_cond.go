package operators

import (
	"context"
	"fmt"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
)

// joinCondition evaluates a join's extra condition on the device, in one
// of two ways.
//
// A simple condition — a conjunction of comparisons (=, <>, <, <=, >, >=)
// between two columns of the same fixed-width type (int, bigint, date,
// timestamp, double, decimal), such as TPC-H Q21's l2.l_suppkey <>
// l1.l_suppkey — is evaluated by one device op (OpJoinCond) directly over
// the candidate pairs' row numbers, reading each operand where it lies (the
// probe batch's columns, the build record's columns staged once per hash
// table): no gather, no pipeline. For semi, anti and existence joins that
// probe their left side, only whether some pair of a probe row passes
// matters: there the probe itself tests the terms (device.ProbeCond) as
// it finds each candidate, stops at a row's first passing one and writes
// per probe row its first passing match (or the row with -1), so no
// candidate pair leaves the device (condInProbe, probeWithCond). Other
// joins probe for every candidate pair and run OpJoinCond over them.
//
// Any other condition runs through a FilterProject-style pipeline
// projecting the condition as one boolean column over the candidate
// pairs' columns it reads — only those: the condition is rewritten over
// the left columns it uses, then the right columns it uses, so a candidate
// pair gathers just them (the output rows are gathered afterwards, in
// full, only for the pairs that pass).
//
// Both ways follow Spark: a null condition rejects the pair.
type joinCondition struct {
	fp          *FilterProject
	left, right []int // the columns of each side the condition reads, in pipeline order

	terms []condTerm // the simple form (nil: the condition is not simple)
	// the build side's condition columns staged for table (the table's
	// record, in the order of the side's list, left or right), kept until
	// the table changes or close
	table   *joinTable
	buildSt *staged
}

// condTerm is one comparison of a simple condition: operand a and b are
// each column k of the left side's (or the right side's) condition
// columns.
type condTerm struct {
	cmp            device.JoinCmp
	aRight, bRight bool
	a, b           int // index into left or right
}

func newJoinCondition(t *Target, cond *expr.Expr, left, right *arrow.Schema) (*joinCondition, error) {
	nl, nr := left.NumFields(), right.NumFields()
	used := map[int]bool{}
	err := cond.Walk(func(e *expr.Expr) error {
		if e.Op == expr.OpColumn {
			if e.Col < 0 || e.Col >= nl+nr {
				return fmt.Errorf("%w: hash join: condition %s reads column %d of %d left and %d right columns",
					device.ErrInvalid, cond, e.Col, nl, nr)
			}
			used[e.Col] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c := &joinCondition{}
	for i := range nl {
		if used[i] {
			c.left = append(c.left, i)
		}
	}
	for i := range nr {
		if used[nl+i] {
			c.right = append(c.right, i)
		}
	}
	if len(c.left)+len(c.right) == 0 && nl > 0 {
		c.left = []int{0} // a condition of literals still needs the rows counted
	}
	remap := map[int]int{}
	var fields []arrow.Field
	ls, rs := gatherSchema(left, true), gatherSchema(right, true)
	for k, i := range c.left {
		remap[i] = k
		fields = append(fields, ls.Field(i))
	}
	for k, i := range c.right {
		remap[nl+i] = len(c.left) + k
		fields = append(fields, rs.Field(i))
	}
	src := NewRecordSource(arrow.NewSchema(fields, nil))
	fp, err := NewFilterProject(t, src, nil, []*expr.Expr{remapColumns(cond, remap)}, []string{"condition"})
	if err != nil {
		return nil, err
	}
	fp.inside = "HashJoin"
	if err := fp.Compile(); err != nil {
		fp.Close()
		return nil, fmt.Errorf("hash join: condition %s: %w", cond, err)
	}
	c.fp = fp
	c.terms = simpleTerms(cond, left, right, c.left, c.right)
	return c, nil
}

var condCmps = map[expr.Op]device.JoinCmp{expr.OpEq: device.JoinCmpEq, expr.OpNe: device.JoinCmpNe, expr.OpLt: device.JoinCmpLt,
	expr.OpLe: device.JoinCmpLe, expr.OpGt: device.JoinCmpGt, expr.OpGe: device.JoinCmpGe}

var negatedCmp = map[device.JoinCmp]device.JoinCmp{device.JoinCmpEq: device.JoinCmpNe, device.JoinCmpNe: device.JoinCmpEq,
	device.JoinCmpLt: device.JoinCmpGe, device.JoinCmpGe: device.JoinCmpLt, device.JoinCmpLe: device.JoinCmpGt, device.JoinCmpGt: device.JoinCmpLe}

// simpleTerms is cond as a conjunction of column comparisons OpJoinCond
// evaluates, or nil when it is not one: every leaf of its AND tree a
// comparison (or the NOT of one) of two columns of the same type stored
// as i32, i64, f64 or i128 (the comparison's semantics then are the
// device's: integers and decimals of one scale by value, doubles in
// Spark's order).
func simpleTerms(cond *expr.Expr, ls, rs *arrow.Schema, left, right []int) []condTerm {
	nl := ls.NumFields()
	var terms []condTerm
	operand := func(e *expr.Expr) (field arrow.Field, isRight bool, k int, ok bool) {
		if e.Op != expr.OpColumn || e.Col < 0 {
			return field, false, 0, false
		}
		if e.Col < nl {
			return ls.Field(e.Col), false, slices.Index(left, e.Col), true
		}
		return rs.Field(e.Col - nl), true, slices.Index(right, e.Col-nl), true
	}
	var walk func(e *expr.Expr) bool
	walk = func(e *expr.Expr) bool {
		if e.Op == expr.OpAnd && len(e.Args) == 2 {
			return walk(e.Args[0]) && walk(e.Args[1])
		}
		negate := false
		for e.Op == expr.OpNot && len(e.Args) == 1 {
			negate, e = !negate, e.Args[0]
		}
		cmp, isCmp := condCmps[e.Op]
		if !isCmp || len(e.Args) != 2 || len(terms) == device.MaxJoinCondTerms {
			return false
		}
		if negate {
			// Spark writes a <> b as NOT (a = b); a null stays null either
			// way, and the order is total (doubles too), so NOT (a < b) is
			// a >= b
			cmp = negatedCmp[cmp]
		}
		x, y := e.Args[0], e.Args[1]
		if x.Type.Kind != y.Type.Kind || x.Type.Precision != y.Type.Precision || x.Type.Scale != y.Type.Scale {
			return false
		}
		fa, ar, ka, oka := operand(x)
		fb, br, kb, okb := operand(y)
		if !oka || !okb || ka < 0 || kb < 0 || !arrow.TypeEqual(fa.Type, fb.Type) {
			return false
		}
		if vt, err := storageOf(fa.Type); err != nil || !device.JoinCondTypeOK(vt) {
			return false
		}
		terms = append(terms, condTerm{cmp: cmp, aRight: ar, bRight: br, a: ka, b: kb})
		return true
	}
	if !walk(cond) {
		return nil
	}
	return terms
}

// remapColumns is a copy of e reading column m[i] where e reads column i.
func remapColumns(e *expr.Expr, m map[int]int) *expr.Expr {
	n := *e
	if e.Op == expr.OpColumn {
		n.Col = m[e.Col]
	}
	if e.Args != nil {
		n.Args = make([]*expr.Expr, len(e.Args))
		for i, a := range e.Args {
			n.Args[i] = remapColumns(a, m)
		}
	}
	return &n
}

// eval returns, per row of joined, whether the condition is true (null
// and false reject).
func (c *joinCondition) eval(ctx context.Context, joined arrow.Record) ([]bool, error) {
	pass := make([]bool, 0, joined.NumRows())
	err := c.fp.process(ctx, joined)
	recs := c.fp.pending
	c.fp.pending = nil
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		b := r.Column(0).(*array.Boolean)
		for i := range b.Len() {
			pass = append(pass, b.IsValid(i) && b.Value(i))
		}
	}
	if len(pass) != int(joined.NumRows()) {
		return nil, fmt.Errorf("hash join: condition gave %d values for %d pairs", len(pass), joined.NumRows())
	}
	return pass, nil
}

func (c *joinCondition) close() {
	c.fp.Close()
	c.dropBuild()
}

// dropBuild releases the staged build columns.
func (c *joinCondition) dropBuild() {
	if c.buildSt != nil {
		c.buildSt.release()
	}
	c.table, c.buildSt = nil, nil
}

// evalCondition evaluates the condition on the candidate pairs of a batch
// (those with a build row), a bounded number of pairs at a time, and
// returns, per pair, whether it passes.
func (h *HashJoin) evalCondition(ctx context.Context, in arrow.Record, pp, bb []int32) ([]bool, error) {
	if h.cond.terms != nil {
		return h.evalSimple(ctx, in, pp, bb)
	}
	pass := make([]bool, len(pp))
	n := 0
	for _, b := range bb {
		if b >= 0 {
			n++
		}
	}
	idx, cp, cb := make([]int32, 0, n), make([]int32, 0, n), make([]int32, 0, n)
	for i, b := range bb {
		if b >= 0 {
			idx = append(idx, int32(i))
			cp = append(cp, pp[i])
			cb = append(cb, b)
		}
	}
	step := h.condPairs(in)
	for lo := 0; lo < len(idx); lo += step {
		hi := min(lo+step, len(idx))
		ok, err := h.evalPairs(ctx, in, cp[lo:hi], cb[lo:hi])
		if err != nil {
			return nil, err
		}
		for k, i := range idx[lo:hi] {
			pass[i] = ok[k]
		}
	}
	return pass, nil
}

// condPairs is how many pairs evalCondition evaluates at a time:
// max(joinBatchRows, in's rows), or fewer under a quota, so that the
// condition columns gathered for them (counted as outputRows counts an
// output batch's) and what evaluating them takes stay within a quarter of
// what the task's account has left; at least minJoinOutputRows.
func (h *HashJoin) condPairs(in arrow.Record) int {
	rows := max(joinBatchRows, int(in.NumRows()))
	if !h.quotaLimited() {
		return rows
	}
	a := h.t.Account
	left := a.Limit() - min(a.Limit(), a.InUse())
	probeCols, buildCols := h.cond.left, h.cond.right
	if !h.plan.probeLeft {
		probeCols, buildCols = h.cond.right, h.cond.left
	}
	pv, bv := columnsRecord(in, probeCols), columnsRecord(h.table.rec, buildCols)
	defer pv.Release()
	defer bv.Release()
	per, factor, staged := rowBytes(pv, len(probeCols))+rowBytes(bv, len(buildCols)), uint64(2), recordBytes(pv)
	if !h.t.HostVisible() {
		factor = 4
		staged += recordBytes(bv)
	}
	if left <= staged {
		return minJoinOutputRows
	}
	fit := (left - staged) / 4 / (factor * per)
	return int(max(min(uint64(rows), fit), minJoinOutputRows))
}

// evalPairs evaluates the condition on pairs (probe rows of in, build
// rows of the table), gathering only the columns it reads.
func (h *HashJoin) evalPairs(ctx context.Context, in arrow.Record, probeRows, buildRows []int32) ([]bool, error) {
	c := h.cond
	probeCols, buildCols := c.left, c.right
	if !h.plan.probeLeft {
		probeCols, buildCols = c.right, c.left
	}
	gather := func(rec arrow.Record, cols []int, rows []int32) ([]arrow.Array, error) {
		if len(cols) == 0 {
			return nil, nil
		}
		v := columnsRecord(rec, cols)
		defer v.Release()
		g, err := h.t.Gather(ctx, v, rows)
		if err != nil {
			return nil, err
		}
		return takeColumns(g), nil
	}
	pcols, err := gather(in, probeCols, probeRows)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(pcols)
	bcols, err := gather(h.table.rec, buildCols, buildRows)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(bcols)
	cols := append(append([]arrow.Array{}, pcols...), bcols...)
	if !h.plan.probeLeft {
		cols = append(append([]arrow.Array{}, bcols...), pcols...)
	}
	joined := array.NewRecord(c.fp.child.Schema(), cols, int64(len(probeRows)))
	defer joined.Release()
	return c.eval(ctx, joined)
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// condInProbe reports whether the probe itself tests the condition
// (device.ProbeCond): a simple condition of a semi, anti or existence join
// probing its left side, where only whether some candidate of a probe row
// passes matters. A null-aware anti join keeps the pair path.
func (h *HashJoin) condInProbe() bool {
	if h.cond == nil || h.cond.terms == nil || h.spec.NullAwareAnti {
		return false
	}
	m := h.plan.mode
	return m == modeSemi || m == modeAnti || m == modeExists
}

// probeWithCond probes the table with the keys of batch in (keys), the
// probe testing each candidate against the simple condition and writing
// per probe row its first passing match (or, where the plan asks, the row
// with -1): the pairs of an unconditioned first-match probe.
func (h *HashJoin) probeWithCond(ctx context.Context, in, keys arrow.Record) (pp, bb []int32, err error) {
	desc, release, err := h.simpleDesc(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	enc, err := desc.Encode()
	if err != nil {
		return nil, nil, err
	}
	dbuf, err := h.t.upload(ctx, enc)
	if err != nil {
		return nil, nil, err
	}
	defer dbuf.Free()
	return h.table.probe(ctx, h.t, keys, h.plan.probeFlags(false)|device.ProbeCond, dbuf)
}

// simpleDesc is the JoinCond descriptor of the simple condition over
// batch in and the table (pair fields unset), its build columns staged
// once per table (kept in c) and its probe columns staged here: release
// frees those, after the last op using the descriptor.
func (h *HashJoin) simpleDesc(ctx context.Context, in arrow.Record) (desc device.JoinCond, release func(), err error) {
	c := h.cond
	release = func() {}
	if c.table != h.table {
		c.dropBuild()
		cols := c.right
		if !h.plan.probeLeft {
			cols = c.left
		}
		if len(cols) > 0 {
			v := columnsRecord(h.table.rec, cols)
			st, err := h.t.stage(ctx, v)
			v.Release()
			if err != nil {
				return desc, release, fmt.Errorf("hash join: condition: %w", err)
			}
			c.buildSt = st
		}
		c.table = h.table
	}
	probeCols := c.left
	if !h.plan.probeLeft {
		probeCols = c.right
	}
	var probeSt *staged
	if len(probeCols) > 0 {
		v := columnsRecord(in, probeCols)
		st, err := h.t.stage(ctx, v)
		v.Release()
		if err != nil {
			return desc, release, fmt.Errorf("hash join: condition: %w", err)
		}
		probeSt = st
		release = probeSt.release
	}
	// an operand of the left side is a probe column when the probe side
	// is the left one, else a build column (and the right side the other way)
	column := func(right bool, k int) (device.Column, bool) {
		build := right == h.plan.probeLeft
		if build {
			return c.buildSt.cols[k], true
		}
		return probeSt.cols[k], false
	}
	desc = device.JoinCond{ProbeRows: uint64(in.NumRows()), BuildRows: uint64(h.table.rows)}
	for _, t := range c.terms {
		a, ab := column(t.aRight, t.a)
		b, bbld := column(t.bRight, t.b)
		desc.Terms = append(desc.Terms, device.JoinTerm{Cmp: t.cmp, ABuild: ab, BBuild: bbld, A: a, B: b})
	}
	if h.plan.mode == modeSemi || h.plan.mode == modeAnti || h.plan.mode == modeExists {
		desc.Flags = device.JoinCondFirstPass
	}
	return desc, release, nil
}

// evalSimple evaluates a simple condition (joinCondition.terms) with
// OpJoinCond over the pairs, a bounded number of pairs at a time (one op
// per engine core over each), and returns, per pair, whether it passes.
func (h *HashJoin) evalSimple(ctx context.Context, in arrow.Record, pp, bb []int32) ([]bool, error) {
	pass := make([]bool, len(pp))
	if len(pp) == 0 {
		return pass, nil
	}
	desc, release, err := h.simpleDesc(ctx, in)
	if err != nil {
		return nil, err
	}
	defer release()
	step := max(4*joinBatchRows, int(in.NumRows()))
	for lo := 0; lo < len(pp); lo += step {
		hi := min(lo+step, len(pp))
		if err := h.evalSimplePairs(ctx, &desc, pp[lo:hi], bb[lo:hi], pass[lo:hi]); err != nil {
			return nil, err
		}
	}
	return pass, nil
}

// evalSimplePairs runs OpJoinCond (desc, its pair fields set here) over
// pairs pp, bb and writes whether each passes into pass.
func (h *HashJoin) evalSimplePairs(ctx context.Context, desc *device.JoinCond, pp, bb []int32, pass []bool) error {
	t := h.t
	n := len(pp)
	// device memory is little-endian, as every host hados runs on
	pbuf, err := t.upload(ctx, unsafe.Slice((*byte)(unsafe.Pointer(&pp[0])), 4*n))
	if err != nil {
		return err
	}
	defer pbuf.Free()
	bbuf, err := t.upload(ctx, unsafe.Slice((*byte)(unsafe.Pointer(&bb[0])), 4*n))
	if err != nil {
		return err
	}
	defer bbuf.Free()
	out, err := t.Pool.Alloc(t.Account, uint64(n))
	if err != nil {
		return err
	}
	defer out.Free()
	desc.Pairs, desc.ProbeIdx, desc.BuildIdx, desc.Out = uint64(n), pbuf.Addr, bbuf.Addr, out.Addr
	enc, err := desc.Encode()
	if err != nil {
		return err
	}
	dbuf, err := t.upload(ctx, enc)
	if err != nil {
		return err
	}
	defer dbuf.Free()
	var ops []device.Op
	for _, pr := range t.parts(n) {
		ops = append(ops, device.Op{Code: device.OpJoinCond, Src: dbuf.Addr, Len: dbuf.Size, Args: [4]uint64{uint64(pr[0]), uint64(pr[1])}})
	}
	if _, errs := t.exec(ctx, ops); firstError(errs) != nil {
		return wrapOp("hash join: condition", firstError(errs))
	}
	raw, err := readDev(ctx, t, out, n, nil)
	if err != nil {
		return err
	}
	for i, v := range raw {
		pass[i] = v != 0
	}
	return nil
}
