package operators_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// The operators the harness (harness_test.go) runs, each with its inputs,
// how it is built and its reference — the references the operators' own
// tests use: refFilterProject, refSortRows, refAggregate, refJoin.

// harnessOps is every operator of the package, in its variants. Of the
// joins only the inner hash join runs batches of 65536 rows (the
// nested-loop reference is costly; the join types differ only in how the
// host resolves the pairs, which smaller batches cover).
var harnessOps = []harnessOp{
	{name: "FilterProject", inputs: mixedInput, build: buildFilterProject, ref: refHarnessFilterProject, ordered: true},
	{name: "Sort", inputs: mixedInput, build: buildSort, ref: refHarnessSort, ordered: true},
	{name: "TopN", inputs: mixedInput, build: buildTopN, ref: refHarnessTopN, ordered: true},
	{name: "Limit", inputs: mixedInput, build: buildLimit, ref: refHarnessLimit, ordered: true},
	{name: "Union", inputs: unionInputs, build: buildUnion, ref: refConcat, ordered: true},
	{name: "HashAggregate/update", inputs: aggInput, build: buildAggUpdate(nil), ref: refHarnessAggregate(nil)},
	{name: "HashAggregate/update-where", inputs: aggInput, build: buildAggUpdate(aggWhere), ref: refHarnessAggregate(aggWhere)},
	{name: "HashAggregate/partial-final", inputs: aggInput, build: buildAggPartialFinal, ref: refHarnessAggregate(nil)},
	{name: "HashJoin/inner", inputs: joinInputs, build: buildJoin(operators.JoinInner), ref: refHarnessJoin(operators.JoinInner)},
	{name: "HashJoin/left-outer", inputs: joinInputs, build: buildJoin(operators.JoinLeftOuter), ref: refHarnessJoin(operators.JoinLeftOuter), maxBatch: 2048},
	{name: "HashJoin/right-outer", inputs: joinInputs, build: buildJoin(operators.JoinRightOuter), ref: refHarnessJoin(operators.JoinRightOuter), maxBatch: 2048},
	{name: "HashJoin/full-outer", inputs: joinInputs, build: buildJoin(operators.JoinFullOuter), ref: refHarnessJoin(operators.JoinFullOuter), maxBatch: 2048},
	{name: "HashJoin/left-semi", inputs: joinInputs, build: buildJoin(operators.JoinLeftSemi), ref: refHarnessJoin(operators.JoinLeftSemi), maxBatch: 2048},
	{name: "HashJoin/left-anti", inputs: joinInputs, build: buildJoin(operators.JoinLeftAnti), ref: refHarnessJoin(operators.JoinLeftAnti), maxBatch: 2048},
	{name: "HashJoin/existence", inputs: joinInputs, build: buildJoin(operators.JoinExistence), ref: refHarnessJoin(operators.JoinExistence), maxBatch: 2048},
	{name: "BroadcastHashJoin/inner", inputs: joinInputs, build: buildBroadcastJoin, ref: refHarnessJoin(operators.JoinInner), maxBatch: 2048},
}

// Mixed inputs: a bigint column k (the selection keeps k > 0) and three
// columns of random types and encodings.

var (
	colKey   = expr.Column(0, "k", types.LongType)
	mixedSel = expr.Call(expr.OpGt, tBool, colKey, expr.Literal(int64(0), types.LongType))
)

// mixedSchema is k followed by three random columns c0..c2.
func mixedSchema(rng *rand.Rand) *arrow.Schema {
	fields := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}
	fields = append(fields, expr.RandomSchema(rng, 3).Fields()...)
	return arrow.NewSchema(fields, nil)
}

// batchesOf is rows random rows of schema in batches of batch rows.
func batchesOf(rng *rand.Rand, schema *arrow.Schema, rows, batch int, nulls float64) []arrow.Record {
	var recs []arrow.Record
	for lo := 0; lo < rows; lo += batch {
		recs = append(recs, expr.RandomRecord(rng, schema, min(batch, rows-lo), nulls, memory.DefaultAllocator))
	}
	return recs
}

func mixedInput(rng *rand.Rand, c harnessCase) []harnessInput {
	s := mixedSchema(rng)
	return []harnessInput{{schema: s, recs: batchesOf(rng, s, c.rows(), c.batch, c.nulls), sel: mixedSel}}
}

// columnsOf is a column reference for each field of s.
func columnsOf(t *testing.T, s *arrow.Schema) []*expr.Expr {
	var cols []*expr.Expr
	for i, f := range s.Fields() {
		dt, err := types.FromArrow(f.Type)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, expr.Column(i, f.Name, dt))
	}
	return cols
}

// fpSpec is the FilterProject under test: keep rows where c0 is not null,
// project every column and -k.
func fpSpec(t *testing.T, s *arrow.Schema) (*expr.Expr, []*expr.Expr, []string) {
	cols := columnsOf(t, s)
	cond := expr.Call(expr.OpIsNotNull, tBool, cols[1])
	proj := append(cols, expr.Call(expr.OpNeg, types.LongType, colKey))
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	return cond, proj, append(names, "neg_k")
}

func buildFilterProject(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
	cond, proj, names := fpSpec(e.t, ch[0].Schema())
	return operators.NewFilterProject(e.tgt, ch[0], cond, proj, names)
}

func refHarnessFilterProject(t *testing.T, _ harnessCase, in [][]arrow.Record) [][]any {
	var rows [][]any
	for _, r := range in[0] {
		cond, proj, _ := fpSpec(t, r.Schema())
		got, err := refFilterProject(r, cond, proj)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, got...)
	}
	return rows
}

// harnessKeys are the sort keys of Sort and TopN: c0 computed (negated,
// its length, year or whether it is null: computedKey), c2 descending
// nulls first, then k nulls first.
func harnessKeys(t *testing.T, s *arrow.Schema) []operators.SortKey {
	cols := columnsOf(t, s)
	rng := rand.New(rand.NewPCG(1, 1))
	return []operators.SortKey{
		{Expr: computedKey(rng, cols[1])},
		{Expr: cols[3], Descending: true, NullsFirst: true},
		{Expr: cols[0], NullsFirst: true},
	}
}

func buildSort(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
	return operators.NewSort(e.tgt, ch[0], harnessKeys(e.t, ch[0].Schema()))
}

// refSorted is the rows of in sorted stably by the harness keys.
func refSorted(t *testing.T, in []arrow.Record, s *arrow.Schema) [][]any {
	keys := harnessKeys(t, s)
	return refSortRows(rowsOf(in), keyValues(t, in, keys), keys)
}

func refHarnessSort(t *testing.T, _ harnessCase, in [][]arrow.Record) [][]any {
	if len(in[0]) == 0 {
		return nil
	}
	return refSorted(t, in[0], in[0][0].Schema())
}

const topLimit, topOffset = 9, 2

func buildTopN(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
	return operators.NewTopN(e.tgt, ch[0], harnessKeys(e.t, ch[0].Schema()), topLimit, topOffset, nil, nil)
}

func refHarnessTopN(t *testing.T, c harnessCase, in [][]arrow.Record) [][]any {
	rows := refHarnessSort(t, c, in)
	return rows[min(topOffset, len(rows)):min(topOffset+topLimit, len(rows))]
}

// limitOf is the Limit under test for a case: about half its rows after
// skipping three.
func limitOf(c harnessCase) (limit, offset int) { return c.rows()/2 + 1, 3 }

func buildLimit(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
	limit, offset := limitOf(e.c)
	return operators.NewLimit(e.tgt, ch[0], limit, offset)
}

func refHarnessLimit(t *testing.T, c harnessCase, in [][]arrow.Record) [][]any {
	rows := rowsOf(in[0])
	limit, offset := limitOf(c)
	lo := min(offset, len(rows))
	return rows[lo:min(lo+limit, len(rows))]
}

// unionInputs are two children of one logical schema; the second encodes
// its strings differently (utf8, large_utf8 and dictionary rotate), and
// only it has a selection, so strings often need converting.
func unionInputs(rng *rand.Rand, c harnessCase) []harnessInput {
	s1 := mixedSchema(rng)
	fields := append([]arrow.Field(nil), s1.Fields()...)
	for i, f := range fields {
		switch f.Type.ID() {
		case arrow.STRING:
			fields[i].Type = arrow.BinaryTypes.LargeString
		case arrow.LARGE_STRING:
			fields[i].Type = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
		case arrow.DICTIONARY:
			fields[i].Type = arrow.BinaryTypes.String
		}
	}
	s2 := arrow.NewSchema(fields, nil)
	return []harnessInput{
		{schema: s1, recs: batchesOf(rng, s1, c.rows(), c.batch, c.nulls)},
		{schema: s2, recs: batchesOf(rng, s2, c.rows()/2+1, c.batch, c.nulls), sel: mixedSel},
	}
}

func buildUnion(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
	return operators.NewUnion(e.tgt, ch)
}

// refConcat is the rows of every child, one child after the other.
func refConcat(t *testing.T, _ harnessCase, in [][]arrow.Record) [][]any {
	var rows [][]any
	for _, recs := range in {
		rows = append(rows, rowsOf(recs)...)
	}
	return rows
}

// Aggregation inputs: spillSchema rows (aggregate_spill_test.go) grouped
// by (k1, k2) with the calls of updateCalls(false), as refAggregate
// computes them.

var (
	aggSel   = expr.Call(expr.OpGt, tBool, colV, expr.Literal(int64(0), types.LongType))
	aggWhere = expr.Call(expr.OpIsNotNull, tBool, colS)
	aggKeys  = []*expr.Expr{colK1, colK2}
)

// aggInput is random spillSchema rows made groupable: k1 modulo 5, k2 its
// first character, and f a small integer (so that double sums are exact
// in any order).
func aggInput(rng *rand.Rand, c harnessCase) []harnessInput {
	coarse := []*expr.Expr{ // nil: the column as it is
		expr.Call(expr.OpMod, types.LongType, colK1, expr.Literal(int64(5), types.LongType)),
		expr.Call(expr.OpSubstring, types.StringType, colK2, expr.Literal(int32(1), types.IntType), expr.Literal(int32(1), types.IntType)),
		nil, nil, nil,
		expr.Call(expr.OpCast, types.DoubleType, expr.Call(expr.OpMod, types.IntType,
			expr.Call(expr.OpCast, types.IntType, colF), expr.Literal(int32(100), types.IntType))),
	}
	recs := batchesOf(rng, spillSchema, c.rows(), c.batch, c.nulls)
	for i, r := range recs {
		cols := make([]arrow.Array, len(coarse))
		for j, e := range coarse {
			if e == nil {
				cols[j] = r.Column(j)
				cols[j].Retain()
				continue
			}
			a, err := expr.Eval(e, r, memory.DefaultAllocator)
			if err != nil {
				panic(err) // the expressions are valid over spillSchema
			}
			cols[j] = a
		}
		r.Release()
		recs[i] = array.NewRecordBatch(spillSchema, cols, int64(cols[0].Len()))
		release2(cols)
	}
	return []harnessInput{{schema: spillSchema, recs: recs, sel: aggSel}}
}

func buildAggUpdate(where *expr.Expr) func(*harnessEnv, []operators.Operator) (operators.Operator, error) {
	return func(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
		c := aggCase{keys: aggKeys, calls: updateCalls(false), mode: operators.AggUpdate, where: where}
		return operators.NewHashAggregate(e.tgt, ch[0], where, c.keys, c.calls, c.mode, c.names())
	}
}

// buildAggPartialFinal is a Partial aggregation feeding a Final one
// (merge mode), as Spark plans them; resetting the Final resets both.
func buildAggPartialFinal(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
	c := aggCase{keys: aggKeys, calls: updateCalls(false), mode: operators.AggUpdate}
	partial, err := operators.NewHashAggregate(e.tgt, ch[0], nil, c.keys, c.calls, c.mode, c.names())
	if err != nil {
		return nil, err
	}
	m := mergeCase(c, partial.Schema())
	return operators.NewHashAggregate(e.tgt, partial, nil, m.keys, m.calls, m.mode, c.names())
}

func refHarnessAggregate(where *expr.Expr) func(*testing.T, harnessCase, [][]arrow.Record) [][]any {
	return func(t *testing.T, _ harnessCase, in [][]arrow.Record) [][]any {
		recs := in[0]
		if where != nil {
			recs = selectRecords(t, recs, where)
			defer releaseAll(recs)
		}
		return refAggregate(t, recs)
	}
}

// Join inputs: joinSchema sides (hashjoin_test.go) with two keys (i, s)
// of eight values; the right side is small (the nested-loop reference
// pairs every row), the left side has the case's rows and a selection
// keeping v > 30.

var joinSel = expr.Call(expr.OpGt, tBool, expr.Column(3, "v", tInt), expr.Literal(int32(30), tInt))

const joinKeys = 2

func joinInputs(rng *rand.Rand, c harnessCase) []harnessInput {
	right := min(c.rows(), 48)
	if c.batch > 2048 {
		right = 16
	}
	return []harnessInput{
		{schema: joinSchema, recs: joinSideRecord(rng, c.rows(), 8, c.nulls, c.batch), sel: joinSel},
		{schema: joinSchema, recs: joinSideRecord(rng, right, 8, c.nulls, c.batch)},
	}
}

// joinBuild alternates the build side from case to case.
func joinBuild(c harnessCase) operators.BuildSide {
	if c.idx%4 >= 2 {
		return operators.BuildLeft
	}
	return operators.BuildRight
}

func buildJoin(typ operators.JoinType) func(*harnessEnv, []operators.Operator) (operators.Operator, error) {
	return func(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
		spec := operators.JoinSpec{Type: typ, Build: joinBuild(e.c), LeftKeys: keyExprs(joinKeys), RightKeys: keyExprs(joinKeys)}
		return operators.NewHashJoin(e.tgt, ch[0], ch[1], spec)
	}
}

// buildBroadcastJoin builds a broadcast table over the right child (which
// it reads and closes) and probes it with the left child; the table
// outlives the join's runs and is released after Close.
func buildBroadcastJoin(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
	table, err := operators.NewBroadcastTable(context.Background(), e.tgt, ch[1], keyExprs(joinKeys), nil)
	if err != nil {
		return nil, err
	}
	e.onDone(table.Release)
	spec := operators.JoinSpec{Type: operators.JoinInner, LeftKeys: keyExprs(joinKeys), RightKeys: keyExprs(joinKeys)}
	return operators.NewBroadcastHashJoin(e.tgt, ch[0], table, spec)
}

func refHarnessJoin(typ operators.JoinType) func(*testing.T, harnessCase, [][]arrow.Record) [][]any {
	return func(t *testing.T, _ harnessCase, in [][]arrow.Record) [][]any {
		return refJoin(typ, rowsOf(in[0]), rowsOf(in[1]), joinKeys, nil, false, false)
	}
}
