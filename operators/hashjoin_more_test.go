package operators_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
)

// Hash join inputs the differential test does not cover: computed keys,
// dictionary-encoded strings, a broadcast table as the left (build) side,
// high fan-out output bounds, and a golden file of a small join.

var updateJoinGolden = flag.Bool("update-join-golden", false, "rewrite testdata/hashjoin_small.golden")

// refJoinBy is a nested-loop join of joinSchema rows by any key functions
// (no null-safe keys, no condition): a key with a nil value matches
// nothing.
func refJoinBy(typ operators.JoinType, left, right []refRow, lkey, rkey func(refRow) []any) []refRow {
	match := func(l, r refRow) bool {
		a, b := lkey(l), rkey(r)
		for k := range a {
			if a[k] == nil || b[k] == nil || !sameValue(a[k], b[k]) {
				return false
			}
		}
		return true
	}
	return nestedLoopJoin(typ, left, right, match, nil)
}

// Keys that are expressions (i + 1 on the left against i on the right,
// i against i * 2), with a plain string key beside them: the join appends
// the computed key columns through a projection and drops them again.
func TestHashJoinKeyExpressions(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	lrecs, rrecs := joinSides(t, 7, 300, 200, 40, 0.1, 64)
	left, right := rowsOf(lrecs), rowsOf(rrecs)
	iCol := expr.Column(1, "i", tLong)
	plus1 := expr.Call(expr.OpAdd, tLong, iCol, expr.Literal(int64(1), tLong))
	times2 := expr.Call(expr.OpMul, tLong, iCol, expr.Literal(int64(2), tLong))
	add := func(d int64) func(refRow) []any {
		return func(r refRow) []any {
			if r[1] == nil {
				return []any{nil, r[0]}
			}
			return []any{r[1].(int64) + d, r[0]}
		}
	}
	mul := func(r refRow) []any {
		if r[1] == nil {
			return []any{nil, r[0]}
		}
		return []any{r[1].(int64) * 2, r[0]}
	}
	sCol := expr.Column(0, "s", tStr)
	cases := []struct {
		name         string
		lkeys, rkeys []*expr.Expr
		lref, rref   func(refRow) []any
	}{
		{"left i+1", []*expr.Expr{plus1, sCol}, []*expr.Expr{iCol, sCol}, add(1), add(0)},
		{"right i*2", []*expr.Expr{iCol, sCol}, []*expr.Expr{times2, sCol}, add(0), mul},
	}
	for _, c := range cases {
		for _, typ := range joinTypes {
			for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
				t.Run(fmt.Sprintf("%s/%s/%s", c.name, typ, build), func(t *testing.T) {
					j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema, lrecs...), operators.NewRecordSource(joinSchema, rrecs...),
						operators.JoinSpec{Type: typ, Build: build, LeftKeys: c.lkeys, RightKeys: c.rkeys})
					if err != nil {
						t.Fatal(err)
					}
					if got := j.Schema().NumFields(); got != outWidth(typ) {
						t.Fatalf("%d output columns, want %d (computed keys must not show)", got, outWidth(typ))
					}
					got, err := operators.Collect(context.Background(), j)
					if err != nil {
						t.Fatal(err)
					}
					defer releaseAll(got)
					want := refJoinBy(typ, left, right, c.lref, c.rref)
					if g, w := sortedKeys(rowsOf(got)), sortedKeys(want); !slices.Equal(g, w) {
						t.Fatalf("%d rows, reference %d", len(g), len(w))
					}
				})
			}
		}
	}
}

func outWidth(typ operators.JoinType) int {
	switch typ {
	case operators.JoinLeftSemi, operators.JoinLeftAnti:
		return 4
	case operators.JoinExistence:
		return 5
	}
	return 8
}

// dictSchema is joinSchema with s dictionary-encoded.
var dictSchema = arrow.NewSchema([]arrow.Field{
	{Name: "s", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
	joinSchema.Field(1), joinSchema.Field(2), joinSchema.Field(3),
}, nil)

// dictEncode returns recs with column s dictionary-encoded (each batch
// with its own dictionary, in another value order).
func dictEncode(t *testing.T, recs []arrow.Record) []arrow.Record {
	var out []arrow.Record
	for _, r := range recs {
		b := array.NewDictionaryBuilder(memory.DefaultAllocator, dictSchema.Field(0).Type.(*arrow.DictionaryType)).(*array.BinaryDictionaryBuilder)
		// seed the dictionary in reverse so indices differ from batch to batch
		s := r.Column(0).(*array.String)
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		for i := s.Len() - 1; i >= 0; i-- {
			if s.IsValid(i) {
				sb.Append(s.Value(i))
			}
		}
		seed := sb.NewStringArray()
		sb.Release()
		if err := b.InsertStringDictValues(seed); err != nil {
			t.Fatal(err)
		}
		seed.Release()
		for i := range s.Len() {
			if s.IsNull(i) {
				b.AppendNull()
			} else if err := b.AppendString(s.Value(i)); err != nil {
				t.Fatal(err)
			}
		}
		d := b.NewArray()
		b.Release()
		cols := append([]arrow.Array{d}, r.Columns()[1:]...)
		out = append(out, array.NewRecord(dictSchema, cols, r.NumRows()))
		d.Release()
	}
	return out
}

// Dictionary-encoded string keys (and payload) on one side or both give
// the plain strings' result, as utf8 columns.
func TestHashJoinDictionaryStrings(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	lrecs, rrecs := joinSides(t, 8, 300, 250, 12, 0.1, 100)
	ldict, rdict := dictEncode(t, lrecs), dictEncode(t, rrecs)
	defer releaseAll(ldict)
	defer releaseAll(rdict)
	left, right := rowsOf(lrecs), rowsOf(rrecs)
	keys := []*expr.Expr{expr.Column(0, "s", tStr), expr.Column(1, "i", tLong)}
	for _, typ := range joinTypes {
		for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
			for _, sides := range []string{"left dict", "both dict"} {
				t.Run(fmt.Sprintf("%s/%s/%s", typ, build, sides), func(t *testing.T) {
					lsrc := operators.NewRecordSource(dictSchema, ldict...)
					rsrc := operators.NewRecordSource(joinSchema, rrecs...)
					if sides == "both dict" {
						rsrc = operators.NewRecordSource(dictSchema, rdict...)
					}
					j, err := operators.NewHashJoin(tgt, lsrc, rsrc, operators.JoinSpec{Type: typ, Build: build, LeftKeys: keys, RightKeys: keys})
					if err != nil {
						t.Fatal(err)
					}
					if id := j.Schema().Field(0).Type.ID(); id != arrow.STRING {
						t.Fatalf("output s is %s, want utf8", j.Schema().Field(0).Type)
					}
					got, err := operators.Collect(context.Background(), j)
					if err != nil {
						t.Fatal(err)
					}
					defer releaseAll(got)
					want := refJoin(typ, left, right, 2, nil, false, false)
					if g, w := sortedKeys(rowsOf(got)), sortedKeys(want); !slices.Equal(g, w) {
						t.Fatalf("%d rows, reference %d", len(g), len(w))
					}
				})
			}
		}
	}
}

// A broadcast table as the left side (BuildLeft): the probe side is the
// right child, and the left rows' matched flags live in each join, not in
// the shared table.
func TestBroadcastTableBuildLeft(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	ctx := context.Background()
	table, build := broadcastSide(t, tgt, rand.New(rand.NewPCG(9, 1)), 400, 60)
	defer table.Release()
	for i, typ := range joinTypes {
		prng := rand.New(rand.NewPCG(uint64(i), 9))
		precs := joinSideRecord(prng, 300, 60, 0.05, 100)
		j, err := operators.NewBroadcastHashJoin(tgt, operators.NewRecordSource(joinSchema, precs...), table,
			operators.JoinSpec{Type: typ, Build: operators.BuildLeft, LeftKeys: keyExprs(2), RightKeys: keyExprs(2)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := operators.Collect(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		want := refJoin(typ, build, rowsOf(precs), 2, nil, false, false)
		if g, w := sortedKeys(rowsOf(got)), sortedKeys(want); !slices.Equal(g, w) {
			t.Errorf("%s: %d rows, reference %d", typ, len(g), len(w))
		}
		releaseAll(got)
		releaseAll(precs)
	}
}

// A high fan-out join streams: every output batch holds at most
// max(the output bound, the probe batch's rows) rows, with and without a
// condition, and for the build rows emitted at the end.
func TestHashJoinBoundedOutput(t *testing.T) {
	defer operators.SetJoinBatchRows(1000)()
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	mem := memory.DefaultAllocator
	// 300 × 300 rows of one key: 90000 pairs from one probe batch
	s, lrecs := keyedRecords(mem, 300, 300, func(int) int64 { return 7 })
	_, rrecs := keyedRecords(mem, 300, 300, func(int) int64 { return 7 })
	_, far := keyedRecords(mem, 2500, 2500, func(i int) int64 { return int64(i) + 100 })
	defer releaseAll(lrecs)
	defer releaseAll(rrecs)
	defer releaseAll(far)
	k := []*expr.Expr{expr.Column(0, "k", tLong)}
	cond := expr.Call(expr.OpLt, tBool, expr.Column(1, "v", tInt), expr.Column(3, "v", tInt))
	cases := []struct {
		name        string
		left, right []arrow.Record
		spec        operators.JoinSpec
		rows        int64
	}{
		{"inner", lrecs, rrecs, operators.JoinSpec{Type: operators.JoinInner, LeftKeys: k, RightKeys: k}, 90000},
		{"inner with condition", lrecs, rrecs, operators.JoinSpec{Type: operators.JoinInner, LeftKeys: k, RightKeys: k, Condition: cond}, 300 * 299 / 2},
		{"unmatched build rows", far, rrecs, operators.JoinSpec{Type: operators.JoinLeftOuter, Build: operators.BuildLeft, LeftKeys: k, RightKeys: k}, 2500},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(s, c.left...), operators.NewRecordSource(s, c.right...), c.spec)
			if err != nil {
				t.Fatal(err)
			}
			_, batches, err := drainJoin(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			var total int64
			for _, n := range batches {
				total += n
				if n > 1000 {
					t.Fatalf("an output batch of %d rows", n)
				}
			}
			if total != c.rows || j.Stats().RowsOut != c.rows {
				t.Fatalf("%d rows (stats %d), want %d", total, j.Stats().RowsOut, c.rows)
			}
		})
	}
}

// TestHashJoinGolden prints a small join of every type, rows sorted, and
// compares with testdata/hashjoin_small.golden (-update-join-golden
// rewrites it).
func TestHashJoinGolden(t *testing.T) {
	tgt := newTarget(t, "soft:memory=64MiB,cores=2,mode=host-visible")
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	side := func(keys []any, names ...string) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		for i, k := range keys {
			if k == nil {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(int64(k.(int)))
			}
			b.Field(1).(*array.StringBuilder).Append(names[i])
		}
		return b.NewRecord()
	}
	l := side([]any{1, 2, 2, 3, nil}, "l1", "l2a", "l2b", "l3", "lnull")
	r := side([]any{2, 2, 4, nil, 1}, "r2a", "r2b", "r4", "rnull", "r1")
	defer l.Release()
	defer r.Release()
	k := []*expr.Expr{expr.Column(0, "k", tLong)}
	var b strings.Builder
	for _, typ := range joinTypes {
		for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
			j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(schema, l), operators.NewRecordSource(schema, r),
				operators.JoinSpec{Type: typ, Build: build, LeftKeys: k, RightKeys: k})
			if err != nil {
				t.Fatal(err)
			}
			got, err := operators.Collect(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "## %s, %s: %s\n", typ, build, j.Schema())
			for _, row := range sortedKeys(rowsOf(got)) {
				fmt.Fprintln(&b, row)
			}
			releaseAll(got)
		}
	}
	path := filepath.Join("testdata", "hashjoin_small.golden")
	if *updateJoinGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-join-golden to create it)", err)
	}
	if b.String() != string(want) {
		t.Fatalf("output differs from %s:\n%s", path, b.String())
	}
}

// TestHashJoinDeviceInputs runs joins whose inputs live in device memory,
// where output rows that are consecutive probe (or build) rows come out as
// slices of the input instead of gathers: a primary-key join (every probe
// row matches exactly one build row), one with some probe rows unmatched,
// and random sides, every join type and build side against the
// nested-loop reference.
func TestHashJoinDeviceInputs(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	toDevice := func(recs []arrow.Record) []arrow.Record {
		out := make([]arrow.Record, len(recs))
		for i, r := range recs {
			empty := r.NewSlice(0, 0)
			c, err := operators.ConcatRecords(tgt, []arrow.Record{r, empty})
			empty.Release()
			if err != nil {
				t.Fatal(err)
			}
			out[i] = c
		}
		t.Cleanup(func() { releaseAll(out) })
		return out
	}
	// keyed makes rows joinSchema rows with key(i) in column i (-1: null)
	keyed := func(rng *rand.Rand, rows, batch int, key func(i int) int64) []arrow.Record {
		var recs []arrow.Record
		for lo := 0; lo < rows; lo += batch {
			b := array.NewRecordBuilder(memory.DefaultAllocator, joinSchema)
			for i := lo; i < min(rows, lo+batch); i++ {
				b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("s%d", rng.IntN(50)))
				if k := key(i); k < 0 {
					b.Field(1).AppendNull()
				} else {
					b.Field(1).(*array.Int64Builder).Append(k)
				}
				b.Field(2).AppendNull()
				if rng.IntN(10) == 0 {
					b.Field(3).AppendNull()
				} else {
					b.Field(3).(*array.Int32Builder).Append(int32(rng.IntN(100)))
				}
			}
			recs = append(recs, b.NewRecord())
			b.Release()
		}
		t.Cleanup(func() { releaseAll(recs) })
		return recs
	}
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 1000
	pk := keyed(rng, n, 400, func(i int) int64 { return int64(i) })
	fk := keyed(rng, 4*n, 1500, func(i int) int64 { return int64(i*7919) % n })
	someMiss := keyed(rng, 4*n, 1500, func(i int) int64 {
		if i%997 == 0 {
			return -1
		}
		return int64(i*7919) % (n + 50)
	})
	rl, rr := joinSides(t, 8, 400, 300, 40, 0.1, 64)
	cases := []struct {
		name        string
		left, right []arrow.Record
	}{
		{"primary key", fk, pk},
		{"some unmatched", someMiss, pk},
		{"random", rl, rr},
	}
	for _, c := range cases {
		lrecs, rrecs := toDevice(c.left), toDevice(c.right)
		left, right := rowsOf(lrecs), rowsOf(rrecs)
		sc := joinScenario{nkeys: 1}
		for _, typ := range joinTypes {
			for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
				t.Run(fmt.Sprintf("%s/%s/%s", c.name, typ, build), func(t *testing.T) {
					checkJoin(t, tgt, lrecs, rrecs, sc.spec(typ, build), sc.reference(typ, left, right))
				})
			}
		}
	}
}
