package exec

import (
	"context"
	"fmt"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/rules"
)

// ErrScalarSubquery is wrapped when a scalar subquery returns more than
// one row (or not one column).
var ErrScalarSubquery = fmt.Errorf("scalar subquery returned more than one row")

// prepareScalars runs, once each, the scalar subqueries that tree's
// operators read (and the ones those read), before tree's stages run.
func (q *query) prepareScalars(ctx context.Context, tree *rules.Node) error {
	var ids []int64
	seen := map[*rules.Node]bool{}
	var walk func(n *rules.Node)
	walk = func(n *rules.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Device != nil {
			ids = append(ids, n.Device.Scalars...)
			walk(n.Device.Reuses)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(tree)
	for _, id := range ids {
		if err := q.scalar(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// scalar computes scalar subquery id and binds its value: the single
// row's value, a typed null when it returns no row, an error naming the
// subquery when it returns more.
func (q *query) scalar(ctx context.Context, id int64) error {
	q.mu.Lock()
	_, done := q.scalars[id]
	q.mu.Unlock()
	if done {
		return nil
	}
	tree, sq, err := q.res.ScalarSubquery(id)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("scalar-subquery#%d (Subquery:%d of operator (%d))", id, sq.ID, sq.HostID)
	if tree == nil {
		return fmt.Errorf("%w: exec: %s was not converted", ErrNotExecutable, name)
	}
	st, err := q.runTree(ctx, tree)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	t := sq.HostExpr.Type
	var value any
	rows := int64(0)
	for _, r := range st.records() {
		if r.NumCols() != 1 {
			return fmt.Errorf("exec: %s: %w: %d columns", name, ErrScalarSubquery, r.NumCols())
		}
		if r.NumRows() > 0 && rows == 0 {
			value = expr.ValueAt(r.Column(0), 0)
		}
		rows += r.NumRows()
	}
	if rows > 1 {
		return fmt.Errorf("exec: %s: %w (%d rows)", name, ErrScalarSubquery, rows)
	}
	q.mu.Lock()
	q.scalars[id] = expr.Literal(value, t)
	q.mu.Unlock()
	return nil
}

// bound is n's payload with its scalar subqueries' values bound, converted
// once per query.
func (q *query) bound(n *rules.Node) (*rules.Payload, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if p := q.payloads[n]; p != nil {
		return p, nil
	}
	values := make(convert.Bindings, len(q.scalars))
	for k, v := range q.scalars {
		values[k] = v
	}
	p, err := q.res.Bind(n, values)
	if err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	q.payloads[n] = p
	return p, nil
}
