package pipeline

import (
	"fmt"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
)

func storageOf(precision int) device.VType {
	if precision <= 18 {
		return device.VTI64
	}
	return device.VTI128
}

// toDecimal rescales a decimal register to a target type (HALF_UP) and
// nulls values that do not fit its precision (Spark's CheckOverflow).
func (b *Builder) toDecimal(x reg, t types.DataType) (reg, error) {
	if x.t.Kind != types.Decimal || t.Kind != types.Decimal {
		return reg{}, fmt.Errorf("pipeline: decimal conversion from %s to %s", x.t, t)
	}
	vt := storageOf(t.Precision)
	r := x.r
	var err error
	if delta := t.Scale - x.t.Scale; delta != 0 || vt != x.vt {
		if r, err = b.op(device.KDecRescale, vt, vt, device.Insn{A: x.r, P1: int32(delta), P2: int32(x.vt)}); err != nil {
			return reg{}, err
		}
	}
	// digits the rescaled value may have: its integer digits, the target
	// scale, and one more when rounding down can carry (9.99 -> 10.0)
	digits := x.t.Precision - x.t.Scale + t.Scale
	if t.Scale < x.t.Scale {
		digits++
	}
	if digits > t.Precision {
		if r, err = b.op(device.KDecCheck, vt, vt, device.Insn{A: r, P1: int32(t.Precision)}); err != nil {
			return reg{}, err
		}
	}
	return reg{r, vt, t}, nil
}

var decKernels = map[expr.Op]device.Kernel{expr.OpAdd: device.KDecAdd, expr.OpSub: device.KDecSub,
	expr.OpMul: device.KDecMul, expr.OpDiv: device.KDecDiv, expr.OpMod: device.KDecMod}

// decimalArith compiles + - * / % on decimals: an exact kernel at the
// operands' scales, then rounding to the result type and its overflow check.
func (b *Builder) decimalArith(e *expr.Expr) (reg, error) {
	ta, tb, t := e.Args[0].Type, e.Args[1].Type, e.Type
	if ta.Kind != types.Decimal || tb.Kind != types.Decimal {
		return reg{}, unsupported(e, fmt.Sprintf("decimal %s of %s and %s (the planner must cast to decimals)", e.Op, ta, tb))
	}
	x, err := b.compile(e.Args[0])
	if err != nil {
		return reg{}, err
	}
	y, isConst, err := b.operand(e.Args[1], tb)
	if err != nil {
		return reg{}, err
	}
	in := device.Insn{A: x.r, B: y, P2: int32(x.vt), P3: int32(storageOf(tb.Precision))}
	if isConst {
		in.Flags = device.IfBConst
	}
	sa, sb := ta.Scale, tb.Scale
	var exact types.DataType // type of the kernel's result, before rounding to t
	switch e.Op {
	case expr.OpAdd, expr.OpSub, expr.OpMod:
		s := max(sa, sb)
		p := max(ta.Precision-sa, tb.Precision-sb) + s + 1
		if e.Op == expr.OpMod {
			p = min(ta.Precision-sa, tb.Precision-sb) + s
		}
		if p > 38 {
			return reg{}, &Unsupported{Code: ReasonLimit, Msg: fmt.Sprintf("%s: exact intermediate of %d digits exceeds 38", e, p)}
		}
		in.Imm = uint64(s-sa) | uint64(s-sb)<<8
		exact = types.DecimalOf(p, s)
	case expr.OpMul:
		if t.Scale > sa+sb {
			return reg{}, unsupported(e, "result scale above the product's")
		}
		in.P1 = int32(sa + sb - t.Scale)
		exact = types.DecimalOf(t.Precision, t.Scale)
	case expr.OpDiv:
		in.P1 = int32(t.Scale - sa + sb)
		if in.P1 < 0 {
			return reg{}, &Unsupported{Code: ReasonLimit, Msg: fmt.Sprintf("%s: result scale %d below the operands'", e, t.Scale)}
		}
		exact = types.DecimalOf(t.Precision, t.Scale)
	}
	vt := storageOf(exact.Precision)
	d, err := b.op(decKernels[e.Op], vt, vt, in)
	if err != nil {
		return reg{}, err
	}
	if digits := quotientOrProductDigits(e.Op, ta, tb, t, in.P1); digits > t.Precision {
		// a type capped at 38 digits: the exact value may have more,
		// which Spark's CheckOverflow makes null; the kernel only nulls
		// what does not fit its 128-bit storage
		if d, err = b.op(device.KDecCheck, vt, vt, device.Insn{A: d, P1: int32(t.Precision)}); err != nil {
			return reg{}, err
		}
	}
	return b.toDecimal(reg{d, vt, exact}, t)
}

// quotientOrProductDigits is how many digits the result of a decimal
// multiply or divide at t's scale may have (0 for the other operators,
// whose exact type already counts them): the operands' integer digits
// (a divisor's scale adds to a quotient's), t's scale, and one more when
// the kernel rounds (a carry: 9.99 -> 10.0). shift is the kernel's
// rounding shift (product) or scale-up (quotient).
func quotientOrProductDigits(op expr.Op, ta, tb, t types.DataType, shift int32) int {
	switch op {
	case expr.OpMul:
		d := ta.Precision - ta.Scale + tb.Precision - tb.Scale + t.Scale
		if shift > 0 {
			d++
		}
		return d
	case expr.OpDiv:
		return ta.Precision - ta.Scale + tb.Scale + t.Scale + 1
	}
	return 0
}

// cast compiles Spark's non-ANSI casts between the supported types.
func (b *Builder) cast(e *expr.Expr) (reg, error) {
	from, to := e.Args[0].Type, e.Type
	x, err := b.compile(e.Args[0])
	if err != nil {
		return reg{}, err
	}
	if from == to {
		return x, nil
	}
	vt, err := VTypeOf(to)
	if err != nil {
		return reg{}, err
	}
	k := func(kernel device.Kernel, in device.Insn) (reg, error) {
		in.A = x.r
		d, err := b.op(kernel, vt, vt, in)
		return reg{d, vt, to}, err
	}
	isInt := func(t types.DataType) bool { return t.Kind == types.Int || t.Kind == types.Long }
	switch {
	case from.Kind == types.Int && to.Kind == types.Long:
		return k(device.KCastI32I64, device.Insn{})
	case from.Kind == types.Long && to.Kind == types.Int:
		return k(device.KCastI64I32, device.Insn{})
	case (isInt(from) || from.Kind == types.Decimal) && to.Kind == types.Double:
		return k(device.KCastToF64, device.Insn{P1: int32(from.Scale), P2: int32(x.vt)})
	case from.Kind == types.Double && to.Kind == types.Decimal:
		return k(device.KCastF64ToDec, device.Insn{P1: int32(to.Scale), P3: int32(to.Precision)})
	case from.Kind == types.Decimal && isInt(to):
		return k(device.KCastDecToInt, device.Insn{P1: int32(from.Scale), P2: int32(x.vt)})
	case isInt(from) && to.Kind == types.Decimal:
		r, err := k(device.KCastIntToDec, device.Insn{P1: int32(to.Scale), P2: int32(x.vt)})
		if err != nil {
			return reg{}, err
		}
		// the exact value has the integer's digits (10 for int, 19 for
		// bigint) plus the scale: the overflow check is needed only when
		// they can exceed the target precision (not for bigint to
		// decimal(20,0), say)
		digits := 19
		if from.Kind == types.Int {
			digits = 10
		}
		if to.Scale < 0 { // rounding may carry: keep the check
			digits = 38
		}
		exact := digits + max(0, to.Scale)
		r.t = types.DecimalOf(min(38, exact), to.Scale)
		out, err := b.toDecimal(r, to)
		if err != nil || exact <= 38 || to.Precision < 38 {
			return out, err // below 38, toDecimal checks whenever 38 digits may not fit
		}
		// the type capped at 38 digits hides that the value may have more
		// (bigint to decimal(38,20)): Spark gives null, so check
		out.r, err = b.op(device.KDecCheck, out.vt, out.vt, device.Insn{A: out.r, P1: int32(to.Precision)})
		return out, err
	case from.Kind == types.Decimal && to.Kind == types.Decimal:
		return b.toDecimal(x, to)
	case from.Kind == types.Double && isInt(to):
		return k(device.KCastF64ToInt, device.Insn{})
	case from.Kind == types.String && to.Kind == types.Date:
		return k(device.KCastStrDate, device.Insn{})
	case from.Kind == types.Date && to.Kind == types.String:
		return k(device.KCastDateStr, device.Insn{})
	case from.Kind == types.String && isInt(to):
		return k(device.KCastStrInt, device.Insn{})
	case from.Kind == types.String && to.Kind == types.Double:
		return k(device.KCastStrF64, device.Insn{})
	case isInt(from) && to.Kind == types.String:
		return k(device.KCastIntStr, device.Insn{P2: int32(x.vt)})
	case from.Kind == types.String && to.Kind == types.Decimal:
		return k(device.KCastStrDec, device.Insn{P1: int32(to.Scale), P3: int32(to.Precision)})
	case from.Kind == types.Timestamp && to.Kind == types.Date:
		return k(device.KCastTSDate, device.Insn{})
	case from.Kind == types.Date && to.Kind == types.Timestamp:
		return k(device.KCastDateTS, device.Insn{})
	}
	return reg{}, unsupported(e, fmt.Sprintf("cast from %s to %s", from, to))
}
