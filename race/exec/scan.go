package exec

import (
	"context"
	"math/big"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/scan"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// scanOp is a Parquet scan as an operator: it decodes straight into the
// target's memory (device memory on a host-visible device).
type scanOp struct {
	opt    scan.Options
	schema *arrow.Schema
	s      *scan.Scanner
	stats  operators.Stats
	last   scan.Stats // the scanner's, kept at Close
}

// scan reads split p of a table (one file); p < 0 or a table without
// files reads nothing.
func (b *builder) scan(n *rules.Node, p int) (operators.Operator, error) {
	si := n.Spark.Scan
	if si == nil || si.Format != "parquet" {
		return nil, notExecutable(n, "only Parquet scans are executable")
	}
	splits, err := b.q.splits(n)
	if err != nil {
		return nil, err
	}
	if p < 0 || p >= len(splits) {
		return b.empty(n)
	}
	var mem memory.Allocator = hmem.NewHostAllocator(b.target.Host, b.target.Account)
	if b.target.HostVisible() {
		if a, err := hmem.NewDeviceAllocator(b.target.Pool, b.target.Account); err == nil {
			mem = a
		}
	}
	sp := splits[p]
	opt := scan.Options{Files: sp.files(), Alloc: mem, BatchRows: scanBatchRows}
	for _, pc := range sp.pieces {
		if pc.rgHi > 0 {
			opt.FileRowGroups = make([][2]int, len(sp.pieces))
			for i, pc := range sp.pieces {
				opt.FileRowGroups[i] = [2]int{pc.rgLo, pc.rgHi}
			}
			break
		}
	}
	if len(splits) > 1 {
		opt.Parallelism = 1 // the other splits are other tasks
	}
	fields := make([]arrow.Field, 0, len(n.Spark.Output))
	inFile := map[string]bool{}
	for _, a := range si.ReadSchema {
		inFile[a.Name] = true
	}
	for _, a := range n.Spark.Output {
		// a column Spark does not read from the files is a partition
		// column: its value is in the file's path (col=value directories)
		part := len(si.ReadSchema) > 0 && !inFile[a.Name]
		opt.Columns = append(opt.Columns, scan.Column{Name: a.Name, Type: a.Type, Nullable: true, Partition: part})
		at, err := types.ToArrow(a.Type)
		if err != nil {
			return nil, notExecutable(n, err.Error())
		}
		fields = append(fields, arrow.Field{Name: a.Name, Type: at, Nullable: true})
	}
	for _, f := range si.PushedFilters {
		if sf, ok := sourceFilter(f); ok { // pushdown only prunes; the exact filter runs on the device
			opt.Filters = append(opt.Filters, sf)
		}
	}
	for _, f := range si.PartitionFilters {
		if sf, ok := sourceFilter(f); ok { // prunes files; the exact filter runs on the device (partitionFilter)
			opt.PartitionFilters = append(opt.PartitionFilters, sf)
		}
	}
	op := &scanOp{opt: opt, schema: arrow.NewSchema(fields, nil)}
	return b.track(label(n), op, op.extra), nil
}

// extra adds the scan's bytes and pruned row groups to its statistics.
func (s *scanOp) extra(o *OperatorStats) {
	st := s.last
	o.Bytes += st.BytesRead
	o.RowGroupsPruned += st.RowGroupsPrunedStats + st.RowGroupsPrunedPageIndex + st.RowGroupsPrunedDictionary + st.RowGroupsPrunedBloom
}

func (s *scanOp) Schema() *arrow.Schema { return s.schema }

func (s *scanOp) Open(ctx context.Context) error {
	sc, err := scan.Open(ctx, s.opt)
	if err != nil {
		return err
	}
	s.s = sc
	s.schema = sc.Schema()
	for _, f := range s.schema.Fields() {
		if f.Type.ID() == arrow.DICTIONARY {
			scanDictScans.Add(1)
			break
		}
	}
	return nil
}

func (s *scanOp) Next(context.Context) (arrow.Record, error) {
	rec, err := s.s.Next()
	if rec != nil {
		s.stats.RowsOut += rec.NumRows()
		s.stats.Batches++
	}
	return rec, err
}

func (s *scanOp) Close() error {
	if s.s == nil {
		return nil
	}
	s.last = s.s.Stats()
	err := s.s.Close()
	s.s = nil
	return err
}

func (s *scanOp) Stats() operators.Stats { return s.stats }

// sourceFilter converts one of Spark's pushed data-source filters; false
// for forms it does not know (they are simply not pushed down).
func sourceFilter(e *plan.Expr) (scan.Filter, bool) {
	if e == nil || e.Kind != plan.ExprCall {
		return nil, false
	}
	col := func() (string, bool) {
		if len(e.Args) == 0 || (e.Args[0].Kind != plan.ExprAttr && e.Args[0].Kind != plan.ExprOpaque) {
			return "", false
		}
		return e.Args[0].Name, e.Args[0].Name != ""
	}
	val := func(i int) (scan.Value, bool) {
		if i >= len(e.Args) || e.Args[i].Kind != plan.ExprLiteral {
			return nil, false
		}
		l, err := convert.Expr(e.Args[i], nil)
		if err != nil || l.Op != expr.OpLiteral {
			return nil, false
		}
		return sourceValue(l)
	}
	two := func(mk func(a string, v scan.Value) scan.Filter) (scan.Filter, bool) {
		a, ok := col()
		v, ok2 := val(1)
		if !ok || !ok2 {
			return nil, false
		}
		return mk(a, v), true
	}
	switch e.Name {
	case "IsNotNull":
		// Not pushed: it prunes only a row group whose column is all
		// null (Spark adds it for every join key and filtered column),
		// and testing it costs the scan the column's dictionary.
		return nil, false
	case "IsNull":
		a, ok := col()
		if !ok {
			return nil, false
		}
		return scan.IsNull{Attr: a}, true
	case "EqualTo":
		return two(func(a string, v scan.Value) scan.Filter { return scan.EqualTo{Attr: a, Value: v} })
	case "EqualNullSafe":
		return two(func(a string, v scan.Value) scan.Filter { return scan.EqualNullSafe{Attr: a, Value: v} })
	case "GreaterThan":
		return two(func(a string, v scan.Value) scan.Filter { return scan.GreaterThan{Attr: a, Value: v} })
	case "GreaterThanOrEqual":
		return two(func(a string, v scan.Value) scan.Filter { return scan.GreaterThanOrEqual{Attr: a, Value: v} })
	case "LessThan":
		return two(func(a string, v scan.Value) scan.Filter { return scan.LessThan{Attr: a, Value: v} })
	case "LessThanOrEqual":
		return two(func(a string, v scan.Value) scan.Filter { return scan.LessThanOrEqual{Attr: a, Value: v} })
	case "And", "Or":
		if len(e.Args) != 2 {
			return nil, false
		}
		l, ok1 := sourceFilter(e.Args[0])
		r, ok2 := sourceFilter(e.Args[1])
		if e.Name == "And" { // one pushable side is still a valid (weaker) pruning filter
			switch {
			case ok1 && ok2:
				return scan.And{Left: l, Right: r}, true
			case ok1:
				return l, true
			case ok2:
				return r, true
			}
			return nil, false
		}
		if ok1 && ok2 {
			return scan.Or{Left: l, Right: r}, true
		}
	}
	return nil, false
}

func sourceValue(l *expr.Expr) (scan.Value, bool) {
	switch v := l.Value.(type) {
	case nil:
		return nil, true
	case bool, float64, string:
		return v, true
	case int32:
		if l.Type.Kind == types.Date {
			return scan.Date(v), true
		}
		return v, true
	case int64:
		if l.Type.Kind == types.Timestamp {
			return scan.Timestamp(v), true
		}
		return v, true
	case *big.Int:
		return scan.Decimal{Unscaled: v, Scale: l.Type.Scale}, true
	}
	return nil, false
}

// requiredColumns are the top-level columns a Parquet file declares
// required (never null), by name; nil when the footer cannot be read
// (the scan then reports the error). Cached per file for the query.
func (q *query) requiredColumns(path string) map[string]bool {
	q.mu.Lock()
	req, ok := q.required[path]
	q.mu.Unlock()
	if ok {
		return req
	}
	if r, err := file.OpenParquetFile(path, false); err == nil {
		root := r.MetaData().Schema.Root()
		req = make(map[string]bool, root.NumFields())
		for i := 0; i < root.NumFields(); i++ {
			f := root.Field(i)
			if _, dup := req[f.Name()]; !dup {
				req[f.Name()] = f.RepetitionType() == parquet.Repetitions.Required
			}
		}
		r.Close()
	}
	q.mu.Lock()
	if q.required == nil {
		q.required = map[string]map[string]bool{}
	}
	q.required[path] = req
	q.mu.Unlock()
	return req
}

// fileRequired reports whether the file column the scan resolves name to
// (the same name, else the first equal ignoring case, as the scanner
// does) is required.
func fileRequired(req map[string]bool, name string) bool {
	if r, ok := req[name]; ok {
		return r
	}
	for n, r := range req {
		if strings.EqualFold(n, name) {
			// several case-insensitive matches: the scanner's choice is
			// not known here, so only when all of them are required
			for m, r2 := range req {
				if strings.EqualFold(m, name) && !r2 {
					return false
				}
			}
			return r
		}
	}
	return false
}

// dropRequiredNotNull switches pruneNotNull. It is off: with it on, the
// queries above the scans it simplified held more device memory (the C
// ABI's four concurrent Q6 tasks on two 64 MiB devices ran out, and
// internal/reliability's concurrent cancellation test hit task quotas in
// Q10's partial aggregation), and why has not been found yet. Its test
// turns it on. (2026-11-29, session 3: with it on, the C ABI's concurrent
// Q6 tasks peak at the same device memory as with it off, ~37 MB of each
// 64 MiB device, and both tests pass repeatedly; the Q10 failure came
// back once in eight runs of the tree that switched it off, so it may be
// timing, not this. See /work/notes/perf-h9.md.)
var dropRequiredNotNull = false

// pruneNotNull drops from cond, the condition of a filter reading child,
// the conjuncts isnotnull(c) that always hold for task p: child is a scan
// and c a column the task's file declares required (Spark adds such a
// test for every join key and filtered column; TPC-H's files declare
// every column required). It returns nil when nothing is left to test.
// Partition columns (their values come from paths) are never dropped.
func (b *builder) pruneNotNull(child *rules.Node, p int, cond *expr.Expr) *expr.Expr {
	if cond == nil || !dropRequiredNotNull {
		return cond
	}
	s := stripTransitions(child)
	if s.Kind != rules.DpuScan || s.Spark == nil || s.Spark.Scan == nil || s.Spark.Scan.Format != "parquet" {
		return cond
	}
	if kind, _ := b.q.leaf(b.s, s); kind != notLeaf {
		return cond
	}
	splits, err := b.q.splits(s)
	if err != nil || p < 0 || p >= len(splits) {
		return cond
	}
	var reqs []map[string]bool
	for _, f := range splits[p].files() {
		req := b.q.requiredColumns(f)
		if len(req) == 0 {
			return cond
		}
		reqs = append(reqs, req)
	}
	si := s.Spark.Scan
	inFile := map[string]bool{}
	for _, a := range si.ReadSchema {
		inFile[a.Name] = true
	}
	out := s.Spark.Output
	never := func(e *expr.Expr) bool {
		if e.Op != expr.OpIsNotNull || len(e.Args) != 1 || e.Args[0].Op != expr.OpColumn {
			return false
		}
		c := e.Args[0].Col
		if c < 0 || c >= len(out) {
			return false
		}
		name := out[c].Name
		if len(si.ReadSchema) > 0 && !inFile[name] {
			return false // a partition column
		}
		for _, req := range reqs { // required in every file the task reads
			if !fileRequired(req, name) {
				return false
			}
		}
		return true
	}
	return dropTrue(cond, never)
}

// dropTrue removes from the conjunction e the conjuncts always is true
// for; nil when none is left.
func dropTrue(e *expr.Expr, always func(*expr.Expr) bool) *expr.Expr {
	if always(e) {
		return nil
	}
	if e.Op != expr.OpAnd {
		return e
	}
	kept := make([]*expr.Expr, 0, len(e.Args))
	changed := false
	for _, a := range e.Args {
		k := dropTrue(a, always)
		if k != a {
			changed = true
		}
		if k != nil {
			kept = append(kept, k)
		}
	}
	switch {
	case !changed:
		return e
	case len(kept) == 0:
		return nil
	case len(kept) == 1:
		return kept[0]
	}
	return expr.Call(expr.OpAnd, e.Type, kept...)
}

// scanDicts switches the scans' dictionary output of string columns to
// the device pipelines that read them (scanDictsFor; off: every scan
// column dense, for A/B measurements and tests).
var scanDicts = true

// scanDictScans counts the scans opened with a dictionary column (tests).
var scanDictScans atomic.Int64

// scanDictsFor asks op, when it is a scan as b.scan builds it (a tracked
// scanOp: no partition filter nor runtime filter over it), to hand the
// string columns cond tests on as dictionaries where every file it reads
// stores them wholly dictionary encoded (scan.Options.DictColumns): the
// decoder then skips expanding every row's value, and the pipeline tests
// the values through the dictionary. Only tested columns: a column that
// is only grouped on or projected gains little (the decoder writes 4
// bytes of index a row instead of the value and its offset) and can lose
// (TPC-H Q1's one-byte keys load as one dense block, without a pass
// over the rows, and cost ~5% more CPU as dictionaries). The caller must
// be the scan's only consumer and stage every record of it for a device
// pipeline (operators' stagePipeline: a FilterProject that passes no
// batch on unchanged, or a HashAggregate, cond being its condition over
// the scan's columns), so that no dictionary column reaches another
// operator; their outputs are dense whatever their input. Called while
// building, before Open.
func scanDictsFor(op operators.Operator, cond *expr.Expr) {
	t, ok := op.(*timed)
	if !ok || !scanDicts || cond == nil {
		return
	}
	s, ok := t.Operator.(*scanOp)
	if !ok || s.s != nil {
		return
	}
	cond.Walk(func(e *expr.Expr) error {
		if e.Op != expr.OpColumn || e.Col < 0 || e.Col >= len(s.opt.Columns) {
			return nil
		}
		c := s.opt.Columns[e.Col]
		if c.Type.Kind == types.String && !c.Partition && !slices.Contains(s.opt.DictColumns, c.Name) {
			s.opt.DictColumns = append(s.opt.DictColumns, c.Name)
		}
		return nil
	})
}

// scanBatchRows is the rows of a scan task's records: every record costs
// each operator above a round trip to the device (submit, wake the engine,
// wait for the result), which at the scan's default 64Ki rows left the
// engine cores idle a third of the time (docs/PERFORMANCE.md, "per-record
// round trips"). 256Ki rows measured 13–17% faster over TPC-H SF1 than
// 64Ki (1Mi about the same as 256Ki, with four times the memory a record
// holds). A variable for A/B measurements.
var scanBatchRows = 1 << 18
