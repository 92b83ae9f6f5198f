package pipeline

import (
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

var (
	tBool   = types.DataType{Kind: types.Boolean}
	tInt    = types.DataType{Kind: types.Int}
	tLong   = types.DataType{Kind: types.Long}
	tDouble = types.DataType{Kind: types.Double}
	tDate   = types.DataType{Kind: types.Date}
	tString = types.DataType{Kind: types.String}
	tDec152 = types.DecimalOf(15, 2)
)

func call(op expr.Op, t types.DataType, args ...*expr.Expr) *expr.Expr {
	return expr.Call(op, t, args...)
}

// q6 is TPC-H Q6's condition over (l_shipdate, l_discount, l_quantity, l_extendedprice).
func q6() (*expr.Expr, []types.DataType) {
	ship := expr.Column(0, "l_shipdate", tDate)
	disc := expr.Column(1, "l_discount", tDec152)
	qty := expr.Column(2, "l_quantity", tDec152)
	cond := call(expr.OpAnd, tBool,
		call(expr.OpAnd, tBool,
			call(expr.OpGe, tBool, ship, expr.Literal(expr.DaysFromCivil(1994, 1, 1), tDate)),
			call(expr.OpLt, tBool, ship, expr.Literal(expr.DaysFromCivil(1995, 1, 1), tDate))),
		call(expr.OpAnd, tBool,
			expr.Between(disc, expr.Decimal(5, 15, 2), expr.Decimal(7, 15, 2)),
			call(expr.OpLt, tBool, qty, expr.Decimal(2400, 15, 2))))
	return cond, []types.DataType{tDate, tDec152, tDec152, tDec152}
}

func TestCompileQ6(t *testing.T) {
	cond, ins := q6()
	b := NewBuilder(ins)
	if err := b.Filter(cond); err != nil {
		t.Fatal(err)
	}
	price := expr.Column(3, "l_extendedprice", tDec152)
	rev, err := b.Expr(call(expr.OpMul, types.DecimalOf(31, 4), price, expr.Column(1, "l_discount", tDec152)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Pipeline(make([]device.Column, 4), device.SinkProject, []uint16{rev}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var filters, columns, muls int
	for _, in := range p.Insns {
		switch in.Op {
		case device.KFilter:
			filters++
		case device.KColumn:
			columns++
		case device.KDecMul:
			muls++
			if in.P1 != 0 || in.VType != device.VTI128 || in.P2 != int32(device.VTI64) {
				t.Errorf("decimal multiply: %+v", in)
			}
		case device.KGe, device.KLt, device.KLe:
			if in.Flags != device.IfBConst {
				t.Errorf("comparison with a literal without a constant operand: %+v", in)
			}
		}
	}
	if filters != 5 || columns != 4 || muls != 1 {
		t.Fatalf("%d filters (want 5: one per conjunct), %d column loads (want 4: once each), %d multiplies\n%+v", filters, columns, muls, p.Insns)
	}
	if _, err := p.Encode(); err != nil {
		t.Fatal(err)
	}
}

func TestCompileDecimalRules(t *testing.T) {
	a := expr.Column(0, "a", types.DecimalOf(15, 2))
	b := expr.Column(1, "b", types.DecimalOf(10, 4))
	li, ii := expr.Column(2, "l", types.LongType), expr.Column(3, "i", types.IntType)
	for _, tc := range []struct {
		e    *expr.Expr
		want []device.Kernel
	}{
		// add at scale 4 (exact 18 digits, I64), then no rounding needed
		{call(expr.OpAdd, types.DecimalOf(18, 4), a, b), []device.Kernel{device.KColumn, device.KColumn, device.KDecAdd}},
		// a result scale below the exact one rounds (rescale) and checks precision
		{call(expr.OpCheckOverflow, types.DecimalOf(10, 1), a), []device.Kernel{device.KColumn, device.KDecRescale, device.KDecCheck}},
		// widening to 38 digits converts storage
		{call(expr.OpCast, types.DecimalOf(38, 2), a), []device.Kernel{device.KColumn, device.KDecRescale}},
		// an integer cast to a decimal checks the precision only when its
		// digits plus the scale can exceed it: bigint has 19, int 10
		{call(expr.OpCast, types.DecimalOf(20, 0), li), []device.Kernel{device.KColumn, device.KCastIntToDec}},
		{call(expr.OpCast, types.DecimalOf(18, 0), li), []device.Kernel{device.KColumn, device.KCastIntToDec, device.KDecCheck}},
		{call(expr.OpCast, types.DecimalOf(12, 2), ii), []device.Kernel{device.KColumn, device.KCastIntToDec}},
		{call(expr.OpCast, types.DecimalOf(11, 2), ii), []device.Kernel{device.KColumn, device.KCastIntToDec, device.KDecCheck}},
		// at precision 38 the digits may pass 38 (bigint to decimal(38,20)):
		// Spark gives null there, so the check stays
		{call(expr.OpCast, types.DecimalOf(38, 19), li), []device.Kernel{device.KColumn, device.KCastIntToDec}},
		{call(expr.OpCast, types.DecimalOf(38, 20), li), []device.Kernel{device.KColumn, device.KCastIntToDec, device.KDecCheck}},
		{call(expr.OpCast, types.DecimalOf(38, 30), ii), []device.Kernel{device.KColumn, device.KCastIntToDec, device.KDecCheck}},
	} {
		bld := NewBuilder([]types.DataType{types.DecimalOf(15, 2), types.DecimalOf(10, 4), types.LongType, types.IntType})
		if _, err := bld.Expr(tc.e); err != nil {
			t.Fatalf("%s: %v", tc.e, err)
		}
		var got []device.Kernel
		for _, in := range bld.p.Insns {
			got = append(got, in.Op)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: kernels %v, want %v", tc.e, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: kernels %v, want %v", tc.e, got, tc.want)
			}
		}
	}
	if got := bldAdd(); got[2].Imm != 2 {
		t.Errorf("scale alignment immediate %#x, want a*10^2", got[2].Imm)
	}
}

func bldAdd() []device.Insn {
	b := NewBuilder([]types.DataType{types.DecimalOf(15, 2), types.DecimalOf(10, 4)})
	b.Expr(call(expr.OpAdd, types.DecimalOf(18, 4), expr.Column(0, "a", types.DecimalOf(15, 2)), expr.Column(1, "b", types.DecimalOf(10, 4))))
	return b.p.Insns
}

func TestCompileConditionals(t *testing.T) {
	x := expr.Column(0, "x", tLong)
	e := call(expr.OpCaseWhen, tLong,
		call(expr.OpGt, tBool, x, expr.Literal(int64(10), tLong)), expr.Literal(int64(1), tLong),
		call(expr.OpGt, tBool, x, expr.Literal(int64(5), tLong)), expr.Literal(int64(2), tLong))
	b := NewBuilder([]types.DataType{tLong})
	if _, err := b.Expr(e); err != nil {
		t.Fatal(err)
	}
	selects := 0
	for _, in := range b.p.Insns {
		if in.Op == device.KSelect {
			selects++
		}
	}
	if selects != 2 {
		t.Fatalf("CASE with two branches: %d SELECTs", selects)
	}
	co := call(expr.OpCoalesce, tLong, x, expr.Literal(int64(0), tLong))
	if _, err := NewBuilder([]types.DataType{tLong}).Expr(co); err != nil {
		t.Fatal(err)
	}
}

func TestCompileUnsupported(t *testing.T) {
	f := types.DataType{Kind: types.Float}
	for _, tc := range []struct {
		e    *expr.Expr
		ins  []types.DataType
		code ReasonCode
	}{
		{expr.Column(0, "f", f), []types.DataType{f}, ReasonDataType},
		{call(expr.OpLike, tBool, expr.Column(0, "s", tString), expr.Column(1, "p", tString)), []types.DataType{tString, tString}, ReasonShape},
		{call(expr.OpAdd, types.DecimalOf(38, 2), expr.Column(0, "a", types.DecimalOf(38, 2)), expr.Column(1, "b", types.DecimalOf(38, 2))),
			[]types.DataType{types.DecimalOf(38, 2), types.DecimalOf(38, 2)}, ReasonLimit},
		{call(expr.OpCast, tBool, expr.Column(0, "d", tDouble)), []types.DataType{tDouble}, ReasonExpression},
	} {
		_, err := NewBuilder(tc.ins).Expr(tc.e)
		var u *Unsupported
		if !errors.As(err, &u) || u.Code != tc.code {
			t.Errorf("%s: %v, want reason %s", tc.e, err, tc.code)
		}
	}
}

func TestRegisterLimit(t *testing.T) {
	e := expr.Column(0, "x", tLong)
	for i := 0; i < 70; i++ {
		e = call(expr.OpAdd, tLong, e, expr.Column(0, "x", tLong))
	}
	var u *Unsupported
	if _, err := NewBuilder([]types.DataType{tLong}).Expr(e); !errors.As(err, &u) || u.Code != ReasonLimit {
		t.Fatalf("70 nested additions: %v", err)
	}
}

func TestConstants(t *testing.T) {
	for _, tc := range []struct {
		v    any
		t    types.DataType
		want device.Const
	}{
		{int32(7), tInt, device.ConstI32(7)},
		{int64(-7), tLong, device.ConstI64(-7)},
		{big.NewInt(-5), tDec152, device.ConstI64(-5)},
		{big.NewInt(-1), types.DecimalOf(38, 0), device.ConstI128(^uint64(0), ^uint64(0))},
		{"x", tString, device.ConstStr("x")},
		{nil, tLong, device.ConstNull(device.VTI64)},
	} {
		c, err := constOf(expr.Literal(tc.v, tc.t))
		if err != nil || c.VType != tc.want.VType || c.Lo != tc.want.Lo || c.Hi != tc.want.Hi || c.Null != tc.want.Null || string(c.Str) != string(tc.want.Str) {
			t.Errorf("%v %s: %+v %v, want %+v", tc.v, tc.t, c, err, tc.want)
		}
	}
	if _, err := constOf(expr.Literal(new(big.Int).Lsh(big.NewInt(1), 130), types.DecimalOf(38, 0))); err == nil {
		t.Error("a 131-bit decimal literal encoded")
	}
}

// A subexpression used twice (Q1's price*(1-discount), summed alone and
// inside the charge) is computed once; equal-looking expressions of other
// types, columns or literals are not merged.
func TestCompileSharesSubexpressions(t *testing.T) {
	price, disc, tax := expr.Column(0, "p", tDec152), expr.Column(1, "d", tDec152), expr.Column(2, "t", tDec152)
	one := expr.Decimal(1, 1, 0)
	dp := func() *expr.Expr {
		return call(expr.OpMul, types.DecimalOf(32, 4), price, call(expr.OpSub, types.DecimalOf(16, 2), one, disc))
	}
	b := NewBuilder([]types.DataType{tDec152, tDec152, tDec152})
	r1, err := b.Expr(dp())
	if err != nil {
		t.Fatal(err)
	}
	r2, err := b.Expr(call(expr.OpMul, types.DecimalOf(38, 6), dp(), call(expr.OpAdd, types.DecimalOf(16, 2), one, tax)))
	if err != nil {
		t.Fatal(err)
	}
	r3, err := b.Expr(dp())
	if err != nil {
		t.Fatal(err)
	}
	// not the same: another literal, another column
	r4, err := b.Expr(call(expr.OpMul, types.DecimalOf(32, 4), price, call(expr.OpSub, types.DecimalOf(16, 2), expr.Decimal(2, 1, 0), disc)))
	if err != nil {
		t.Fatal(err)
	}
	r5, err := b.Expr(call(expr.OpMul, types.DecimalOf(32, 4), tax, call(expr.OpSub, types.DecimalOf(16, 2), one, disc)))
	if err != nil {
		t.Fatal(err)
	}
	if r1 != r3 || r1 == r2 || r4 == r1 || r5 == r1 || r5 == r4 {
		t.Fatalf("registers %d %d %d %d %d: want the first and third equal, the rest distinct", r1, r2, r3, r4, r5)
	}
	p, err := b.Pipeline(make([]device.Column, 3), device.SinkProject, []uint16{r1, r2, r3, r4, r5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var muls, subs int
	for _, in := range p.Insns {
		switch in.Op {
		case device.KDecMul:
			muls++
		case device.KDecSub:
			subs++
		}
	}
	// dp, dp*(1+t), p*(2-d), t*(1-d); 1-d and 2-d
	if muls != 4 || subs != 2 {
		t.Fatalf("%d DEC_MUL and %d DEC_SUB, want 4 and 2:\n%+v", muls, subs, p.Insns)
	}
}

// TestFilterOrder: a conjunction's FILTERs run cheapest first (null tests,
// literal ranges, other numeric tests, strings and branches), the written
// order kept within a class: Q12's string IN list runs after its dates.
func TestFilterOrder(t *testing.T) {
	mode := expr.Column(0, "l_shipmode", tString)
	commit, receipt := expr.Column(1, "l_commitdate", tDate), expr.Column(2, "l_receiptdate", tDate)
	in := call(expr.OpIn, tBool, mode, expr.Literal("MAIL", tString), expr.Literal("SHIP", tString))
	nn := call(expr.OpIsNotNull, tBool, commit)
	colCol := call(expr.OpLt, tBool, commit, receipt)
	ge := call(expr.OpGe, tBool, receipt, expr.Literal(int32(8766), tDate))
	lt := call(expr.OpLt, tBool, receipt, expr.Literal(int32(9131), tDate))
	or := call(expr.OpOr, tBool, call(expr.OpGt, tBool, commit, expr.Literal(int32(1), tDate)), lt)
	and := func(xs ...*expr.Expr) *expr.Expr {
		e := xs[0]
		for _, x := range xs[1:] {
			e = call(expr.OpAnd, tBool, e, x)
		}
		return e
	}
	got := conjuncts(and(in, nn, colCol, or, ge, lt), nil)
	slices.SortStableFunc(got, func(x, y *expr.Expr) int { return filterCost(x) - filterCost(y) })
	want := []*expr.Expr{nn, ge, lt, colCol, or, in}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("conjunct %d: %s, want %s (order %v)", i, got[i], want[i], got)
		}
	}
	// the compiled program filters in that order: the IN list is last
	b := NewBuilder([]types.DataType{tString, tDate, tDate})
	if err := b.Filter(and(in, nn, colCol, or, ge, lt)); err != nil {
		t.Fatal(err)
	}
	var last device.Kernel
	for _, insn := range b.p.Insns {
		if insn.Op != device.KFilter {
			last = insn.Op
		}
	}
	if last != device.KIn {
		t.Errorf("the last test before a FILTER is %v, want IN", last)
	}
}
