package operators_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// Join conditions: a simple condition (comparisons of columns, evaluated
// by the device's JOIN_COND op over the pairs) and the same condition made
// general (AND true: evaluated by a pipeline over gathered pairs), for
// every join type and build side, against a nested-loop reference: `<>` on
// bigints with nulls, two terms over int and decimal(20,2) columns, all
// pairs failing, many pairs per key.

// condCase is one condition over joinSchema's left (0..3) and right
// (4..7) columns with its reference (nil: null).
type condCase struct {
	name string
	cond *expr.Expr
	ref  func(l, r refRow) any
}

func cmpRef(op string, x, y any) any {
	if x == nil || y == nil {
		return nil
	}
	var c int
	switch a := x.(type) {
	case int64:
		b := y.(int64)
		c = map[bool]int{true: -1, false: 0}[a < b] + map[bool]int{true: 1, false: 0}[a > b]
	case int32:
		b := y.(int32)
		c = map[bool]int{true: -1, false: 0}[a < b] + map[bool]int{true: 1, false: 0}[a > b]
	case *big.Int:
		c = a.Cmp(y.(*big.Int))
	default:
		panic(fmt.Sprintf("cmpRef: %T", x))
	}
	switch op {
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case ">=":
		return c >= 0
	}
	panic(op)
}

func andRef(x, y any) any {
	if x == false || y == false {
		return false
	}
	if x == nil || y == nil {
		return nil
	}
	return true
}

var condCases = []condCase{
	{"l.i <> r.i", expr.Call(expr.OpNe, tBool, expr.Column(1, "i", tLong), expr.Column(5, "i", tLong)),
		func(l, r refRow) any { return cmpRef("<>", l[1], r[1]) }},
	{"r.i <> l.i", expr.Call(expr.OpNe, tBool, expr.Column(5, "i", tLong), expr.Column(1, "i", tLong)),
		func(l, r refRow) any { return cmpRef("<>", r[1], l[1]) }},
	{"not (l.i = r.i)", expr.Call(expr.OpNot, tBool, expr.Call(expr.OpEq, tBool, expr.Column(1, "i", tLong), expr.Column(5, "i", tLong))),
		func(l, r refRow) any { return cmpRef("<>", l[1], r[1]) }},
	{"not (r.v >= l.v) and not not (l.d >= r.d)", expr.Call(expr.OpAnd, tBool,
		expr.Call(expr.OpNot, tBool, expr.Call(expr.OpGe, tBool, expr.Column(7, "v", tInt), expr.Column(3, "v", tInt))),
		expr.Call(expr.OpNot, tBool, expr.Call(expr.OpNot, tBool, expr.Call(expr.OpGe, tBool, expr.Column(2, "d", tDec), expr.Column(6, "d", tDec))))),
		func(l, r refRow) any { return andRef(cmpRef("<", r[3], l[3]), cmpRef(">=", l[2], r[2])) }},
	{"l.v < r.v and r.d >= l.d", expr.Call(expr.OpAnd, tBool,
		expr.Call(expr.OpLt, tBool, expr.Column(3, "v", tInt), expr.Column(7, "v", tInt)),
		expr.Call(expr.OpGe, tBool, expr.Column(6, "d", tDec), expr.Column(2, "d", tDec))),
		func(l, r refRow) any { return andRef(cmpRef("<", l[3], r[3]), cmpRef(">=", r[2], l[2])) }},
	{"l.v < r.v and l.i <> l.i", expr.Call(expr.OpAnd, tBool, // a term over one side only
		expr.Call(expr.OpLt, tBool, expr.Column(3, "v", tInt), expr.Column(7, "v", tInt)),
		expr.Call(expr.OpNe, tBool, expr.Column(1, "i", tLong), expr.Column(1, "i", tLong))),
		func(l, r refRow) any { return andRef(cmpRef("<", l[3], r[3]), cmpRef("<>", l[1], l[1])) }},
}

// general is cond AND true: the same condition, not simple.
func general(cond *expr.Expr) *expr.Expr {
	return expr.Call(expr.OpAnd, tBool, cond, expr.Literal(true, tBool))
}

func TestHashJoinConditions(t *testing.T) {
	scenarios := []struct {
		name               string
		lrows, rrows, card int
		nullRate           float64
		key                int // joinSchema column of the key: 0 (s, 3 values: many pairs per key) or 1 (i)
		batch              int
	}{
		{"many pairs per key", 240, 180, 30, 0.1, 0, 50},
		{"bigint key with nulls", 300, 200, 25, 0.2, 1, 64},
		{"no nulls", 200, 200, 20, 0, 1, 1000},
		{"empty build", 100, 0, 10, 0.1, 1, 64},
	}
	modes := []string{"host-visible", "discrete"}
	if testing.Short() {
		modes = modes[:1]
	}
	for _, mode := range modes {
		tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode="+mode)
		for si, sc := range scenarios {
			lrecs, rrecs := joinSides(t, uint64(100+si), sc.lrows, sc.rrows, sc.card, sc.nullRate, sc.batch)
			left, right := rowsOf(lrecs), rowsOf(rrecs)
			keyT := []types.DataType{tStr, tLong}[sc.key]
			key := []*expr.Expr{expr.Column(sc.key, joinSchema.Field(sc.key).Name, keyT)}
			for _, cc := range condCases {
				for _, typ := range joinTypes {
					match := func(l, r refRow) bool {
						if l[sc.key] == nil || r[sc.key] == nil || !sameValue(l[sc.key], r[sc.key]) {
							return false
						}
						return cc.ref(l, r) == true
					}
					want := nestedLoopJoin(typ, left, right, match, nil)
					for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
						for _, simple := range []bool{true, false} {
							cond := cc.cond
							if !simple {
								cond = general(cond)
							}
							name := fmt.Sprintf("%s/%s/%s/%s/%s/simple=%v", mode, sc.name, cc.name, typ, build, simple)
							t.Run(name, func(t *testing.T) {
								checkJoin(t, tgt, lrecs, rrecs, operators.JoinSpec{Type: typ, Build: build, LeftKeys: key, RightKeys: key, Condition: cond}, want)
							})
						}
					}
				}
			}
		}
	}
}

// All candidate pairs fail the condition (the key is i, the condition
// l.i <> r.i): semi joins are empty, anti joins keep every row, outer joins
// pad every row; and a random batch size.
func TestHashJoinConditionAllFail(t *testing.T) {
	tgt := newTarget(t, "soft:memory=256MiB,cores=2,mode=host-visible")
	rng := rand.New(rand.NewPCG(7, 7))
	lrecs, rrecs := joinSides(t, 8, 500, 400, 5, 0.05, 1+rng.IntN(200))
	left, right := rowsOf(lrecs), rowsOf(rrecs)
	key := []*expr.Expr{expr.Column(1, "i", tLong)}
	cond := condCases[0].cond
	for _, typ := range joinTypes {
		want := nestedLoopJoin(typ, left, right, func(l, r refRow) bool { return false }, nil)
		for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
			t.Run(fmt.Sprintf("%s/%s", typ, build), func(t *testing.T) {
				checkJoin(t, tgt, lrecs, rrecs, operators.JoinSpec{Type: typ, Build: build, LeftKeys: key, RightKeys: key, Condition: cond}, want)
			})
		}
	}
}

// The shared operator harness (batch sizes, selection vectors, nulls,
// reuse after Reset) over joins with the condition left.v < right.v: the
// simple form (JOIN_COND) for the join types whose condition path differs
// (pairs, first passing pair, marks of the build side), and the general
// form (a pipeline) for one.
func init() {
	cond := expr.Call(expr.OpLt, tBool, expr.Column(3, "v", tInt), expr.Column(7, "v", tInt))
	add := func(name string, typ operators.JoinType, c *expr.Expr) {
		harnessOps = append(harnessOps, harnessOp{name: name, inputs: joinInputs, maxBatch: 2048,
			build: func(e *harnessEnv, ch []operators.Operator) (operators.Operator, error) {
				spec := operators.JoinSpec{Type: typ, Build: joinBuild(e.c), LeftKeys: keyExprs(joinKeys), RightKeys: keyExprs(joinKeys), Condition: c}
				return operators.NewHashJoin(e.tgt, ch[0], ch[1], spec)
			},
			ref: func(_ *testing.T, _ harnessCase, in [][]arrow.Record) [][]any {
				return refJoin(typ, rowsOf(in[0]), rowsOf(in[1]), joinKeys, nil, true, false)
			}})
	}
	add("HashJoin/inner+cond", operators.JoinInner, cond)
	add("HashJoin/left-outer+cond", operators.JoinLeftOuter, cond)
	add("HashJoin/left-semi+cond", operators.JoinLeftSemi, cond)
	add("HashJoin/left-anti+cond", operators.JoinLeftAnti, cond)
	add("HashJoin/existence+cond", operators.JoinExistence, cond)
	add("HashJoin/left-semi+general-cond", operators.JoinLeftSemi, general(cond))
}

// Which joins test a simple condition inside the probe (device.ProbeCond):
// semi, anti and existence joins building on the right; not a join
// building on the left (it marks build rows), not a general condition, not
// a join of pairs. (A null-aware anti join takes no condition.)
func TestHashJoinConditionInProbe(t *testing.T) {
	tgt := newTarget(t, "soft:memory=64MiB,cores=1,mode=host-visible")
	lrecs, rrecs := joinSides(t, 9, 10, 10, 5, 0, 10)
	key := []*expr.Expr{expr.Column(1, "i", tLong)}
	cond := condCases[0].cond
	for _, typ := range joinTypes {
		for _, build := range []operators.BuildSide{operators.BuildRight, operators.BuildLeft} {
			for _, simple := range []bool{true, false} {
				c := cond
				if !simple {
					c = general(cond)
				}
				j, err := operators.NewHashJoin(tgt, operators.NewRecordSource(joinSchema, lrecs...), operators.NewRecordSource(joinSchema, rrecs...),
					operators.JoinSpec{Type: typ, Build: build, LeftKeys: key, RightKeys: key, Condition: c})
				if err != nil {
					t.Fatal(err)
				}
				want := simple && build == operators.BuildRight &&
					(typ == operators.JoinLeftSemi || typ == operators.JoinLeftAnti || typ == operators.JoinExistence)
				if got := operators.CondInProbe(j); got != want {
					t.Errorf("%s/%s/simple=%v: condition in the probe %v, want %v", typ, build, simple, got, want)
				}
				j.Close()
			}
		}
	}
}
