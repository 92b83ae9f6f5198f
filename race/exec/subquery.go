package exec

import (
	"context"
	"fmt"
	"sync"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// ErrScalarSubquery is wrapped when a scalar subquery returns more than
// one row (or not one column).
var ErrScalarSubquery = fmt.Errorf("scalar subquery returned more than one row")

// scalarRun is one scalar subquery of the query: the stages computing it,
// planned before the tree that reads it, and its run (once, by the first
// stage that reads its value; the others wait for it).
type scalarRun struct {
	id   int64
	name string
	sq   *plan.Subquery
	root *stage
	once sync.Once
	err  error
}

// planTree plans the stages computing tree: first, once each, the scalar
// subqueries its operators read (and the ones those read), each with its
// runtime join filters, then tree's own stages and theirs. The stages of
// a subquery are sealed against the runtime filters of the trees planned
// after it, as they were when a subquery ran before the next tree was
// planned. Nothing runs yet: each stage computes the subqueries its own
// operators read when its inputs are done (runStages), so the stages
// that read none (and the subqueries themselves) run side by side.
func (q *query) planTree(tree *rules.Node) (*stage, error) {
	for _, id := range scalarIDs(tree) {
		if _, err := q.planScalar(id); err != nil {
			return nil, err
		}
	}
	root, err := q.plan(tree)
	if err != nil {
		return nil, err
	}
	q.planRuntimeFilters()
	return root, nil
}

// scalarIDs are the scalar subqueries tree's operators read, in tree
// order (a reused exchange's too).
func scalarIDs(tree *rules.Node) []int64 {
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
	return ids
}

// planScalar plans scalar subquery id's stages once (planTree) and
// returns its run. Planning happens on one goroutine: before the stages
// of a Run start, or a stage run on its own computes its subqueries
// (RunStage) one after the other.
func (q *query) planScalar(id int64) (*scalarRun, error) {
	q.mu.Lock()
	r := q.sqRuns[id]
	q.mu.Unlock()
	if r != nil {
		return r, nil
	}
	tree, sq, err := q.res.ScalarSubquery(id)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("scalar-subquery#%d (Subquery:%d of operator (%d))", id, sq.ID, sq.HostID)
	if tree == nil {
		return nil, fmt.Errorf("%w: exec: %s was not converted", ErrNotExecutable, name)
	}
	root, err := q.planTree(tree)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	seal(root)
	r = &scalarRun{id: id, name: name, sq: sq, root: root}
	q.mu.Lock()
	if q.sqRuns == nil {
		q.sqRuns = map[int64]*scalarRun{}
	}
	q.sqRuns[id] = r
	q.mu.Unlock()
	return r, nil
}

// seal marks root and every stage it depends on as planned for an
// earlier tree (stage.fixed).
func seal(root *stage) {
	for _, s := range stagesBelow(root) {
		s.sealed.Store(true)
	}
}

// stagesBelow lists root and every stage it depends on, each once, a
// stage after the stages it depends on.
func stagesBelow(root *stage) []*stage {
	var all []*stage
	seen := map[*stage]bool{}
	var visit func(s *stage)
	visit = func(s *stage) {
		if seen[s] {
			return
		}
		seen[s] = true
		for _, d := range s.deps {
			visit(d)
		}
		all = append(all, s)
	}
	visit(root)
	return all
}

// scalar computes scalar subquery id and binds its value: the single
// row's value, a typed null when it returns no row, an error naming the
// subquery when it returns more. It runs once per query; a concurrent
// caller waits for the first one's run.
func (q *query) scalar(ctx context.Context, id int64) error {
	q.mu.Lock()
	_, done := q.scalars[id]
	q.mu.Unlock()
	if done {
		return nil
	}
	r, err := q.planScalar(id)
	if err != nil {
		return err
	}
	r.once.Do(func() { r.err = q.runScalar(ctx, r) })
	return r.err
}

// startScalars starts computing the scalar subqueries stage s's own
// operators read, beside its wait for its inputs, and returns the wait
// for them (their first error). The wait must be called.
func (q *query) startScalars(ctx context.Context, s *stage) func() error {
	ids := q.stageScalarIDs(s)
	if len(ids) == 0 {
		return func() error { return nil }
	}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = q.scalar(ctx, id)
		}()
	}
	return func() error {
		wg.Wait()
		return firstCause(errs)
	}
}

// runScalar runs the stages of r and binds its value.
func (q *query) runScalar(ctx context.Context, r *scalarRun) error {
	if err := q.runStages(ctx, r.root); err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	t := r.sq.HostExpr.Type
	var value any
	rows := int64(0)
	for _, rec := range r.root.records() {
		if rec.NumCols() != 1 {
			return fmt.Errorf("exec: %s: %w: %d columns", r.name, ErrScalarSubquery, rec.NumCols())
		}
		if rec.NumRows() > 0 && rows == 0 {
			value = expr.ValueAt(rec.Column(0), 0)
		}
		rows += rec.NumRows()
	}
	if rows > 1 {
		return fmt.Errorf("exec: %s: %w (%d rows)", r.name, ErrScalarSubquery, rows)
	}
	q.mu.Lock()
	q.scalars[r.id] = expr.Literal(value, t)
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
