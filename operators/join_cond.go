package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
)

// joinCondition evaluates a join's extra condition on the device: a
// FilterProject-style pipeline projecting the condition as one boolean
// column over the candidate pairs' columns it reads — only those: the
// condition is rewritten over the left columns it uses, then the right
// columns it uses, so a candidate pair gathers just them (the output rows
// are gathered afterwards, in full, only for the pairs that pass).
type joinCondition struct {
	fp          *FilterProject
	left, right []int // the columns of each side the condition reads, in pipeline order
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
	if err := fp.Compile(); err != nil {
		fp.Close()
		return nil, fmt.Errorf("hash join: condition %s: %w", cond, err)
	}
	c.fp = fp
	return c, nil
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

func (c *joinCondition) close() { c.fp.Close() }

// evalCondition evaluates the condition on the candidate pairs of a batch
// (those with a build row), a bounded number of pairs at a time, and
// returns, per pair, whether it passes.
func (h *HashJoin) evalCondition(ctx context.Context, in arrow.Record, pp, bb []int32) ([]bool, error) {
	pass := make([]bool, len(pp))
	var idx, cp, cb []int32
	for i, b := range bb {
		if b >= 0 {
			idx = append(idx, int32(i))
			cp = append(cp, pp[i])
			cb = append(cb, b)
		}
	}
	step := max(joinBatchRows, int(in.NumRows()))
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
