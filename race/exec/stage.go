package exec

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// stageKind is what a stage's tasks do with their output.
type stageKind uint8

const (
	// mapStage writes shuffle files for an exchange.
	mapStage stageKind = iota
	// collectStage copies its output to host records: the query's result,
	// a broadcast, or the input of a single-task TopN or limit.
	collectStage
)

// stage is one stage of the DAG: the subtree from top down to the
// exchanges, broadcasts and gathers below it (its dependencies), run as
// one task per partition. It owns its output: shuffle files (in the
// query's directory), host records and broadcast tables, released by
// release.
type stage struct {
	id   int
	kind stageKind
	top  *rules.Node
	// at is the boundary node the stage produces: the DpuExchange of a map
	// stage, the DpuBroadcastExchange of a broadcast, the TopN or limit of
	// a gather (whose top is that node, built in its local form); nil for
	// a tree's result stage.
	at   *rules.Node
	deps []*stage

	started atomic.Bool
	// sealed: planned for a scalar subquery, before the trees that read
	// it (fixed)
	sealed atomic.Bool
	done   chan struct{}
	err    error

	// map stages
	shuffle *shuffleOut
	// the reduce partition groups of each shuffle the stage reads, by
	// reading node (planGroups)
	groups map[*rules.Node][][2]int
	// collect stages: the output schema and records, by partition
	mu     sync.Mutex
	schema *arrow.Schema
	parts  [][]arrow.Record
	tables map[string]*tableEntry // broadcast tables by device
	tasks  int
	tries  atomic.Int64
	// finished counts the stage's tasks that ended (taskCores)
	finished atomic.Int64
	begun    time.Duration // from the query's start (q.t0)
	elapsed  time.Duration
}

func (s *stage) name() string {
	switch {
	case s.at == nil:
		return fmt.Sprintf("stage %d (result of %s)", s.id, label(s.top))
	case s.kind == mapStage:
		return fmt.Sprintf("stage %d (map side of %s)", s.id, label(s.at))
	}
	return fmt.Sprintf("stage %d (%s)", s.id, label(s.at))
}

func label(n *rules.Node) string {
	if n.Spark != nil {
		return fmt.Sprintf("(%d) %s", n.Spark.ID, n.Name())
	}
	return n.Name()
}

// prio is the task slot priority of the stage's tasks.
func (s *stage) prio() int {
	if s.kind == collectStage && s.at != nil && s.at.Kind == rules.DpuBroadcastExchange {
		return prioBroadcast
	}
	return prioNormal
}

// start claims the stage for running; false when it already ran (or
// runs) for another tree of the query.
func (s *stage) start() bool { return s.started.CompareAndSwap(false, true) }

// fixed reports a stage that runtime filters planned for a later tree
// must leave alone: it started, or it computes a scalar subquery of that
// tree (planned before it, as if it had run already).
func (s *stage) fixed() bool { return s.started.Load() || s.sealed.Load() }

func (s *stage) finish(err error) {
	s.err = err
	close(s.done)
}

// wait waits for the stage to end and returns its error.
func (s *stage) wait(ctx context.Context) error {
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (s *stage) waitDeps(ctx context.Context) error {
	for _, d := range s.deps {
		if err := d.wait(ctx); err != nil {
			return err
		}
	}
	return nil
}

// records returns the collected records in partition order (the stage
// keeps them; callers retain what they keep).
func (s *stage) records() []arrow.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []arrow.Record
	for _, p := range s.parts {
		out = append(out, p...)
	}
	return out
}

// takeRecords hands the collected records over to the caller.
func (s *stage) takeRecords() []arrow.Record {
	out := s.records()
	s.mu.Lock()
	s.parts = nil
	s.mu.Unlock()
	return out
}

// release frees the stage's outputs (shuffle files go with the query's
// directory).
func (s *stage) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shuffle != nil {
		s.shuffle.release() // map outputs kept in memory (shuffle.go)
	}
	for _, p := range s.parts {
		for _, r := range p {
			r.Release()
		}
	}
	s.parts = nil
	for _, t := range s.tables {
		t.release()
	}
	s.tables = nil
}

// leafKind says how a stage reads a node: as an operator of its own, or
// as the output of another stage (or of the host).
type leafKind uint8

const (
	notLeaf leafKind = iota
	leafShuffle
	leafBroadcast
	leafGather
	leafInput
)

// resolve follows a ReusedExchange to the exchange it reuses.
func resolve(n *rules.Node) *rules.Node {
	if n.Kind == rules.DpuReusedExchange && n.Device != nil && n.Device.Reuses != nil {
		return n.Device.Reuses
	}
	return n
}

// isGather reports the operators that need all of their input in one
// task: TakeOrderedAndProject, CollectLimit and GlobalLimit. Each task
// computes the local form (the first limit+offset rows) and one task the
// final one over all of them.
func isGather(n *rules.Node) bool {
	if n.Kind == rules.DpuTopN {
		return true
	}
	return n.Kind == rules.DpuLimit && n.Spark != nil && (n.Spark.Op == plan.OpCollectLimit || n.Spark.Op == plan.OpGlobalLimit)
}

// leaf classifies n as seen from stage s.
func (q *query) leaf(s *stage, n *rules.Node) (leafKind, *stage) {
	if n == s.top && s.at == n {
		return notLeaf, nil // a gather stage builds the local form of its top
	}
	if _, ok := q.inputs[n]; ok {
		return leafInput, nil
	}
	r := resolve(n)
	q.mu.Lock()
	dep := q.byNode[r]
	q.mu.Unlock()
	switch {
	case r.Kind == rules.DpuExchange:
		return leafShuffle, dep
	case r.Kind == rules.DpuBroadcastExchange:
		return leafBroadcast, dep
	case isGather(r):
		return leafGather, dep
	}
	return notLeaf, nil
}

// plan builds (or finds) the stages computing tree, and returns its
// result stage.
func (q *query) plan(tree *rules.Node) (*stage, error) {
	s, err := q.newStage(collectStage, tree, nil)
	if err == nil && tree == q.res.Root {
		q.result = s
	}
	return s, err
}

func (q *query) newStage(kind stageKind, top, at *rules.Node) (*stage, error) {
	q.mu.Lock()
	s := &stage{id: len(q.stages) + 1, kind: kind, top: top, at: at, done: make(chan struct{})}
	q.stages = append(q.stages, s)
	if at != nil {
		q.byNode[at] = s
	}
	q.mu.Unlock()
	if err := q.findDeps(s, top); err != nil {
		return nil, err
	}
	return s, nil
}

// depStage returns the stage producing boundary node at, creating it.
func (q *query) depStage(at *rules.Node) (*stage, error) {
	q.mu.Lock()
	s := q.byNode[at]
	q.mu.Unlock()
	if s != nil {
		return s, nil
	}
	switch {
	case at.Kind == rules.DpuExchange:
		return q.newStage(mapStage, child(at), at)
	case at.Kind == rules.DpuBroadcastExchange:
		return q.newStage(collectStage, child(at), at)
	}
	return q.newStage(collectStage, at, at) // a gather
}

func child(n *rules.Node) *rules.Node {
	if len(n.Children) == 0 {
		return nil
	}
	return n.Children[0]
}

// findDeps walks the stage's subtree down to its boundaries.
func (q *query) findDeps(s *stage, n *rules.Node) error {
	if n == nil {
		return fmt.Errorf("%w: exec: %s: an operator without its child", ErrNotExecutable, s.name())
	}
	if n != s.top || s.at != n {
		if _, ok := q.inputs[n]; ok {
			return nil
		}
		r := resolve(n)
		if r.Kind == rules.DpuExchange || r.Kind == rules.DpuBroadcastExchange || isGather(r) {
			dep, err := q.depStage(r)
			if err != nil {
				return err
			}
			for _, d := range s.deps {
				if d == dep {
					return nil
				}
			}
			s.deps = append(s.deps, dep)
			return nil
		}
		if n.Kind == rules.DpuReusedExchange {
			return notExecutable(n, "it reuses an exchange that was not converted")
		}
	}
	if n.Kind == rules.KindHost && !n.IsEmptyInput() {
		return notExecutable(n, fmt.Sprintf("it stays on the host: %s", n.Verdict.Reason))
	}
	for _, c := range n.Children {
		if err := q.findDeps(s, c); err != nil {
			return err
		}
	}
	return nil
}

func (q *query) stageStats() []StageStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]StageStats, 0, len(q.stages))
	for _, s := range q.stages {
		if !s.started.Load() {
			continue
		}
		out = append(out, StageStats{ID: s.id, Name: s.name(), Tasks: s.tasks, Attempts: int(s.tries.Load()), Start: s.begun, Time: s.elapsed})
	}
	return out
}
