package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	hmem "github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// The hash join against a nested-loop reference: random sides with
// duplicate and null keys of mixed types (string + bigint + decimal(20,2)),
// every join type × build side, with and without null-safe keys and an
// extra condition, and the edge cases (empty sides, all-match, no-match).

var joinSchema = arrow.NewSchema([]arrow.Field{
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
}, nil)

var (
	tLong = types.DataType{Kind: types.Long}
	tInt  = types.DataType{Kind: types.Int}
	tStr  = types.DataType{Kind: types.String}
	tDec  = types.DataType{Kind: types.Decimal, Precision: 20, Scale: 2}
)

// joinSide generates rows rows whose keys take card values (nullRate of
// them null); constKey makes every key the same value.
func joinSideRecord(rng *rand.Rand, rows, card int, nullRate float64, batch int) []arrow.Record {
	var recs []arrow.Record
	for lo := 0; lo < rows || (rows == 0 && lo == 0); lo += batch {
		n := min(batch, rows-lo)
		b := array.NewRecordBuilder(memory.DefaultAllocator, joinSchema)
		for range n {
			k := rng.IntN(card)
			if rng.Float64() < nullRate {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("k%d", k%3))
			}
			if rng.Float64() < nullRate {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Int64Builder).Append(int64(k))
			}
			if rng.Float64() < nullRate {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(k%4) * 1e15))
			}
			if rng.Float64() < 0.1 {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Int32Builder).Append(int32(rng.IntN(100)))
			}
		}
		recs = append(recs, b.NewRecord())
		b.Release()
		if rows == 0 {
			break
		}
	}
	return recs
}

// joinSides generates a left and a right side (lrows and rrows rows) with
// one generator seeded (seed, seed), as joinSideRecord does; they are
// released when the test ends.
func joinSides(t *testing.T, seed uint64, lrows, rrows, card int, nullRate float64, batch int) (left, right []arrow.Record) {
	rng := rand.New(rand.NewPCG(seed, seed))
	left = joinSideRecord(rng, lrows, card, nullRate, batch)
	right = joinSideRecord(rng, rrows, card, nullRate, batch)
	t.Cleanup(func() {
		releaseAll(left)
		releaseAll(right)
	})
	return left, right
}

func keyExprs(nkeys int) []*expr.Expr {
	all := []*expr.Expr{expr.Column(1, "i", tLong), expr.Column(0, "s", tStr), expr.Column(2, "d", tDec)}
	return all[:nkeys]
}

type refRow = []any

// refJoin is the nested-loop reference over joinSchema rows: the keys are
// the first nkeys of keyExprs, nullSafe marks keys where null matches null,
// cond adds left.v < right.v, and naaj makes LeftAnti null-aware (NOT IN).
func refJoin(typ operators.JoinType, left, right []refRow, nkeys int, nullSafe []bool, cond bool, naaj bool) []refRow {
	keyCols := []int{1, 0, 2}[:nkeys]
	match := func(l, r refRow) bool {
		for k, c := range keyCols {
			a, b := l[c], r[c]
			if a == nil || b == nil {
				if nullSafe != nil && nullSafe[k] && a == nil && b == nil {
					continue
				}
				return false
			}
			if !sameValue(a, b) {
				return false
			}
		}
		if cond {
			lv, rv := l[3], r[3]
			return lv != nil && rv != nil && lv.(int32) < rv.(int32)
		}
		return true
	}
	rightHasNull := false
	for _, r := range right {
		if r[keyCols[0]] == nil {
			rightHasNull = true
		}
	}
	keepAnti := func(l refRow, matched bool) bool {
		if naaj && len(right) > 0 && (rightHasNull || l[keyCols[0]] == nil) {
			return false
		}
		return !matched
	}
	return nestedLoopJoin(typ, left, right, match, keepAnti)
}

// nestedLoopJoin joins the joinSchema rows of left and right of every pair
// that match accepts, as join type typ; an outer join pads unmatched rows
// with nulls. keepAnti decides whether LeftAnti keeps a left row, given
// whether it matched (nil: when it did not).
func nestedLoopJoin(typ operators.JoinType, left, right []refRow, match func(l, r refRow) bool, keepAnti func(l refRow, matched bool) bool) []refRow {
	if keepAnti == nil {
		keepAnti = func(_ refRow, matched bool) bool { return !matched }
	}
	nulls := make(refRow, len(joinSchema.Fields()))
	var out []refRow
	rightMatched := make([]bool, len(right))
	for _, l := range left {
		any := false
		for j, r := range right {
			if match(l, r) {
				any = true
				rightMatched[j] = true
				if typ <= operators.JoinFullOuter {
					out = append(out, append(slices.Clone(l), r...))
				}
			}
		}
		switch typ {
		case operators.JoinLeftOuter, operators.JoinFullOuter:
			if !any {
				out = append(out, append(slices.Clone(l), nulls...))
			}
		case operators.JoinLeftSemi:
			if any {
				out = append(out, slices.Clone(l))
			}
		case operators.JoinLeftAnti:
			if keepAnti(l, any) {
				out = append(out, slices.Clone(l))
			}
		case operators.JoinExistence:
			out = append(out, append(slices.Clone(l), any))
		}
	}
	if typ == operators.JoinRightOuter || typ == operators.JoinFullOuter {
		for j, r := range right {
			if !rightMatched[j] {
				out = append(out, append(slices.Clone(nulls), r...))
			}
		}
	}
	return out
}

func rowKey(r refRow) string {
	var b strings.Builder
	for _, v := range r {
		if x, ok := v.(*big.Int); ok {
			v = x.String()
		}
		fmt.Fprintf(&b, "%v|", v)
	}
	return b.String()
}

func sortedKeys(rows []refRow) []string {
	ks := make([]string, len(rows))
	for i, r := range rows {
		ks[i] = rowKey(r)
	}
	slices.Sort(ks)
	return ks
}

var joinTypes = []operators.JoinType{operators.JoinInner, operators.JoinLeftOuter, operators.JoinRightOuter, operators.JoinFullOuter,
	operators.JoinLeftSemi, operators.JoinLeftAnti, operators.JoinExistence}

type joinScenario struct {
	name         string
	lrows, rrows int
	card         int
	nullRate     float64
	nkeys        int
	nullSafe     bool
	cond         bool
	naaj         bool
	batch        int
}

// types is the join types the scenario runs (a null-aware anti join is
// LeftAnti only).
func (sc joinScenario) types() []operators.JoinType {
	if sc.naaj {
		return []operators.JoinType{operators.JoinLeftAnti}
	}
	return joinTypes
}

// nullSafeKeys marks the first key null-safe when the scenario asks for it.
func (sc joinScenario) nullSafeKeys() []bool {
	if !sc.nullSafe {
		return nil
	}
	ns := make([]bool, sc.nkeys)
	ns[0] = true
	return ns
}

// spec is the scenario's join of type typ building side build.
func (sc joinScenario) spec(typ operators.JoinType, build operators.BuildSide) operators.JoinSpec {
	spec := operators.JoinSpec{Type: typ, Build: build, LeftKeys: keyExprs(sc.nkeys), RightKeys: keyExprs(sc.nkeys),
		NullAwareAnti: sc.naaj, NullSafe: sc.nullSafeKeys()}
	if sc.cond {
		spec.Condition = expr.Call(expr.OpLt, tBool, expr.Column(3, "v", tInt), expr.Column(7, "v", tInt))
	}
	return spec
}

// reference is the nested-loop result of the scenario's join of type typ.
func (sc joinScenario) reference(typ operators.JoinType, left, right []refRow) []refRow {
	return refJoin(typ, left, right, sc.nkeys, sc.nullSafeKeys(), sc.cond, sc.naaj)
}

func TestHashJoinDifferential(t *testing.T) {
	scenarios := []joinScenario{
		{name: "dups and nulls", lrows: 300, rrows: 200, card: 20, nullRate: 0.1, nkeys: 1, batch: 64},
		{name: "three mixed keys", lrows: 300, rrows: 250, card: 12, nullRate: 0.1, nkeys: 3, batch: 100},
		{name: "null-safe keys", lrows: 200, rrows: 200, card: 10, nullRate: 0.2, nkeys: 2, nullSafe: true, batch: 50},
		{name: "condition", lrows: 200, rrows: 150, card: 10, nullRate: 0.1, nkeys: 2, cond: true, batch: 64},
		{name: "empty right", lrows: 100, rrows: 0, card: 10, nullRate: 0.1, nkeys: 1, batch: 64},
		{name: "empty left", lrows: 0, rrows: 100, card: 10, nullRate: 0.1, nkeys: 1, batch: 64},
		{name: "all match", lrows: 60, rrows: 40, card: 1, nkeys: 3, batch: 16},
		{name: "no match", lrows: 100, rrows: 100, card: 1000000, nkeys: 1, batch: 32},
		{name: "null-aware anti", lrows: 200, rrows: 100, card: 30, nullRate: 0.05, nkeys: 1, naaj: true, batch: 64},
		{name: "null-aware anti no nulls", lrows: 200, rrows: 100, card: 30, nkeys: 1, naaj: true, batch: 64},
		{name: "null-aware anti null probe keys", lrows: 200, rrows: 100, card: 30, nullRate: 0.1, nkeys: 1, naaj: true, batch: 64},
	}
	modes := []string{"host-visible", "discrete"}
	if testing.Short() {
		modes = modes[:1]
	}
	for _, mode := range modes {
		tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode="+mode)
		for si, sc := range scenarios {
			rng := rand.New(rand.NewPCG(uint64(si), 5))
			lrecs := joinSideRecord(rng, sc.lrows, sc.card, sc.nullRate, sc.batch)
			rrecs := joinSideRecord(rng, sc.rrows, sc.card, sc.nullRate, sc.batch)
			if sc.name == "null-aware anti no nulls" || sc.name == "null-aware anti null probe keys" {
				rrecs = joinSideRecord(rand.New(rand.NewPCG(9, 9)), sc.rrows, sc.card, 0, sc.batch)
			}
			left, right := rowsOf(lrecs), rowsOf(rrecs)
			for _, typ := range sc.types() {
				for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
					name := fmt.Sprintf("%s/%s/%s/%s", mode, sc.name, typ, build)
					t.Run(name, func(t *testing.T) {
						checkJoin(t, tgt, lrecs, rrecs, sc.spec(typ, build), sc.reference(typ, left, right))
					})
				}
			}
			releaseAll(lrecs)
			releaseAll(rrecs)
		}
	}
}

// broadcastSide builds a broadcast table over the first two keys of rows
// joinSchema rows whose keys take card values (5% null); it returns the
// table (the caller releases it) and the rows.
func broadcastSide(t *testing.T, tgt *operators.Target, rng *rand.Rand, rows, card int) (*operators.BroadcastTable, []refRow) {
	t.Helper()
	brecs := joinSideRecord(rng, rows, card, 0.05, 128)
	defer releaseAll(brecs)
	table, err := operators.NewBroadcastTable(context.Background(), tgt, operators.NewRecordSource(joinSchema, brecs...), keyExprs(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	return table, rowsOf(brecs)
}

// A broadcast table shared by several concurrent joins, released by each.
func TestBroadcastTableConcurrentJoins(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	ctx := context.Background()
	table, build := broadcastSide(t, tgt, rand.New(rand.NewPCG(1, 2)), 500, 50)
	const joins = 4
	var wg sync.WaitGroup
	errs := make([]error, joins)
	for i := range joins {
		prng := rand.New(rand.NewPCG(uint64(i), 3))
		precs := joinSideRecord(prng, 400, 50, 0.05, 100)
		typ := joinTypes[i%len(joinTypes)]
		j, err := operators.NewBroadcastHashJoin(tgt, operators.NewRecordSource(joinSchema, precs...), table,
			operators.JoinSpec{Type: typ, Build: operators.BuildRight, LeftKeys: keyExprs(2), RightKeys: keyExprs(2)})
		if err != nil {
			t.Fatal(err)
		}
		want := refJoin(typ, rowsOf(precs), build, 2, nil, false, false)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer releaseAll(precs)
			got, err := operators.Collect(ctx, j)
			if err != nil {
				errs[i] = err
				return
			}
			defer releaseAll(got)
			if g, w := sortedKeys(rowsOf(got)), sortedKeys(want); !slices.Equal(g, w) {
				errs[i] = fmt.Errorf("join %d (%s): %d rows, reference %d", i, typ, len(g), len(w))
			}
		}()
	}
	table.Release() // the joins hold their own references
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestHashJoinQuotaWithoutSpill(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	small := tgt.Account
	tgt.Account = hmem.NewAccount("tiny", 64<<10, small)
	defer func() { tgt.Account = small }()
	rng := rand.New(rand.NewPCG(1, 2))
	recs := joinSideRecord(rng, 20000, 1000000, 0, 4096)
	defer releaseAll(recs)
	j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema, recs[:1]...), operators.NewRecordSource(joinSchema, recs...),
		operators.JoinSpec{Type: operators.JoinInner, LeftKeys: keyExprs(1), RightKeys: keyExprs(1)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = operators.Collect(context.Background(), j)
	if err == nil || !strings.Contains(err.Error(), "HashJoin") || !errors.Is(err, hmem.ErrQuotaExceeded) {
		t.Fatalf("want a HashJoin quota error, got %v", err)
	}
}

// checkJoin joins lrecs and rrecs (joinSchema batches) by spec on tgt and
// compares the rows, in any order, with want.
func checkJoin(t *testing.T, tgt *operators.Target, lrecs, rrecs []arrow.Record, spec operators.JoinSpec, want []refRow) {
	t.Helper()
	j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema, lrecs...), operators.NewRecordSource(joinSchema, rrecs...), spec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := operators.Collect(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(got)
	for _, r := range got {
		if !r.Schema().Equal(j.Schema()) {
			t.Fatalf("batch schema %s, operator's %s", r.Schema(), j.Schema())
		}
	}
	g, w := sortedKeys(rowsOf(got)), sortedKeys(want)
	if !slices.Equal(g, w) {
		t.Fatalf("%d rows, reference %d\nfirst device rows %v\nfirst reference rows %v", len(g), len(w), g[:min(5, len(g))], w[:min(5, len(w))])
	}
}

// uniqueKeySide is rows joinSchema rows in batches of batch whose key i
// is key(n) for a shuffled n in [0, rows) (null at nullRate); v numbers
// the rows.
func uniqueKeySide(rng *rand.Rand, rows, batch int, nullRate float64, key func(n int) int64) []arrow.Record {
	perm := rng.Perm(rows)
	var recs []arrow.Record
	for lo := 0; lo < rows; lo += batch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, joinSchema)
		for i := lo; i < min(rows, lo+batch); i++ {
			b.Field(0).(*array.StringBuilder).Append("x")
			if rng.Float64() < nullRate {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Int64Builder).Append(key(perm[i]))
			}
			b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(0))
			b.Field(3).(*array.Int32Builder).Append(int32(i))
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	return recs
}

// hashRefJoin is nestedLoopJoin on key column i through a map of the right
// side's rows (for sides too large for a nested loop).
func hashRefJoin(typ operators.JoinType, left, right []refRow) []refRow {
	at := map[int64][]int{}
	for j, r := range right {
		if k, ok := r[1].(int64); ok {
			at[k] = append(at[k], j)
		}
	}
	nulls := make(refRow, len(joinSchema.Fields()))
	var out []refRow
	rightMatched := make([]bool, len(right))
	for _, l := range left {
		var ms []int
		if k, ok := l[1].(int64); ok {
			ms = at[k]
		}
		for _, j := range ms {
			rightMatched[j] = true
			if typ <= operators.JoinFullOuter {
				out = append(out, append(slices.Clone(l), right[j]...))
			}
		}
		switch {
		case (typ == operators.JoinLeftOuter || typ == operators.JoinFullOuter) && len(ms) == 0,
			typ == operators.JoinLeftSemi && len(ms) > 0, typ == operators.JoinLeftAnti && len(ms) == 0:
			if typ == operators.JoinLeftOuter || typ == operators.JoinFullOuter {
				out = append(out, append(slices.Clone(l), nulls...))
			} else {
				out = append(out, slices.Clone(l))
			}
		case typ == operators.JoinExistence:
			out = append(out, append(slices.Clone(l), len(ms) > 0))
		}
	}
	if typ == operators.JoinRightOuter || typ == operators.JoinFullOuter {
		for j, r := range right {
			if !rightMatched[j] {
				out = append(out, append(slices.Clone(nulls), r...))
			}
		}
	}
	return out
}

// A build side large enough for the device to build its table over both
// cores (unique sparse keys), one with a duplicated key (the parts give
// up and one core builds it) and one of dense keys (a dense table), each
// joined with every join type, built on either side, against a map-based
// reference.
func TestHashJoinLargeBuildSides(t *testing.T) {
	const big, small = 90000, 4000
	defer operators.SetMaxBuildParts(16)()
	tgt := newTarget(t, "soft:memory=512MiB,cores=2,mode=host-visible")
	for _, sc := range []struct {
		name string
		key  func(n int) int64
		dup  bool
	}{
		{"sparse unique", func(n int) int64 { return int64(n)*7919 - 1e6 }, false},
		{"sparse with a duplicate", func(n int) int64 { return int64(n) * 7919 }, true},
		{"dense", func(n int) int64 { return int64(n) + 42 }, false},
	} {
		rng := rand.New(rand.NewPCG(11, uint64(len(sc.name))))
		bigRecs := uniqueKeySide(rng, big, 20000, 0.02, sc.key)
		if sc.dup { // the last row repeats the first row's key
			last := bigRecs[len(bigRecs)-1]
			b := array.NewRecordBuilder(memory.DefaultAllocator, joinSchema)
			for c := range joinSchema.NumFields() {
				for i := 0; i < int(last.NumRows()); i++ {
					if c == 1 && i == int(last.NumRows())-1 {
						b.Field(1).(*array.Int64Builder).Append(sc.key(0))
						continue
					}
					appendValue(t, b.Field(c), last.Column(c), i)
				}
			}
			bigRecs[len(bigRecs)-1] = b.NewRecord()
			b.Release()
			last.Release()
		}
		smallRecs := uniqueKeySide(rng, small, 1000, 0.05, func(n int) int64 { return sc.key(rng.IntN(big + big/10)) })
		bigRows, smallRows := rowsOf(bigRecs), rowsOf(smallRecs)
		for _, typ := range []operators.JoinType{operators.JoinInner, operators.JoinLeftOuter, operators.JoinRightOuter, operators.JoinFullOuter,
			operators.JoinLeftSemi, operators.JoinLeftAnti, operators.JoinExistence} {
			key := []*expr.Expr{expr.Column(1, "i", tLong)}
			t.Run(fmt.Sprintf("%s/%s/build right", sc.name, typ), func(t *testing.T) {
				spec := operators.JoinSpec{Type: typ, Build: operators.BuildRight, LeftKeys: key, RightKeys: key}
				checkJoin(t, tgt, smallRecs, bigRecs, spec, hashRefJoin(typ, smallRows, bigRows))
			})
			t.Run(fmt.Sprintf("%s/%s/build left", sc.name, typ), func(t *testing.T) {
				spec := operators.JoinSpec{Type: typ, Build: operators.BuildLeft, LeftKeys: key, RightKeys: key}
				checkJoin(t, tgt, bigRecs, smallRecs, spec, hashRefJoin(typ, bigRows, smallRows))
			})
		}
		releaseAll(bigRecs)
		releaseAll(smallRecs)
	}
}

// appendValue appends row i of col to b (the joinSchema column types).
func appendValue(t *testing.T, b array.Builder, col arrow.Array, i int) {
	if col.IsNull(i) {
		b.AppendNull()
		return
	}
	switch c := col.(type) {
	case *array.String:
		b.(*array.StringBuilder).Append(c.Value(i))
	case *array.Int64:
		b.(*array.Int64Builder).Append(c.Value(i))
	case *array.Decimal128:
		b.(*array.Decimal128Builder).Append(c.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(c.Value(i))
	default:
		t.Fatalf("column of %s", col.DataType())
	}
}
