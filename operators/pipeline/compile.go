package pipeline

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

// Builder compiles expressions over an input schema into the instructions
// of one device pipeline. Columns are loaded once however often they are
// used; top-level conjuncts of a filter become successive FILTER
// instructions, so later ones only see the rows earlier ones kept.
type Builder struct {
	inputs  []types.DataType // input column types
	storage []device.VType   // their physical storage, where it differs from VTypeOf
	p       device.Pipeline
	colReg  map[int]uint16
	// done maps an expression's structure (exprKey) to the register
	// already holding it: a subexpression used twice (Q1's
	// price*(1-discount) in two sums) is computed once. Registers are
	// written once and a vector's selection only shrinks, so a register
	// computed earlier holds every row a later instruction reads.
	done map[string]reg
	keys map[*expr.Expr]string
}

// NewBuilder starts a pipeline over input columns of these types, stored
// as VTypeOf says.
func NewBuilder(inputs []types.DataType) *Builder {
	return &Builder{inputs: inputs, colReg: map[int]uint16{}}
}

// NewBuilderStorage starts a pipeline over input columns whose physical
// storage is given: a decimal(15,2) column may arrive as Arrow decimal128
// (16 bytes) and is then narrowed to the 64-bit register the type calls for.
func NewBuilderStorage(inputs []types.DataType, storage []device.VType) *Builder {
	return &Builder{inputs: inputs, storage: storage, colReg: map[int]uint16{}}
}

type reg struct {
	r  uint16
	vt device.VType
	t  types.DataType
}

func (b *Builder) newReg(vt device.VType) (uint16, error) {
	if len(b.p.RegTypes) >= device.MaxRegisters {
		return 0, &Unsupported{Code: ReasonLimit, Msg: fmt.Sprintf("the pipeline needs more than %d registers", device.MaxRegisters)}
	}
	b.p.RegTypes = append(b.p.RegTypes, vt)
	return uint16(len(b.p.RegTypes) - 1), nil
}

func (b *Builder) emit(in device.Insn) error {
	if len(b.p.Insns) >= device.MaxInsns {
		return &Unsupported{Code: ReasonLimit, Msg: fmt.Sprintf("the pipeline needs more than %d instructions", device.MaxInsns)}
	}
	b.p.Insns = append(b.p.Insns, in)
	return nil
}

// op emits dst = k(args…) into a fresh register of type vt.
func (b *Builder) op(k device.Kernel, vt, opvt device.VType, in device.Insn) (uint16, error) {
	d, err := b.newReg(vt)
	if err != nil {
		return 0, err
	}
	in.Op, in.Dst, in.VType = k, d, opvt
	return d, b.emit(in)
}

func (b *Builder) constant(c device.Const) uint16 {
	b.p.Consts = append(b.p.Consts, c)
	return uint16(len(b.p.Consts) - 1)
}

// Filter compiles a condition into FILTER instructions, one per top-level
// conjunct.
//
// A conjunction becomes one FILTER per conjunct, cheapest first (see
// filterCost): each narrows the selection the next one runs over, so a
// string IN list tested after a date range reads a seventh of the rows.
// The rows kept are the same in any order (non-ANSI expressions do not
// fail); DuckDB's optimizer orders conjuncts by cost the same way.
func (b *Builder) Filter(cond *expr.Expr) error {
	if cond.Type.Kind != types.Boolean {
		return fmt.Errorf("pipeline: filter condition %s is %s, not boolean", cond, cond.Type)
	}
	terms := conjuncts(cond, nil)
	slices.SortStableFunc(terms, func(x, y *expr.Expr) int { return filterCost(x) - filterCost(y) })
	for _, t := range terms {
		r, err := b.Expr(t)
		if err != nil {
			return err
		}
		if err := b.emit(device.Insn{Op: device.KFilter, VType: device.VTBool, A: r}); err != nil {
			return err
		}
	}
	return nil
}

// conjuncts appends the terms of an AND tree to out, left to right.
func conjuncts(e *expr.Expr, out []*expr.Expr) []*expr.Expr {
	if e.Op == expr.OpAnd {
		return conjuncts(e.Args[1], conjuncts(e.Args[0], out))
	}
	return append(out, e)
}

// filterCost ranks a conjunct by what it costs per row: null tests, then
// comparisons of a number or date with a literal (range filters, fused on
// the device), then other numeric tests, then anything that reads strings
// (comparisons, IN lists, LIKE) or branches (OR, CASE).
func filterCost(e *expr.Expr) int {
	strs, other := false, false
	var walk func(*expr.Expr)
	walk = func(x *expr.Expr) {
		if x.Type.Kind == types.String {
			strs = true
		}
		switch x.Op {
		case expr.OpOr, expr.OpCaseWhen, expr.OpIf, expr.OpCoalesce:
			other = true
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	switch {
	case e.Op == expr.OpIsNull || e.Op == expr.OpIsNotNull:
		return 0
	case strs:
		return 4
	case other:
		return 3
	}
	switch e.Op {
	case expr.OpEq, expr.OpNe, expr.OpLt, expr.OpLe, expr.OpGt, expr.OpGe:
		if isLeaf(e.Args[0]) && isLeaf(e.Args[1]) && (e.Args[0].Op == expr.OpLiteral || e.Args[1].Op == expr.OpLiteral) {
			return 1
		}
	}
	return 2
}

func isLeaf(e *expr.Expr) bool { return e.Op == expr.OpColumn || e.Op == expr.OpLiteral }

// Expr compiles an expression and returns the register holding it.
func (b *Builder) Expr(e *expr.Expr) (uint16, error) {
	r, err := b.compile(e)
	return r.r, err
}

// Pipeline finishes the pipeline with a sink over the given input columns
// (device descriptors, in input order).
func (b *Builder) Pipeline(cols []device.Column, sink device.Sink, project []uint16, agg *device.AggSpec) (*device.Pipeline, error) {
	if len(cols) != len(b.inputs) {
		return nil, fmt.Errorf("pipeline: %d column descriptors for %d inputs", len(cols), len(b.inputs))
	}
	p := b.p
	p.Columns, p.Sink, p.Project, p.Agg = cols, sink, project, agg
	return &p, p.Validate()
}

func unsupported(e *expr.Expr, why string) error {
	return &Unsupported{Code: ReasonExpression, Msg: fmt.Sprintf("%s: %s", e, why)}
}

// exprKey is a string that two expressions share exactly when they have
// the same operation, result type, column, literal value and arguments.
func (b *Builder) exprKey(e *expr.Expr) string {
	if k, ok := b.keys[e]; ok {
		return k
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "(%d %d/%d/%d/%q", e.Op, e.Type.Kind, e.Type.Precision, e.Type.Scale, e.Type.Name)
	switch e.Op {
	case expr.OpColumn:
		fmt.Fprintf(&sb, " c%d", e.Col)
	case expr.OpLiteral:
		fmt.Fprintf(&sb, " %T %q", e.Value, e.String())
	}
	for _, a := range e.Args {
		sb.WriteByte(' ')
		sb.WriteString(b.exprKey(a))
	}
	sb.WriteByte(')')
	k := sb.String()
	if b.keys == nil {
		b.keys = map[*expr.Expr]string{}
	}
	b.keys[e] = k
	return k
}

func (b *Builder) compile(e *expr.Expr) (reg, error) {
	k := b.exprKey(e)
	if r, ok := b.done[k]; ok {
		return r, nil
	}
	r, err := b.compileNew(e)
	if err == nil {
		if b.done == nil {
			b.done = map[string]reg{}
		}
		b.done[k] = r
	}
	return r, err
}

func (b *Builder) compileNew(e *expr.Expr) (reg, error) {
	vt, err := VTypeOf(e.Type)
	if err != nil && e.Op != expr.OpUnscaledValue {
		return reg{}, err
	}
	out := func(r uint16, err error) (reg, error) { return reg{r, vt, e.Type}, err }
	switch e.Op {
	case expr.OpColumn:
		if e.Col < 0 || e.Col >= len(b.inputs) {
			return reg{}, fmt.Errorf("pipeline: column %d of %d inputs", e.Col, len(b.inputs))
		}
		if r, ok := b.colReg[e.Col]; ok {
			return reg{r, vt, e.Type}, nil
		}
		sv := vt
		if e.Col < len(b.storage) && b.storage[e.Col] != 0 {
			sv = b.storage[e.Col]
		}
		r, err := b.op(device.KColumn, sv, sv, device.Insn{P1: int32(e.Col)})
		if err == nil && sv != vt {
			if e.Type.Kind != types.Decimal {
				return reg{}, unsupported(e, fmt.Sprintf("column stored as %s for type %s", sv, e.Type))
			}
			r, err = b.op(device.KDecRescale, vt, vt, device.Insn{A: r, P2: int32(sv)})
		}
		b.colReg[e.Col] = r
		return out(r, err)
	case expr.OpLiteral:
		c, err := constOf(e)
		if err != nil {
			return reg{}, err
		}
		return out(b.op(device.KConst, vt, vt, device.Insn{P1: int32(b.constant(c))}))
	case expr.OpEq, expr.OpNe, expr.OpLt, expr.OpLe, expr.OpGt, expr.OpGe, expr.OpEqNullSafe:
		return b.compare(e)
	case expr.OpAnd, expr.OpOr:
		x, y, err := b.two(e)
		if err != nil {
			return reg{}, err
		}
		k := device.KAnd
		if e.Op == expr.OpOr {
			k = device.KOr
		}
		return out(b.op(k, device.VTBool, device.VTBool, device.Insn{A: x.r, B: y.r}))
	case expr.OpNot:
		x, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		return out(b.op(device.KNot, device.VTBool, device.VTBool, device.Insn{A: x.r}))
	case expr.OpIsNull, expr.OpIsNotNull:
		x, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		k := device.KIsNull
		if e.Op == expr.OpIsNotNull {
			k = device.KIsNotNull
		}
		return out(b.op(k, device.VTBool, x.vt, device.Insn{A: x.r}))
	case expr.OpIn:
		return b.in(e)
	case expr.OpCaseWhen, expr.OpIf, expr.OpCoalesce:
		return b.conditional(e)
	case expr.OpAdd, expr.OpSub, expr.OpMul, expr.OpDiv, expr.OpMod:
		if e.Type.Kind == types.Decimal {
			return b.decimalArith(e)
		}
		return b.arith(e)
	case expr.OpNeg:
		return b.negate(e)
	case expr.OpCast:
		return b.cast(e)
	case expr.OpCheckOverflow:
		x, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		return b.toDecimal(x, e.Type)
	case expr.OpPromotePrecision:
		return b.compile(e.Args[0])
	case expr.OpUnscaledValue:
		x, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		if x.vt != device.VTI64 {
			return reg{}, unsupported(e, "UnscaledValue of a decimal wider than 18 digits")
		}
		return reg{x.r, device.VTI64, e.Type}, nil // same bits, read as bigint
	case expr.OpMakeDecimal:
		x, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		x.t = types.DecimalOf(18, e.Type.Scale) // the unscaled long read at the target scale
		return b.toDecimal(x, e.Type)
	case expr.OpYear, expr.OpMonth, expr.OpDayOfMonth:
		x, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		k := map[expr.Op]device.Kernel{expr.OpYear: device.KYear, expr.OpMonth: device.KMonth, expr.OpDayOfMonth: device.KDay}[e.Op]
		return out(b.op(k, device.VTI32, device.VTI32, device.Insn{A: x.r}))
	case expr.OpDateAdd, expr.OpDateSub:
		return b.dateAdd(e)
	case expr.OpStartsWith, expr.OpEndsWith, expr.OpContains, expr.OpLike:
		return b.stringMatch(e)
	case expr.OpSubstring:
		x, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		pos, ok1 := intLiteral(e.Args[1])
		n, ok2 := intLiteral(e.Args[2])
		if !ok1 || !ok2 {
			return reg{}, &Unsupported{Code: ReasonShape, Msg: fmt.Sprintf("%s: substring position and length must be literals", e)}
		}
		return out(b.op(device.KSubstr, device.VTStr, device.VTStr, device.Insn{A: x.r, P1: int32(pos), P2: int32(n)}))
	case expr.OpLength:
		x, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		return out(b.op(device.KLength, device.VTI32, device.VTStr, device.Insn{A: x.r}))
	}
	return reg{}, unsupported(e, "no device kernel")
}

func (b *Builder) two(e *expr.Expr) (reg, reg, error) {
	x, err := b.compile(e.Args[0])
	if err != nil {
		return reg{}, reg{}, err
	}
	y, err := b.compile(e.Args[1])
	return x, y, err
}

// operand compiles an argument as a constant when it is a literal (the fast
// kernels take a constant operand) and as a register otherwise.
func (b *Builder) operand(e *expr.Expr, t types.DataType) (r uint16, isConst bool, err error) {
	if e.Op == expr.OpLiteral {
		c, err := constOf(&expr.Expr{Op: expr.OpLiteral, Value: e.Value, Type: t})
		if err != nil {
			return 0, false, err
		}
		return b.constant(c), true, nil
	}
	x, err := b.compile(e)
	return x.r, false, err
}

var cmpKernels = map[expr.Op]device.Kernel{expr.OpEq: device.KEq, expr.OpNe: device.KNe, expr.OpLt: device.KLt,
	expr.OpLe: device.KLe, expr.OpGt: device.KGt, expr.OpGe: device.KGe, expr.OpEqNullSafe: device.KEqNullSafe}

// flipped is the comparison with its operands swapped.
var flipped = map[expr.Op]expr.Op{expr.OpEq: expr.OpEq, expr.OpNe: expr.OpNe, expr.OpLt: expr.OpGt, expr.OpLe: expr.OpGe,
	expr.OpGt: expr.OpLt, expr.OpGe: expr.OpLe, expr.OpEqNullSafe: expr.OpEqNullSafe}

func (b *Builder) compare(e *expr.Expr) (reg, error) {
	l, r, op := e.Args[0], e.Args[1], e.Op
	if l.Op == expr.OpLiteral && r.Op != expr.OpLiteral { // constant on the right: the fast kernels
		l, r, op = r, l, flipped[op]
	}
	lt, rt := l.Type, r.Type
	if lt.Kind == types.Decimal && rt.Kind == types.Decimal && (lt.Scale != rt.Scale || lt.Precision != rt.Precision) {
		// compare at a common scale and storage
		w := types.DecimalOf(min(38, max(lt.Precision-lt.Scale, rt.Precision-rt.Scale)+max(lt.Scale, rt.Scale)), max(lt.Scale, rt.Scale))
		l = expr.Call(expr.OpCast, w, l)
		r = castLiteral(r, w)
		lt, rt = w, w
	}
	if lt.Kind != rt.Kind && !(isDateLike(lt) && isDateLike(rt)) {
		return reg{}, unsupported(e, fmt.Sprintf("comparison of %s with %s (the planner must cast)", lt, rt))
	}
	x, err := b.compile(l)
	if err != nil {
		return reg{}, err
	}
	y, isConst, err := b.operand(r, lt)
	if err != nil {
		return reg{}, err
	}
	in := device.Insn{A: x.r, B: y}
	if isConst {
		in.Flags = device.IfBConst
	}
	d, err := b.op(cmpKernels[op], device.VTBool, x.vt, in)
	return reg{d, device.VTBool, e.Type}, err
}

func isDateLike(t types.DataType) bool { return t.Kind == types.Date || t.Kind == types.Int }

// castLiteral retypes a decimal literal to a wider decimal type, or wraps
// a non-literal in a cast.
func castLiteral(e *expr.Expr, t types.DataType) *expr.Expr {
	if e.Op == expr.OpLiteral {
		if u, ok := e.Value.(*big.Int); ok {
			v := new(big.Int).Mul(u, pow10(t.Scale-e.Type.Scale))
			return expr.Literal(v, t)
		}
	}
	return expr.Call(expr.OpCast, t, e)
}

func (b *Builder) in(e *expr.Expr) (reg, error) {
	x, err := b.compile(e.Args[0])
	if err != nil {
		return reg{}, err
	}
	first := len(b.p.Consts)
	for _, a := range e.Args[1:] {
		if a.Op != expr.OpLiteral {
			return reg{}, &Unsupported{Code: ReasonShape, Msg: fmt.Sprintf("%s: IN list must be literals", e)}
		}
		c, err := constOf(&expr.Expr{Op: expr.OpLiteral, Value: castValue(a, e.Args[0].Type), Type: e.Args[0].Type})
		if err != nil {
			return reg{}, err
		}
		b.constant(c)
	}
	d, err := b.op(device.KIn, device.VTBool, x.vt, device.Insn{A: x.r, P1: int32(first), P2: int32(len(e.Args) - 1)})
	return reg{d, device.VTBool, e.Type}, err
}

// castValue rescales a decimal IN-list literal to the tested value's scale.
func castValue(lit *expr.Expr, t types.DataType) any {
	if u, ok := lit.Value.(*big.Int); ok && t.Kind == types.Decimal && lit.Type.Scale < t.Scale {
		return new(big.Int).Mul(u, pow10(t.Scale-lit.Type.Scale))
	}
	return lit.Value
}

func (b *Builder) conditional(e *expr.Expr) (reg, error) {
	vt, _ := VTypeOf(e.Type)
	sel := func(cond, then, els reg) (reg, error) {
		d, err := b.op(device.KSelect, vt, vt, device.Insn{A: then.r, B: els.r, C: cond.r})
		return reg{d, vt, e.Type}, err
	}
	nullReg := func() (reg, error) {
		d, err := b.op(device.KConst, vt, vt, device.Insn{P1: int32(b.constant(device.ConstNull(vt)))})
		return reg{d, vt, e.Type}, err
	}
	switch e.Op {
	case expr.OpIf:
		c, err := b.compile(e.Args[0])
		if err != nil {
			return reg{}, err
		}
		t, f, err := b.twoOf(e.Args[1], e.Args[2])
		if err != nil {
			return reg{}, err
		}
		return sel(c, t, f)
	case expr.OpCoalesce:
		acc, err := b.compile(e.Args[len(e.Args)-1])
		if err != nil {
			return reg{}, err
		}
		for i := len(e.Args) - 2; i >= 0; i-- {
			x, err := b.compile(e.Args[i])
			if err != nil {
				return reg{}, err
			}
			nn, err := b.op(device.KIsNotNull, device.VTBool, x.vt, device.Insn{A: x.r})
			if err != nil {
				return reg{}, err
			}
			if acc, err = sel(reg{r: nn}, x, acc); err != nil {
				return reg{}, err
			}
		}
		return acc, nil
	default: // CASE WHEN
		n := len(e.Args)
		var acc reg
		var err error
		if n%2 == 1 {
			acc, err = b.compile(e.Args[n-1])
			n--
		} else {
			acc, err = nullReg()
		}
		if err != nil {
			return reg{}, err
		}
		for i := n - 2; i >= 0; i -= 2 {
			c, err := b.compile(e.Args[i])
			if err != nil {
				return reg{}, err
			}
			v, err := b.compile(e.Args[i+1])
			if err != nil {
				return reg{}, err
			}
			if acc, err = sel(c, v, acc); err != nil {
				return reg{}, err
			}
		}
		return acc, nil
	}
}

func (b *Builder) twoOf(x, y *expr.Expr) (reg, reg, error) {
	a, err := b.compile(x)
	if err != nil {
		return reg{}, reg{}, err
	}
	c, err := b.compile(y)
	return a, c, err
}

var arithKernels = map[expr.Op]device.Kernel{expr.OpAdd: device.KAdd, expr.OpSub: device.KSub, expr.OpMul: device.KMul,
	expr.OpDiv: device.KDiv, expr.OpMod: device.KMod}

func (b *Builder) arith(e *expr.Expr) (reg, error) {
	vt, err := VTypeOf(e.Type)
	if err != nil {
		return reg{}, err
	}
	if e.Args[0].Type != e.Type || e.Args[1].Type != e.Type {
		return reg{}, unsupported(e, fmt.Sprintf("%s of %s and %s into %s (the planner must cast)", e.Op, e.Args[0].Type, e.Args[1].Type, e.Type))
	}
	x, err := b.compile(e.Args[0])
	if err != nil {
		return reg{}, err
	}
	y, isConst, err := b.operand(e.Args[1], e.Type)
	if err != nil {
		return reg{}, err
	}
	in := device.Insn{A: x.r, B: y}
	if isConst {
		in.Flags = device.IfBConst
	}
	if e.Op == expr.OpDiv || e.Op == expr.OpMod {
		in.P1 = 1 // by zero: NULL (Spark)
	}
	d, err := b.op(arithKernels[e.Op], vt, vt, in)
	return reg{d, vt, e.Type}, err
}

func (b *Builder) negate(e *expr.Expr) (reg, error) {
	if e.Type.Kind == types.Decimal {
		zero := expr.Literal(big.NewInt(0), e.Type)
		return b.decimalArith(expr.Call(expr.OpSub, e.Type, zero, e.Args[0]))
	}
	vt, err := VTypeOf(e.Type)
	if err != nil {
		return reg{}, err
	}
	x, err := b.compile(e.Args[0])
	if err != nil {
		return reg{}, err
	}
	d, err := b.op(device.KNeg, vt, vt, device.Insn{A: x.r})
	return reg{d, vt, e.Type}, err
}

func (b *Builder) dateAdd(e *expr.Expr) (reg, error) {
	x, err := b.compile(e.Args[0])
	if err != nil {
		return reg{}, err
	}
	days := e.Args[1]
	if e.Op == expr.OpDateSub {
		if v, ok := intLiteral(days); ok {
			days = expr.Literal(int32(-v), days.Type)
		} else {
			days = expr.Call(expr.OpNeg, days.Type, days)
		}
	}
	y, isConst, err := b.operand(days, types.DataType{Kind: types.Int})
	if err != nil {
		return reg{}, err
	}
	in := device.Insn{A: x.r, B: y}
	if isConst {
		in.Flags = device.IfBConst
	}
	d, err := b.op(device.KDateAdd, device.VTI32, device.VTI32, in)
	return reg{d, device.VTI32, e.Type}, err
}

var matchKernels = map[expr.Op]device.Kernel{expr.OpStartsWith: device.KStartsWith, expr.OpEndsWith: device.KEndsWith,
	expr.OpContains: device.KContains, expr.OpLike: device.KLike}

func (b *Builder) stringMatch(e *expr.Expr) (reg, error) {
	if e.Args[1].Op != expr.OpLiteral {
		return reg{}, &Unsupported{Code: ReasonShape, Msg: fmt.Sprintf("%s: the pattern must be a literal", e)}
	}
	x, err := b.compile(e.Args[0])
	if err != nil {
		return reg{}, err
	}
	pat, ok := e.Args[1].Value.(string)
	if !ok {
		return reg{}, &Unsupported{Code: ReasonShape, Msg: fmt.Sprintf("%s: the pattern must be a non-null string", e)}
	}
	in := device.Insn{A: x.r, B: b.constant(device.ConstStr(pat)), Flags: device.IfBConst}
	if e.Op == expr.OpLike {
		in.P1 = '\\'
	}
	d, err := b.op(matchKernels[e.Op], device.VTBool, device.VTStr, in)
	return reg{d, device.VTBool, e.Type}, err
}

func intLiteral(e *expr.Expr) (int64, bool) {
	if e.Op != expr.OpLiteral {
		return 0, false
	}
	switch v := e.Value.(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// constOf encodes a literal as a device constant of its type's storage.
func constOf(e *expr.Expr) (device.Const, error) {
	vt, err := VTypeOf(e.Type)
	if err != nil {
		return device.Const{}, err
	}
	if e.Value == nil {
		return device.ConstNull(vt), nil
	}
	switch v := e.Value.(type) {
	case bool:
		return device.ConstBool(v), nil
	case int32:
		if vt == device.VTI64 {
			return device.ConstI64(int64(v)), nil
		}
		return device.ConstI32(v), nil
	case int64:
		if vt == device.VTI32 {
			if v < math.MinInt32 || v > math.MaxInt32 {
				return device.Const{}, fmt.Errorf("pipeline: literal %d does not fit %s", v, e.Type)
			}
			return device.ConstI32(int32(v)), nil
		}
		return device.ConstI64(v), nil
	case float64:
		return device.ConstF64(v), nil
	case string:
		return device.ConstStr(v), nil
	case *big.Int:
		if vt == device.VTI64 {
			if !v.IsInt64() {
				return device.Const{}, fmt.Errorf("pipeline: decimal literal %s does not fit %s", v, e.Type)
			}
			return device.ConstI64(v.Int64()), nil
		}
		lo, hi, ok := int128(v)
		if !ok {
			return device.Const{}, fmt.Errorf("pipeline: decimal literal %s does not fit 128 bits", v)
		}
		return device.ConstI128(lo, hi), nil
	}
	return device.Const{}, fmt.Errorf("pipeline: literal %v (%T) of type %s", e.Value, e.Value, e.Type)
}

var two128 = new(big.Int).Lsh(big.NewInt(1), 128)

// int128 splits a value into two's complement 128-bit halves.
func int128(v *big.Int) (lo, hi uint64, ok bool) {
	if v.BitLen() > 127 {
		return 0, 0, false
	}
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, two128)
	}
	mask := new(big.Int).SetUint64(math.MaxUint64)
	lo = new(big.Int).And(u, mask).Uint64()
	hi = new(big.Int).Rsh(u, 64).Uint64()
	return lo, hi, true
}
