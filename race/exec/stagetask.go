package exec

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// This file runs one stage of a plan for one partition, the way a host
// engine that does its own scheduling and shuffles (Spark, through the C
// ABI) uses hados: Stages describes the DAG, RunStage runs one task of it
// with the outputs of the stages it reads handed in as inputs.

// The kinds of stages, as StageInfo.Kind names them.
const (
	StageShuffleMap = "shuffle_map" // ends at an Exchange: its rows go to a shuffle
	StageBroadcast  = "broadcast"   // ends at a BroadcastExchange: every consumer task reads all its rows
	StageGather     = "gather"      // the local form of a TopN or limit: one consumer task reads all its rows
	StageResult     = "result"      // the query's result
)

// The kinds of stage inputs, as StageInput.Kind names them.
const (
	InputShuffle   = "shuffle"   // one reduce partition of a shuffle_map stage's output
	InputBroadcast = "broadcast" // every row of a broadcast stage
	InputGather    = "gather"    // every row of a gather stage
	InputHost      = "host"      // rows a host operator produces (a RowToColumnar over the host)
)

// PartitionColumn is the first column of a shuffle_map stage's output
// when hados computes partition ids: the reduce partition of each row
// (every batch holds rows of one partition).
const PartitionColumn = "__partition"

// StageInfo describes one stage of a plan.
type StageInfo struct {
	ID   int    `json:"id"`
	Kind string `json:"kind"`
	// Name says which operator the stage ends at.
	Name string `json:"name"`
	// Deps are the stages whose outputs it reads (each has a smaller index
	// in the list Stages returns).
	Deps []int `json:"deps"`
	// Inputs are what each task of the stage reads, in the order RunStage
	// takes them (Env.Inputs).
	Inputs []StageInput `json:"inputs"`
	// Partitions is the number of tasks: the splits of its scans (files),
	// the partitions of the shuffles it reads, their sum under a union.
	Partitions int `json:"partitions"`
	// Shuffle is a shuffle_map stage's output partitioning.
	Shuffle *ShuffleInfo `json:"shuffle,omitempty"`
	// Output are the stage's output columns as planned (a shuffle_map
	// stage's with PartitionColumn first when Shuffle.PartitionIDs).
	Output []Column `json:"output"`
}

// StageInput is one input of a stage's tasks.
type StageInput struct {
	Kind string `json:"kind"`
	// Stage produces the input (shuffle, broadcast, gather); 0 for a host input.
	Stage int `json:"stage,omitempty"`
	// Name is the operator reading it.
	Name string `json:"name"`
	// Columns are the columns the input must have (a shuffle input may
	// have PartitionColumn first).
	Columns []Column `json:"columns"`
}

// ShuffleInfo is how a shuffle_map stage partitions its output.
type ShuffleInfo struct {
	Mode       string   `json:"mode"` // hash, range, roundrobin, single
	Partitions int      `json:"partitions"`
	Keys       []string `json:"keys,omitempty"`
	// PartitionIDs is true when the output carries PartitionColumn
	// (hash, round robin, single). A range exchange's bounds need a sample
	// of every map task's keys first: its output has no ids and the host
	// engine partitions it (Spark's RangePartitioner).
	PartitionIDs bool `json:"partition_ids"`
}

// Column is one output column.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// stageLeaf is one input of a stage: the node reading it and how.
type stageLeaf struct {
	node *rules.Node
	kind leafKind
	dep  *stage
}

// Stages plans res and describes its stages in dependency order (a
// stage's dependencies before it; the result stage last). Env's Runtime
// and Warehouse are used to count a scan's splits. Scalar subqueries are
// not stages of their own: a task of a stage that reads one runs it.
func Stages(env Env, res *rules.Result) ([]StageInfo, error) {
	q, err := newQuery(env, res)
	if err != nil {
		return nil, err
	}
	defer q.close()
	root, err := q.plan(res.Root)
	if err != nil {
		return nil, err
	}
	var out []StageInfo
	seen := map[*stage]bool{}
	var visit func(s *stage) error
	visit = func(s *stage) error {
		if seen[s] {
			return nil
		}
		seen[s] = true
		for _, d := range s.deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		info, err := q.describe(s)
		if err != nil {
			return err
		}
		out = append(out, info)
		return nil
	}
	if err := visit(root); err != nil {
		return nil, err
	}
	return out, nil
}

// describe is s's StageInfo.
func (q *query) describe(s *stage) (StageInfo, error) {
	info := StageInfo{ID: s.id, Kind: stageKindName(s), Name: s.name(), Deps: []int{}, Inputs: []StageInput{}}
	for _, d := range s.deps {
		info.Deps = append(info.Deps, d.id)
	}
	for _, l := range q.stageLeaves(s) {
		in := StageInput{Name: label(l.node), Columns: columns(q.inputAttrs(l))}
		switch l.kind {
		case leafShuffle:
			in.Kind = InputShuffle
		case leafBroadcast:
			in.Kind = InputBroadcast
		case leafGather:
			in.Kind = InputGather
		default:
			in.Kind = InputHost
		}
		if l.dep != nil {
			in.Stage = l.dep.id
		}
		info.Inputs = append(info.Inputs, in)
	}
	n, err := q.stagePartitions(s)
	if err != nil {
		return info, err
	}
	info.Partitions = n
	attrs := s.top.Output()
	if info.Kind == StageGather { // the local form: the child's rows, not projected yet
		attrs = child(s.top).Output()
	}
	if s.kind == mapStage {
		sh, err := shuffleInfo(s.at)
		if err != nil {
			return info, err
		}
		info.Shuffle = sh
		if sh.PartitionIDs {
			info.Output = append(info.Output, Column{Name: PartitionColumn, Type: "int"})
		}
	}
	info.Output = append(info.Output, columns(attrs)...)
	return info, nil
}

func columns(attrs []plan.Attr) []Column {
	out := make([]Column, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, Column{Name: a.Name, Type: a.Type.String()})
	}
	return out
}

// inputAttrs are the columns a stage input carries: the reading node's
// output, or for a gather the local form's (its child's: not projected).
func (q *query) inputAttrs(l stageLeaf) []plan.Attr {
	if l.kind == leafGather {
		return child(resolve(l.node)).Output()
	}
	return l.node.Output()
}

func stageKindName(s *stage) string {
	switch {
	case s.kind == mapStage:
		return StageShuffleMap
	case s.at == nil:
		return StageResult
	case s.at.Kind == rules.DpuBroadcastExchange:
		return StageBroadcast
	}
	return StageGather
}

// shuffleInfo describes an exchange's partitioning.
func shuffleInfo(at *rules.Node) (*ShuffleInfo, error) {
	if at.Device == nil || at.Device.Partitioning == nil {
		return nil, notExecutable(at, "no converted partitioning")
	}
	p := at.Device.Partitioning
	sh := &ShuffleInfo{Mode: p.Kind.String(), Partitions: reducePartitions(p), PartitionIDs: p.Kind != plan.PartRange}
	for _, k := range p.Keys {
		sh.Keys = append(sh.Keys, k.String())
	}
	for _, o := range p.Orders {
		sh.Keys = append(sh.Keys, o.Expr.String())
	}
	return sh, nil
}

// reducePartitions is the number of partitions an exchange produces.
func reducePartitions(p *rules.Partitioning) int {
	if p.Kind == plan.PartSingle {
		return 1
	}
	return max(p.N, 1)
}

// stageLeaves lists s's inputs depth first, left to right.
func (q *query) stageLeaves(s *stage) []stageLeaf {
	var out []stageLeaf
	var walk func(n *rules.Node)
	walk = func(n *rules.Node) {
		if kind, dep := q.leaf(s, n); kind != notLeaf {
			out = append(out, stageLeaf{node: n, kind: kind, dep: dep})
			return
		}
		if n.Kind == rules.RowToColumnar && len(n.Children) == 1 && !n.Children[0].Kind.OnDevice() && !n.Children[0].IsEmptyInput() {
			out = append(out, stageLeaf{node: n, kind: leafInput})
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(s.top)
	return out
}

// stagePartitions counts s's tasks when the host engine feeds its
// shuffles: each reduce partition is one group (no coalescing: the host
// engine decides that).
func (q *query) stagePartitions(s *stage) (int, error) {
	s.groups = map[*rules.Node][][2]int{}
	for _, l := range q.stageLeaves(s) {
		if l.kind != leafShuffle {
			continue
		}
		r := resolve(l.node)
		if r.Device == nil || r.Device.Partitioning == nil {
			return 0, notExecutable(l.node, "no converted partitioning")
		}
		n := reducePartitions(r.Device.Partitioning)
		g := make([][2]int, n)
		for i := range g {
			g[i] = [2]int{i, i + 1}
		}
		s.groups[l.node] = g
	}
	n, err := q.partitions(s, s.top)
	if err != nil {
		return 0, fmt.Errorf("exec: %s: %w", s.name(), err)
	}
	return max(n, 1), nil
}

// RunStage runs partition p of stage id (as Stages numbers them) and
// returns its output: for a shuffle_map stage its rows with
// PartitionColumn first (one partition per record) unless the exchange
// is a range one; for the others the stage's rows. env.Inputs are the
// stage's inputs in StageInfo.Inputs order: for a shuffle input, the rows
// of reduce partition p of the producing stage's output (with or without
// its PartitionColumn); for a broadcast or gather input, every row of the
// producing stage. RunStage opens and closes them. The task reads its
// scans' files from env.Warehouse and runs the scalar subqueries its
// operators read. The caller releases the result.
func RunStage(ctx context.Context, env Env, res *rules.Result, id, p int) (*Result, error) {
	q, err := newQuery(env, res)
	if err != nil {
		return nil, err
	}
	defer q.close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q.cancel = cancel
	if err := q.makeDirs(); err != nil {
		return nil, err
	}
	if _, err := q.plan(res.Root); err != nil {
		return nil, err
	}
	s, err := q.stageByID(id)
	if err != nil {
		return nil, err
	}
	q.alone = s
	n, err := q.stagePartitions(s)
	if err != nil {
		return nil, err
	}
	if p < 0 || p >= n {
		return nil, fmt.Errorf("%w: exec: %s has partitions 0..%d, not %d", device.ErrInvalid, s.name(), n-1, p)
	}
	if err := q.bindInputs(ctx, s); err != nil {
		return nil, err
	}
	if err := q.stageScalars(ctx, s); err != nil {
		return nil, err
	}
	s.tasks, s.parts = 1, make([][]arrow.Record, n)
	s.started.Store(true)
	if err := q.runTask(ctx, s, p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	out := &Result{Schema: s.schema, Records: s.parts[p]}
	s.parts[p] = nil
	s.mu.Unlock()
	return q.finish(out)
}

func (q *query) stageByID(id int) (*stage, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.stages {
		if s.id == id {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w: exec: the plan has no stage %d (it has stages 1..%d)", device.ErrInvalid, id, len(q.stages))
}

// bindInputs hands s's inputs to its leaves: a host input is read where
// it is, a shuffle input replaces the shuffle read, a broadcast or gather
// input is read whole into its producing stage's records (the first input
// of a stage read twice; the other is closed unread).
func (q *query) bindInputs(ctx context.Context, s *stage) error {
	leaves := q.stageLeaves(s)
	if len(leaves) != len(q.env.Inputs) {
		return fmt.Errorf("%w: exec: %s reads %d inputs, %d given", device.ErrInvalid, s.name(), len(leaves), len(q.env.Inputs))
	}
	q.inputs = map[*rules.Node]int{}
	q.external = map[*rules.Node]operators.Operator{}
	for i, l := range leaves {
		in := q.env.Inputs[i]
		if in == nil {
			return fmt.Errorf("%w: exec: %s: input %d is missing", device.ErrInvalid, s.name(), i)
		}
		want, err := schemaOf(q.inputAttrs(l))
		if err != nil {
			return notExecutable(l.node, err.Error())
		}
		src := &stageInput{Operator: in, i: i, name: label(l.node), want: want}
		if src.schema, src.strip, err = src.check(in.Schema()); err != nil {
			return fmt.Errorf("exec: %s: %w", s.name(), err)
		}
		switch l.kind {
		case leafInput:
			q.inputs[l.node] = i
		case leafShuffle:
			q.external[l.node] = src
		default:
			if l.dep == nil {
				return notExecutable(l.node, "its stage was not planned")
			}
			if l.dep.schema != nil {
				break
			}
			recs, err := operators.Collect(ctx, src)
			if err != nil {
				return fmt.Errorf("exec: %s: %w", s.name(), err)
			}
			l.dep.schema, l.dep.parts = src.Schema(), [][]arrow.Record{recs}
		}
	}
	return nil
}

// stageScalars runs the scalar subqueries s's own operators read.
func (q *query) stageScalars(ctx context.Context, s *stage) error {
	for _, id := range q.stageScalarIDs(s) {
		if err := q.scalar(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// stageScalarIDs are the scalar subqueries s's own operators read.
func (q *query) stageScalarIDs(s *stage) []int64 {
	var ids []int64
	var walk func(n *rules.Node)
	walk = func(n *rules.Node) {
		if n == nil {
			return
		}
		if kind, _ := q.leaf(s, n); kind != notLeaf {
			return
		}
		if n.Device != nil {
			ids = append(ids, n.Device.Scalars...)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(s.top)
	return ids
}

// stageInput is one input of a stage run on its own: it drops a leading
// PartitionColumn and checks the columns against the plan's.
type stageInput struct {
	operators.Operator
	i      int
	name   string
	want   *arrow.Schema
	schema *arrow.Schema
	strip  bool
}

func (s *stageInput) Schema() *arrow.Schema {
	if s.schema == nil {
		s.schema, s.strip, _ = s.check(s.Operator.Schema())
	}
	return s.schema
}

// check matches an input's schema with the plan's columns: the same
// logical types in order, after an optional leading PartitionColumn.
func (s *stageInput) check(got *arrow.Schema) (*arrow.Schema, bool, error) {
	fields := got.Fields()
	strip := len(fields) == s.want.NumFields()+1 && fields[0].Name == PartitionColumn
	if strip {
		fields = fields[1:]
	}
	if len(fields) != s.want.NumFields() {
		return got, false, fmt.Errorf("%w: stage input %d (%s) has %d columns, the plan reads %d", device.ErrInvalid, s.i, s.name, len(fields), s.want.NumFields())
	}
	for c, f := range fields {
		if !sameLogical(f.Type, s.want.Field(c).Type) {
			return got, false, fmt.Errorf("%w: stage input %d (%s) column %d (%s) is %s, the plan reads %s", device.ErrInvalid, s.i, s.name, c, f.Name, f.Type, s.want.Field(c).Type)
		}
	}
	if !strip {
		return got, false, nil
	}
	return arrow.NewSchema(slices.Clone(fields), nil), true, nil
}

func (s *stageInput) Open(ctx context.Context) error {
	if err := s.Operator.Open(ctx); err != nil {
		return err
	}
	var err error
	s.schema, s.strip, err = s.check(s.Operator.Schema())
	return err
}

func (s *stageInput) Next(ctx context.Context) (arrow.Record, error) {
	r, err := s.Operator.Next(ctx)
	if r == nil || err != nil || !s.strip {
		return r, err
	}
	defer r.Release()
	if int(r.NumCols()) != s.schema.NumFields()+1 {
		return nil, fmt.Errorf("%w: stage input %d (%s): a batch of %d columns", device.ErrInvalid, s.i, s.name, r.NumCols())
	}
	return array.NewRecord(s.schema, r.Columns()[1:], r.NumRows()), nil
}

// sameLogical reports whether two Arrow types are the same Spark type
// (decimal64 and decimal128 of one precision and scale, utf8 in any
// layout).
func sameLogical(a, b arrow.DataType) bool {
	x, errA := types.FromArrow(a)
	y, errB := types.FromArrow(b)
	return errA == nil && errB == nil && x.Kind == y.Kind && x.Precision == y.Precision && x.Scale == y.Scale
}
