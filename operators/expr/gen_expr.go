package expr

import (
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/operators/types"
)

// RandomExpr returns a random well-typed expression (Validate accepts it)
// over schema's columns, at most depth operations deep. want fixes the
// result type: its kind, and for decimals the exact precision and scale;
// the zero DataType (types.Unknown) lets the generator choose, and a
// decimal with precision 0 asks for any decimal. Over many calls every Op
// appears. Columns of types the evaluator cannot read are never used.
func RandomExpr(rng *rand.Rand, schema *arrow.Schema, depth int, want types.DataType) *Expr {
	g := &exprGen{rng: rng}
	for i, f := range schema.Fields() {
		t, err := types.FromArrow(f.Type)
		if err == nil && evaluable(t) && t.Kind != types.Null && readableArrow(f.Type) {
			g.cols = append(g.cols, Column(i, f.Name, t))
		}
	}
	switch {
	case !want.IsKnown():
		return g.kind(RandomType(rng, types.KindUnknown).Kind, depth)
	case want.Kind == types.Decimal && want.Precision == 0:
		return g.kind(types.Decimal, depth)
	}
	return g.exact(want, depth)
}

type exprGen struct {
	rng  *rand.Rand
	cols []*Expr
}

var (
	decimalArith = []Op{OpAdd, OpSub, OpMul, OpDiv, OpMod}
	comparisons  = []Op{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpEqNullSafe}
)

// castSources lists the kinds each kind can be cast from in the evaluator.
var castSources = map[types.Kind][]types.Kind{
	types.Boolean:   {types.Int, types.Long, types.Double, types.Decimal, types.Timestamp, types.String},
	types.Int:       {types.Boolean, types.Long, types.Double, types.Decimal, types.Timestamp, types.String},
	types.Long:      {types.Boolean, types.Int, types.Double, types.Decimal, types.Timestamp, types.String},
	types.Double:    {types.Boolean, types.Int, types.Long, types.Decimal, types.Timestamp, types.String},
	types.Decimal:   {types.Boolean, types.Int, types.Long, types.Double, types.Decimal, types.Timestamp, types.String},
	types.Date:      {types.Timestamp, types.String},
	types.Timestamp: {types.Boolean, types.Int, types.Long, types.Double, types.Decimal, types.Date},
	types.String:    {types.Boolean, types.Int, types.Long, types.Double, types.Decimal, types.Date, types.Timestamp},
}

// kind returns an expression of the kind with any parameters: for
// decimals, possibly a raw arithmetic node typed by types.Arithmetic.
func (g *exprGen) kind(k types.Kind, depth int) *Expr {
	if k == types.Decimal && depth > 0 && g.rng.IntN(3) == 0 {
		return g.decimalArith(depth)
	}
	return g.exact(RandomType(g.rng, k), depth)
}

// decimalArith returns a op b for random decimal operands.
func (g *exprGen) decimalArith(depth int) *Expr {
	a := g.kind(types.Decimal, depth-1)
	b := g.kind(types.Decimal, depth-1)
	op := pick(g.rng, decimalArith)
	t, err := types.Arithmetic(arithSymbols[op], a.Type, b.Type)
	if err != nil {
		panic(err) // decimals always have an arithmetic type
	}
	return Call(op, t, a, b)
}

// leaf returns a column of type t when there is one (mostly), else a literal.
func (g *exprGen) leaf(t types.DataType) *Expr {
	var match []*Expr
	for _, c := range g.cols {
		if c.Type == t {
			match = append(match, c)
		}
	}
	if len(match) > 0 && g.rng.IntN(4) > 0 {
		return pick(g.rng, match)
	}
	return g.literal(t)
}

// literal returns a literal of t, NULL one time in ten.
func (g *exprGen) literal(t types.DataType) *Expr {
	if g.rng.IntN(10) == 0 {
		return Literal(nil, t)
	}
	return Literal(RandomValue(g.rng, t), t)
}

// exact returns an expression of exactly type t.
func (g *exprGen) exact(t types.DataType, depth int) *Expr {
	if depth <= 0 || g.rng.IntN(5) == 0 {
		return g.leaf(t)
	}
	d := depth - 1
	if g.rng.IntN(8) == 0 {
		return g.conditional(t, d)
	}
	if g.rng.IntN(8) == 0 {
		from := RandomType(g.rng, pick(g.rng, castSources[t.Kind]))
		return Call(OpCast, t, g.exact(from, d))
	}
	switch t.Kind {
	case types.Boolean:
		return g.boolean(d)
	case types.Int, types.Long, types.Double:
		return g.number(t, d)
	case types.Decimal:
		return g.decimal(t, d)
	case types.Date:
		return Call(pick(g.rng, []Op{OpDateAdd, OpDateSub}), t, g.exact(dateT, d), g.exact(intT, d))
	case types.String:
		if g.rng.IntN(3) == 0 {
			return Call(OpSubstring, t, g.exact(strT, d), g.smallInt(d), g.smallInt(d))
		}
		from := RandomType(g.rng, pick(g.rng, castSources[t.Kind]))
		return Call(OpCast, t, g.exact(from, d))
	}
	// timestamp: casts and conditionals only
	from := RandomType(g.rng, pick(g.rng, castSources[t.Kind]))
	return Call(OpCast, t, g.exact(from, d))
}

// smallInt returns an int expression, mostly a literal in [-5, 5].
func (g *exprGen) smallInt(depth int) *Expr {
	if g.rng.IntN(4) == 0 {
		return g.exact(intT, depth)
	}
	return Literal(int32(g.rng.IntN(11)-5), intT)
}

func (g *exprGen) conditional(t types.DataType, d int) *Expr {
	switch g.rng.IntN(3) {
	case 0:
		args := []*Expr{}
		for n := 1 + g.rng.IntN(3); n > 0; n-- {
			args = append(args, g.exact(boolT, d), g.exact(t, d))
		}
		if g.rng.IntN(2) == 0 {
			args = append(args, g.exact(t, d))
		}
		return Call(OpCaseWhen, t, args...)
	case 1:
		return Call(OpIf, t, g.exact(boolT, d), g.exact(t, d), g.exact(t, d))
	}
	args := []*Expr{}
	for n := 1 + g.rng.IntN(3); n > 0; n-- {
		args = append(args, g.exact(t, d))
	}
	return Call(OpCoalesce, t, args...)
}

func (g *exprGen) boolean(d int) *Expr {
	switch g.rng.IntN(8) {
	case 0, 1:
		k := pick(g.rng, EvalKinds)
		return Call(pick(g.rng, comparisons), boolT, g.kind(k, d), g.kind(k, d))
	case 2:
		return Call(pick(g.rng, []Op{OpAnd, OpOr}), boolT, g.exact(boolT, d), g.exact(boolT, d))
	case 3:
		return Call(OpNot, boolT, g.exact(boolT, d))
	case 4:
		return Call(pick(g.rng, []Op{OpIsNull, OpIsNotNull}), boolT, g.kind(pick(g.rng, EvalKinds), d))
	case 5:
		x := g.kind(pick(g.rng, EvalKinds), d)
		args := []*Expr{x}
		for n := 1 + g.rng.IntN(4); n > 0; n-- {
			lt := x.Type
			if lt.Kind == types.Decimal && g.rng.IntN(2) == 0 {
				lt = RandomType(g.rng, types.Decimal)
			}
			args = append(args, g.literal(lt))
		}
		return Call(OpIn, boolT, args...)
	case 6:
		return Call(pick(g.rng, []Op{OpStartsWith, OpEndsWith, OpContains}), boolT, g.exact(strT, d), g.exact(strT, d))
	}
	return Call(OpLike, boolT, g.exact(strT, d), Literal(RandomLikePattern(g.rng), strT))
}

func (g *exprGen) number(t types.DataType, d int) *Expr {
	switch g.rng.IntN(6) {
	case 0:
		return Call(OpNeg, t, g.exact(t, d))
	case 1:
		switch t.Kind {
		case types.Int:
			if g.rng.IntN(2) == 0 {
				return Call(OpLength, t, g.exact(strT, d))
			}
			return Call(pick(g.rng, []Op{OpYear, OpMonth, OpDayOfMonth}), t, g.exact(dateT, d))
		case types.Long:
			return Call(OpUnscaledValue, t, g.exact(withMaxPrecision(RandomType(g.rng, types.Decimal), 18), d))
		}
	}
	return Call(pick(g.rng, decimalArith), t, g.exact(t, d), g.exact(t, d))
}

func (g *exprGen) decimal(t types.DataType, d int) *Expr {
	switch g.rng.IntN(6) {
	case 0:
		return Call(OpNeg, t, g.exact(t, d))
	case 1:
		return Call(OpPromotePrecision, t, g.exact(t, d))
	case 2:
		return Call(OpMakeDecimal, t, g.exact(longT, d))
	case 3:
		return Call(OpCheckOverflow, t, g.kind(types.Decimal, d))
	}
	return Call(OpCheckOverflow, t, g.decimalArith(d+1))
}
