package soft_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
)

// Every kernel against its Go reference: random inputs with 0%, 10% and
// 100% nulls, vectors of 1, 7, 2048 and 5000 rows (the last spans three
// vectors), with and without a FILTER in front (so the kernel runs on a
// selection), and for compare and arithmetic kernels with a constant on
// either side.

type gen func(r *rand.Rand) val

// kspec is one kernel under test: the instruction (A, B, C are filled in),
// input types, result type, value generators and the reference.
type kspec struct {
	name   string
	insn   device.Insn
	in     []device.VType
	out    device.VType
	gens   []gen           // per input; nil: by type
	consts []device.Const  // extra constants (IN lists, patterns) numbered from 0
	bConst int             // >= 0: operand b is this extra constant (string kernels)
	ref    func([]val) val // nulls handled by the reference
	cvar   bool            // also run with a or b as a constant
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

var (
	strPool = []string{"", "a", "ab", "abc", "abd", "b", "ba", "héllo", "日本語", "日本", "x%y", "a_c", "abcabc",
		"ÿ", "\x7f", "zz top", "Hello, World", "ümlaut straße", "ab\\c", "%", "_"}
	f64Pool = []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1.5, -2.5, 1e300, -1e-300, 7, 3}
)

func genBool(r *rand.Rand) val { return val{i: int64(r.IntN(2))} }
func genI32(r *rand.Rand) val {
	if r.IntN(3) == 0 {
		return val{i: int64(pick(r, []int32{0, 1, -1, 7, -7, 3, math.MaxInt32, math.MinInt32}))}
	}
	return val{i: int64(int32(r.Uint32()))}
}
func genI64(r *rand.Rand) val {
	if r.IntN(3) == 0 {
		return val{i: pick(r, []int64{0, 1, -1, 7, -7, 3, math.MaxInt64, math.MinInt64})}
	}
	return val{i: int64(r.Uint64())}
}
func genF64(r *rand.Rand) val {
	if r.IntN(3) == 0 {
		return val{f: pick(r, f64Pool)}
	}
	return val{f: r.NormFloat64() * 1000}
}
func genI128(r *rand.Rand) val {
	x := new(big.Int).Lsh(big.NewInt(int64(r.Uint64()>>1)), uint(r.IntN(60)))
	x.Add(x, big.NewInt(int64(r.IntN(1000))))
	if r.IntN(2) == 0 {
		x.Neg(x)
	}
	if r.IntN(8) == 0 {
		x.SetInt64(int64(r.IntN(5)) - 2)
	}
	return val{x: x}
}
func genStr(r *rand.Rand) val {
	if r.IntN(3) > 0 {
		return val{s: pick(r, strPool)}
	}
	n := r.IntN(12)
	b := []rune{}
	for i := 0; i < n; i++ {
		b = append(b, pick(r, []rune("abcxyz é日%_")))
	}
	return val{s: string(b)}
}

// genDec64 makes decimal-sized I64 values (|x| < 10^digits).
func genDec64(digits int) gen {
	lim := int64(math.Pow10(digits))
	return func(r *rand.Rand) val {
		if r.IntN(10) == 0 {
			return val{i: pick(r, []int64{0, 5, -5, 50, -50, lim - 1, -(lim - 1)})}
		}
		return val{i: r.Int64N(2*lim) - lim}
	}
}

// genNarrow makes I64 values for the decimal kernels' 64-bit fast paths,
// which check a bound (lim) per vector: mostly small values, often ±(lim
// - 1) (still fast), rarely (about one vector in two) ±lim, ±(lim + 1),
// ±2lim (which overflows the destination at scale 10^2) or the type's
// extremes, which send the vector to the exact path.
func genNarrow(lim int64) gen {
	return func(r *rand.Rand) val {
		switch {
		case r.IntN(3000) == 0:
			return val{i: pick(r, []int64{lim, -lim, lim + 1, -lim - 1, 2 * lim, -2 * lim, math.MaxInt64, math.MinInt64})}
		case r.IntN(20) == 0:
			return val{i: pick(r, []int64{lim - 1, -(lim - 1), 0})}
		}
		return val{i: r.Int64N(2_000_001) - 1_000_000}
	}
}

// genBeyond makes values just past the fast path's bound lim and the
// destination's overflow point (2lim at scale 10^2) in a quarter of the
// rows: every vector takes the exact path, which must see them.
func genBeyond(lim int64) gen {
	return func(r *rand.Rand) val {
		if r.IntN(4) == 0 {
			return val{i: pick(r, []int64{lim, -lim, 2*lim + 1, -2*lim - 1, 3 * lim, -3 * lim})}
		}
		return val{i: r.Int64N(2_000_001) - 1_000_000}
	}
}

// genNarrow128 makes I128 values that mostly fit 64 bits (DEC_MUL's narrow
// path), with the 64-bit extremes, and rarely wider ones.
func genNarrow128(r *rand.Rand) val {
	x := new(big.Int)
	switch {
	case r.IntN(3000) == 0:
		x.Lsh(big.NewInt(1), 63)
		if r.IntN(2) == 0 {
			x.Neg(x).Sub(x, big.NewInt(1)) // -2^63 - 1
		}
	case r.IntN(20) == 0:
		x.SetInt64(pick(r, []int64{math.MaxInt64, math.MinInt64, 0, -1}))
	default:
		x.SetInt64(r.Int64N(2_000_000_001) - 1_000_000_000)
	}
	return val{x: x}
}

func genDecBig(digits int) gen {
	lim := pow10(digits)
	return func(r *rand.Rand) val {
		// digits of a random magnitude
		n := 1 + r.IntN(digits)
		x := new(big.Int)
		for i := 0; i < n; i++ {
			x.Mul(x, big10).Add(x, big.NewInt(int64(r.IntN(10))))
		}
		if x.Cmp(lim) >= 0 {
			x.Sub(lim, big.NewInt(1))
		}
		if r.IntN(2) == 0 {
			x.Neg(x)
		}
		return val{x: x}
	}
}

func genDate(r *rand.Rand) val {
	if r.IntN(4) == 0 {
		return val{i: pick(r, []int64{0, -1, 59, 60, 365, -719528, 10957, 11016, 2932896, -800000})}
	}
	return val{i: int64(r.IntN(200000)) - 100000}
}

func genPool(xs ...string) gen { return func(r *rand.Rand) val { return val{s: pick(r, xs)} } }

func defaultGen(vt device.VType) gen {
	switch vt {
	case device.VTBool:
		return genBool
	case device.VTI32:
		return genI32
	case device.VTI64:
		return genI64
	case device.VTF64:
		return genF64
	case device.VTI128:
		return genI128
	}
	return genStr
}

func kernelSpecs() []kspec {
	var specs []kspec
	types := []device.VType{device.VTI32, device.VTI64, device.VTF64, device.VTI128, device.VTStr, device.VTBool}
	for _, op := range []device.Kernel{device.KEq, device.KNe, device.KLt, device.KLe, device.KGt, device.KGe, device.KEqNullSafe} {
		for _, vt := range types {
			g := defaultGen(vt)
			if vt == device.VTI32 || vt == device.VTI64 { // collide often so EQ is exercised
				g = func(r *rand.Rand) val { return val{i: int64(r.IntN(5)) - 2} }
			}
			specs = append(specs, kspec{name: fmt.Sprintf("cmp%d/%s", op, vt), insn: device.Insn{Op: op, VType: vt},
				in: []device.VType{vt, vt}, out: device.VTBool, gens: []gen{g, g}, ref: refCompare(op, vt), cvar: true, bConst: -1})
		}
	}
	for _, op := range []device.Kernel{device.KAnd, device.KOr} {
		specs = append(specs, kspec{name: fmt.Sprintf("logic%d", op), insn: device.Insn{Op: op, VType: device.VTBool},
			in: []device.VType{device.VTBool, device.VTBool}, out: device.VTBool, ref: refLogic(op), cvar: true, bConst: -1})
	}
	specs = append(specs, kspec{name: "not", insn: device.Insn{Op: device.KNot, VType: device.VTBool},
		in: []device.VType{device.VTBool}, out: device.VTBool, ref: refLogic(device.KNot), bConst: -1})
	for _, vt := range types {
		for _, op := range []device.Kernel{device.KIsNull, device.KIsNotNull} {
			want := op == device.KIsNull
			specs = append(specs, kspec{name: fmt.Sprintf("isnull%d/%s", op, vt), insn: device.Insn{Op: op, VType: vt},
				in: []device.VType{vt}, out: device.VTBool, bConst: -1,
				ref: func(a []val) val { return boolV(a[0].null == want) }})
		}
		specs = append(specs, kspec{name: "select/" + vt.String(), insn: device.Insn{Op: device.KSelect, VType: vt},
			in: []device.VType{vt, vt, device.VTBool}, out: vt, ref: refSelect, cvar: true, bConst: -1})
	}
	// IN over I64 and STR, with and without a null in the list.
	for _, withNull := range []bool{false, true} {
		li := []device.Const{device.ConstI64(0), device.ConstI64(2), device.ConstI64(-1)}
		ls := []device.Const{device.ConstStr("a"), device.ConstStr("héllo"), device.ConstStr("")}
		if withNull {
			li = append(li, device.ConstNull(device.VTI64))
			ls = append(ls, device.ConstNull(device.VTStr))
		}
		specs = append(specs,
			kspec{name: fmt.Sprintf("in/i64/null=%v", withNull), insn: device.Insn{Op: device.KIn, VType: device.VTI64, P1: 0, P2: int32(len(li))},
				in: []device.VType{device.VTI64}, out: device.VTBool, consts: li, bConst: -1,
				gens: []gen{func(r *rand.Rand) val { return val{i: int64(r.IntN(6)) - 2} }}, ref: refIn(device.VTI64, constVals(li))},
			kspec{name: fmt.Sprintf("in/str/null=%v", withNull), insn: device.Insn{Op: device.KIn, VType: device.VTStr, P1: 0, P2: int32(len(ls))},
				in: []device.VType{device.VTStr}, out: device.VTBool, consts: ls, bConst: -1, ref: refIn(device.VTStr, constVals(ls))})
	}
	// IN over strings of every length class of str_eq (0, 1-3, 4-7, 8-16,
	// longer) against near misses: the same length, one byte off at the
	// first, a middle or the last position.
	var near []string
	var nearConsts []device.Const
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 31} {
		w := []byte(strings.Repeat("MAILSHIPTRUCKRAIL", 2)[:n])
		nearConsts = append(nearConsts, device.ConstStr(string(w)))
		near = append(near, string(w))
		for _, at := range []int{0, n / 2, n - 1} {
			m := append([]byte(nil), w...)
			m[at] ^= 1
			near = append(near, string(m))
		}
		near = append(near, string(w[:n-1]), string(w)+"X")
	}
	specs = append(specs, kspec{name: "in/str/near-misses", insn: device.Insn{Op: device.KIn, VType: device.VTStr, P1: 0, P2: int32(len(nearConsts))},
		in: []device.VType{device.VTStr}, out: device.VTBool, consts: nearConsts, bConst: -1,
		gens: []gen{genPool(near...)}, ref: refIn(device.VTStr, constVals(nearConsts))})
	// Arithmetic.
	for _, vt := range []device.VType{device.VTI32, device.VTI64, device.VTF64} {
		for _, op := range []device.Kernel{device.KAdd, device.KSub, device.KMul, device.KDiv, device.KMod, device.KNeg} {
			for p1 := int32(0); p1 <= 1; p1++ {
				if p1 == 1 && (vt != device.VTF64 || (op != device.KDiv && op != device.KMod)) {
					continue
				}
				in := []device.VType{vt, vt}
				if op == device.KNeg {
					in = in[:1]
				}
				specs = append(specs, kspec{name: fmt.Sprintf("arith%d/%s/p1=%d", op, vt, p1), insn: device.Insn{Op: op, VType: vt, P1: p1},
					in: in, out: vt, ref: refArith(op, vt, p1 == 1), cvar: op != device.KNeg, bConst: -1})
			}
		}
	}
	// Decimals.
	I64, I128 := device.VTI64, device.VTI128
	d64, d128 := genDec64(15), genDecBig(30)
	decs := []struct {
		op          device.Kernel
		out, ta, tb device.VType
		p1          int32
		imm         uint64
		ga, gb      gen
	}{
		{device.KDecAdd, I64, I64, I64, 0, 0, d64, d64},
		{device.KDecAdd, I64, I64, I64, 0, 2 << 8, d64, d64},
		{device.KDecAdd, I64, I64, I64, 0, 4, genI64, genI64},
		{device.KDecAdd, I128, I64, I64, 0, 3, d64, d64},
		{device.KDecAdd, I128, I128, I64, 0, 1 << 8, d128, d64},
		{device.KDecSub, I64, I64, I64, 0, 0, genI64, genI64},
		{device.KDecSub, I128, I128, I128, 0, 2, d128, d128},
		{device.KDecMul, I128, I64, I64, 0, 0, d64, d64},
		{device.KDecMul, I64, I64, I64, 0, 0, genDec64(10), genDec64(10)},
		{device.KDecMul, I64, I64, I64, 2, 0, d64, genDec64(4)},
		{device.KDecMul, I128, I64, I64, 7, 0, genI64, genI64},
		{device.KDecMul, I128, I64, I64, 40, 0, genI64, genI64},
		{device.KDecMul, I128, I128, I128, 10, 0, d128, d128},
		{device.KDecMul, I128, I128, I64, 0, 0, d128, d64},
		{device.KDecDiv, I128, I64, I64, 6, 0, d64, genDec64(3)},
		{device.KDecDiv, I64, I64, I64, 2, 0, d64, genDec64(5)},
		{device.KDecDiv, I128, I128, I128, 20, 0, d128, genDecBig(12)},
		{device.KDecDiv, I128, I128, I64, -3, 0, d128, genDec64(2)},
		{device.KDecMod, I64, I64, I64, 0, 2 << 8, d64, genDec64(3)},
		{device.KDecMod, I128, I128, I64, 0, 5, d128, genDec64(3)},
		// the 64-bit fast paths and their exact fallbacks (genNarrow)
		{device.KDecAdd, I64, I64, I64, 0, 2, genNarrow(1 << 62 / 100), d64},
		{device.KDecSub, I64, I64, I64, 0, 3 << 8, d64, genNarrow(1 << 62 / 1000)},
		{device.KDecAdd, I64, I64, I64, 0, 2, genBeyond(1 << 62 / 100), genDec64(3)},
		{device.KDecAdd, I64, I64, I64, 0, 0, genNarrow(math.MaxInt64 / 2), genNarrow(math.MaxInt64 / 2)},
		{device.KDecMul, I128, I128, I64, 0, 0, genNarrow128, genI64},
		{device.KDecMul, I128, I128, I64, 0, 0, genNarrow128, d64},
	}
	for _, c := range decs {
		in := device.Insn{Op: c.op, VType: c.out, P1: c.p1, P2: int32(c.ta), P3: int32(c.tb), Imm: c.imm}
		specs = append(specs, kspec{name: fmt.Sprintf("dec%d/%s=%s,%s/p1=%d/imm=%x", c.op, c.out, c.ta, c.tb, c.p1, c.imm), insn: in,
			in: []device.VType{c.ta, c.tb}, out: c.out, gens: []gen{c.ga, c.gb}, ref: refDec(in), cvar: true, bConst: -1})
	}
	for _, c := range []struct {
		vt device.VType
		p1 int32
		g  gen
	}{{I64, 10, d64}, {I64, 18, genI64}, {I128, 25, d128}, {I128, 38, genI128}} {
		in := device.Insn{Op: device.KDecCheck, VType: c.vt, P1: c.p1}
		specs = append(specs, kspec{name: fmt.Sprintf("deccheck/%s/%d", c.vt, c.p1), insn: in, in: []device.VType{c.vt}, out: c.vt,
			gens: []gen{c.g}, ref: refDec(in), bConst: -1})
	}
	for _, c := range []struct {
		out, ta device.VType
		p1      int32
		g       gen
	}{{I64, I64, 3, d64}, {I64, I64, -2, d64}, {I128, I64, 0, genI64}, {I128, I64, 20, genI64}, {I64, I128, -5, d128},
		{I128, I128, -40, genI128}, {I128, I128, 9, d128}} {
		in := device.Insn{Op: device.KDecRescale, VType: c.out, P1: c.p1, P2: int32(c.ta)}
		specs = append(specs, kspec{name: fmt.Sprintf("rescale/%s<-%s/%d", c.out, c.ta, c.p1), insn: in, in: []device.VType{c.ta}, out: c.out,
			gens: []gen{c.g}, ref: refDec(in), bConst: -1})
	}
	// Casts.
	numStrs := genPool("0", "1", "-1", "+7", " 42 ", "\t-13\n", "2147483647", "2147483648", "-2147483648", "-2147483649",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "1.9", "-1.9", ".5", "5.", ".", "+", "",
		"abc", "1e3", "12a", "1 2", "00012", "3.14159", "1.5e2", "-0.0", "1E-2", "1e400", "NaN", "-Infinity", "inf", "+inf",
		"1.0d", "2f", "0x10", "  -.25e+1  ", "123456789012345678901234567890", "0.000000000000000000000000000000000000000001")
	dateStrs := genPool("2020-01-01", "2020-1-1", "2020-02-29", "2021-02-29", "1970-01-01", " 1999-12-31 ", "2020-12-31T23:59:59",
		"2020-06-15 10:00", "2020", "2020-07", "20-01-01", "2020-13-01", "2020-00-10", "2020-01-32", "2020-01-", "-0044-03-15",
		"+2020-05-05", "12345-01-01", "abc", "", "2020/01/01", "2020-01-01-01", "0000-01-01", "9999999-12-31")
	f64Dec := func(r *rand.Rand) val {
		if r.IntN(3) == 0 {
			return val{f: pick(r, []float64{0.1, 0.125, -2.5, 2.675, 1e20, 1.0005, 123.456, math.NaN(), math.Inf(1), -0.0, 99.995})}
		}
		return val{f: float64(r.IntN(2000000)-1000000) / 1000}
	}
	f64Int := func(r *rand.Rand) val {
		if r.IntN(3) == 0 {
			return val{f: pick(r, []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e19, -1e19, 3e9, -3e9, 2.9, -2.9, 0})}
		}
		return val{f: r.NormFloat64() * 1e6}
	}
	casts := []struct {
		insn device.Insn
		a    device.VType
		g    gen
	}{
		{device.Insn{Op: device.KCastI32I64, VType: I64}, device.VTI32, nil},
		{device.Insn{Op: device.KCastI64I32, VType: device.VTI32}, I64, nil},
		{device.Insn{Op: device.KCastToF64, VType: device.VTF64, P2: int32(device.VTI32)}, device.VTI32, nil},
		{device.Insn{Op: device.KCastToF64, VType: device.VTF64, P2: int32(I64), P1: 2}, I64, nil},
		{device.Insn{Op: device.KCastToF64, VType: device.VTF64, P2: int32(I128), P1: 10}, I128, nil},
		{device.Insn{Op: device.KCastF64ToDec, VType: I64, P1: 2, P3: 10}, device.VTF64, f64Dec},
		{device.Insn{Op: device.KCastF64ToDec, VType: I128, P1: 4, P3: 38}, device.VTF64, f64Dec},
		{device.Insn{Op: device.KCastDecToInt, VType: device.VTI32, P1: 2, P2: int32(I64)}, I64, nil},
		{device.Insn{Op: device.KCastDecToInt, VType: I64, P1: 5, P2: int32(I128)}, I128, nil},
		{device.Insn{Op: device.KCastIntToDec, VType: I64, P1: 2, P2: int32(device.VTI32)}, device.VTI32, nil},
		{device.Insn{Op: device.KCastIntToDec, VType: I64, P1: 3, P2: int32(I64)}, I64, nil},
		{device.Insn{Op: device.KCastIntToDec, VType: I128, P1: 20, P2: int32(I64)}, I64, nil},
		{device.Insn{Op: device.KCastIntToDec, VType: I128, P1: 0, P2: int32(I64)}, I64, nil},
		{device.Insn{Op: device.KCastIntToDec, VType: I128, P1: 18, P2: int32(I64)}, I64, nil},
		{device.Insn{Op: device.KCastIntToDec, VType: I128, P1: 7, P2: int32(device.VTI32)}, device.VTI32, nil},
		{device.Insn{Op: device.KCastF64ToInt, VType: device.VTI32}, device.VTF64, f64Int},
		{device.Insn{Op: device.KCastF64ToInt, VType: I64}, device.VTF64, f64Int},
		{device.Insn{Op: device.KCastStrDate, VType: device.VTI32}, device.VTStr, dateStrs},
		{device.Insn{Op: device.KCastDateStr, VType: device.VTStr}, device.VTI32, genDate},
		{device.Insn{Op: device.KCastStrInt, VType: device.VTI32}, device.VTStr, numStrs},
		{device.Insn{Op: device.KCastStrInt, VType: I64}, device.VTStr, numStrs},
		{device.Insn{Op: device.KCastStrF64, VType: device.VTF64}, device.VTStr, numStrs},
		{device.Insn{Op: device.KCastIntStr, VType: device.VTStr}, device.VTI32, nil},
		{device.Insn{Op: device.KCastIntStr, VType: device.VTStr}, I64, nil},
		{device.Insn{Op: device.KCastStrDec, VType: I64, P1: 2, P3: 10}, device.VTStr, numStrs},
		{device.Insn{Op: device.KCastStrDec, VType: I128, P1: 5, P3: 38}, device.VTStr, numStrs},
		{device.Insn{Op: device.KCastTSDate, VType: device.VTI32}, I64, func(r *rand.Rand) val {
			return val{i: r.Int64N(1e17) - 5e16}
		}},
		{device.Insn{Op: device.KCastDateTS, VType: I64}, device.VTI32, genDate},
	}
	for _, c := range casts {
		out := c.insn.VType
		specs = append(specs, kspec{name: fmt.Sprintf("cast%d/%s->%s/p1=%d", c.insn.Op, c.a, out, c.insn.P1), insn: c.insn,
			in: []device.VType{c.a}, out: out, gens: []gen{c.g}, ref: refCast(c.insn, c.a), bConst: -1})
	}
	// Dates.
	for _, op := range []device.Kernel{device.KYear, device.KMonth, device.KDay} {
		specs = append(specs, kspec{name: fmt.Sprintf("date%d", op), insn: device.Insn{Op: op, VType: device.VTI32},
			in: []device.VType{device.VTI32}, out: device.VTI32, gens: []gen{genDate}, ref: refDate(op), bConst: -1})
	}
	specs = append(specs, kspec{name: "date_add", insn: device.Insn{Op: device.KDateAdd, VType: device.VTI32},
		in: []device.VType{device.VTI32, device.VTI32}, out: device.VTI32, gens: []gen{genDate, genI32}, ref: refDate(device.KDateAdd), cvar: true, bConst: -1})
	// Strings.
	for _, op := range []device.Kernel{device.KStartsWith, device.KEndsWith, device.KContains} {
		for _, pat := range []string{"", "a", "ab", "日", "c"} {
			specs = append(specs, kspec{name: fmt.Sprintf("strpred%d/%q", op, pat), insn: device.Insn{Op: op, VType: device.VTStr},
				in: []device.VType{device.VTStr}, out: device.VTBool, consts: []device.Const{device.ConstStr(pat)}, bConst: 0,
				ref: refStrPred(op, pat, '\\')})
		}
	}
	for _, lk := range []struct {
		pat string
		esc byte
	}{{"a%", 0}, {"%c", 0}, {"%b%", 0}, {"_", 0}, {"a_c", 0}, {"h_llo", 0}, {"%日_", 0}, {"a\\_c", 0}, {"x!%y", '!'}, {"%", 0},
		{"", 0}, {"%a%b%c%", 0}, {"__", 0}, {"ab%", 0},
		// patterns without '_' (the segment matcher): exact, anchored at both
		// ends with and without middle segments, overlapping anchors
		{"abc", 0}, {"a%c", 0}, {"ab%bc", 0}, {"abc%abc", 0}, {"%abc%abc%", 0}, {"a%a", 0}, {"%b%a", 0},
		{"日%", 0}, {"%%", 0}, {"x!%%", '!'}, {"a%b%c", 0}, {"%x%y", 0}} {
		specs = append(specs, kspec{name: fmt.Sprintf("like/%q", lk.pat), insn: device.Insn{Op: device.KLike, VType: device.VTStr, P1: int32(lk.esc)},
			in: []device.VType{device.VTStr}, out: device.VTBool, consts: []device.Const{device.ConstStr(lk.pat)}, bConst: 0,
			ref: refStrPred(device.KLike, lk.pat, escOr(lk.esc))})
	}
	// Long strings (past the 32-byte blocks of the AVX2 search) with the
	// words a comment filter looks for, near misses of them, and matches
	// at the very start and end.
	words := []string{"special", "requests", "specia", "equests", "spe cial", "xspecialx", "日本", "specibl", "requesxs", "rpecial"}
	genLong := func(r *rand.Rand) val {
		var b strings.Builder
		for b.Len() < 20+r.IntN(100) {
			if r.IntN(4) == 0 {
				b.WriteString(pick(r, words))
			} else {
				b.WriteByte("abcxyz "[r.IntN(7)])
			}
		}
		return val{s: b.String()}
	}
	for _, pat := range []string{"%special%requests%", "%spec%", "special%", "%requests", "%日本%", "%al%re%", "%xs%"} {
		specs = append(specs, kspec{name: fmt.Sprintf("like-long/%q", pat), insn: device.Insn{Op: device.KLike, VType: device.VTStr},
			in: []device.VType{device.VTStr}, out: device.VTBool, consts: []device.Const{device.ConstStr(pat)}, bConst: 0,
			gens: []gen{genLong}, ref: refStrPred(device.KLike, pat, '\\')})
	}
	for _, w := range []string{"special", "ts", "日本", "x"} {
		specs = append(specs, kspec{name: fmt.Sprintf("contains-long/%q", w), insn: device.Insn{Op: device.KContains, VType: device.VTStr},
			in: []device.VType{device.VTStr}, out: device.VTBool, consts: []device.Const{device.ConstStr(w)}, bConst: 0,
			gens: []gen{genLong}, ref: refStrPred(device.KContains, w, '\\')})
	}
	for _, pl := range [][2]int32{{1, 2}, {0, 3}, {2, -1}, {-2, 1}, {-3, -1}, {5, 1}, {-10, 3}, {1, 0}, {3, 100}} {
		specs = append(specs, kspec{name: fmt.Sprintf("substr/%d,%d", pl[0], pl[1]), insn: device.Insn{Op: device.KSubstr, VType: device.VTStr, P1: pl[0], P2: pl[1]},
			in: []device.VType{device.VTStr}, out: device.VTStr, ref: refSubstr(int(pl[0]), int(pl[1])), bConst: -1})
	}
	specs = append(specs, kspec{name: "length", insn: device.Insn{Op: device.KLength, VType: device.VTStr},
		in: []device.VType{device.VTStr}, out: device.VTI32, ref: refLength, bConst: -1})
	return specs
}

func escOr(e byte) byte {
	if e == 0 {
		return '\\'
	}
	return e
}

func constVals(cs []device.Const) []val {
	out := make([]val, len(cs))
	for i, c := range cs {
		out[i] = constVal(c)
	}
	return out
}

func constVal(c device.Const) val {
	if c.Null {
		return nullV
	}
	switch c.VType {
	case device.VTF64:
		return val{f: math.Float64frombits(c.Lo)}
	case device.VTI128:
		return val{x: i128From(append(le64(c.Lo), le64(c.Hi)...))}
	case device.VTStr:
		return val{s: string(c.Str)}
	case device.VTI32:
		return val{i: int64(int32(c.Lo))}
	}
	return val{i: int64(c.Lo)}
}

func le64(x uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(x >> (8 * i))
	}
	return b
}

// toConst makes a pipeline constant of a value.
func toConst(vt device.VType, v val) device.Const {
	if v.null {
		return device.ConstNull(vt)
	}
	switch vt {
	case device.VTBool:
		return device.ConstBool(v.i != 0)
	case device.VTI32:
		return device.ConstI32(int32(v.i))
	case device.VTI64:
		return device.ConstI64(v.i)
	case device.VTF64:
		return device.ConstF64(v.f)
	case device.VTI128:
		b := i128Bytes(v.x)
		var lo, hi uint64
		for i := 7; i >= 0; i-- {
			lo = lo<<8 | uint64(b[i])
			hi = hi<<8 | uint64(b[8+i])
		}
		return device.ConstI128(lo, hi)
	}
	return device.ConstStr(v.s)
}

// kcase is one run of a kernel spec.
type kcase struct {
	rows     int
	nullRate float64
	filter   bool
	constOp  int // 0 none, 1: a constant, 2: b constant
	constNul bool
	fused    bool // FILTER on the (BOOL) result and project the register input instead
	seed     uint64
}

// runKernelCase builds the pipeline (COLUMN loads, optional FILTER, the
// kernel, SINK_PROJECT of its result), runs it and checks every row.
func runKernelCase(t *testing.T, e *env, s kspec, c kcase) {
	t.Helper()
	r := rand.New(rand.NewPCG(c.seed, uint64(c.rows)))
	e.reset()
	k := len(s.in)
	p := &device.Pipeline{Sink: device.SinkProject}
	p.Consts = append(p.Consts, s.consts...)
	inputs := make([][]val, k)
	var cvals []val
	for j, vt := range s.in {
		g := defaultGen(vt)
		if j < len(s.gens) && s.gens[j] != nil {
			g = s.gens[j]
		}
		p.RegTypes = append(p.RegTypes, vt)
		isConst := (c.constOp == 1 && j == 0) || (c.constOp == 2 && j == 1)
		if isConst {
			v := g(r)
			if c.constNul {
				v = nullV
			}
			cvals = append(cvals, v)
			inputs[j] = nil
			p.Consts = append(p.Consts, toConst(vt, v))
			continue
		}
		vals := make([]val, c.rows)
		for i := range vals {
			if r.Float64() < c.nullRate {
				vals[i] = nullV
			} else {
				vals[i] = g(r)
			}
		}
		inputs[j] = vals
		// every third seed dictionary-encoded (any type but BOOL), with
		// int32, int8, uint8 or int16 codes
		enc := colEnc{offset: int(c.seed % 4), dict: vt == device.VTStr && c.seed%3 == 1, large: vt == device.VTStr && c.seed%3 == 2,
			fixed: vt != device.VTStr && vt != device.VTBool && c.seed%3 == 1, codes: int(c.seed/3) % 4}
		p.Columns = append(p.Columns, e.putColumn(vcol{vt: vt, vals: vals}, enc))
		p.Insns = append(p.Insns, device.Insn{Op: device.KColumn, VType: vt, Dst: uint16(j), P1: int32(len(p.Columns) - 1)})
	}
	keep := make([]bool, c.rows)
	for i := range keep {
		keep[i] = true
	}
	p.RegTypes = append(p.RegTypes, device.VTBool, s.out)
	if c.filter {
		// about 54% of rows kept, or (every other seed) about 89%, where
		// the interpreter runs arithmetic kernels over the whole vector
		keepOf10, nullOf := 6, 10
		if c.seed%2 == 0 {
			keepOf10, nullOf = 10, 50
		}
		fv := make([]val, c.rows)
		for i := range fv {
			switch {
			case r.IntN(nullOf) == 0:
				fv[i] = nullV
				keep[i] = false
			case i%97 == 5:
				keep[i] = false
				fv[i] = boolV(false)
			default:
				keep[i] = r.IntN(10) < keepOf10
				fv[i] = boolV(keep[i])
			}
		}
		p.Columns = append(p.Columns, e.putColumn(vcol{vt: device.VTBool, vals: fv}, colEnc{offset: int(c.seed % 5)}))
		p.Insns = append(p.Insns,
			device.Insn{Op: device.KColumn, VType: device.VTBool, Dst: uint16(k), P1: int32(len(p.Columns) - 1)},
			device.Insn{Op: device.KFilter, A: uint16(k)})
	}
	in := s.insn
	in.Dst = uint16(k + 1)
	in.A, in.B, in.C = 0, 1, 2
	ci := len(s.consts) // first operand constant
	if c.constOp == 1 {
		in.Flags |= device.IfAConst
		in.A = uint16(ci)
	} else if c.constOp == 2 {
		in.Flags |= device.IfBConst
		in.B = uint16(ci)
	}
	if s.bConst >= 0 {
		in.Flags |= device.IfBConst
		in.B = uint16(s.bConst)
	}
	p.Insns = append(p.Insns, in)
	p.Project = []uint16{uint16(k + 1)}
	outType := s.out
	proj := 0 // the register input projected by fused cases
	if c.fused {
		if c.constOp == 1 {
			proj = 1
		}
		p.Insns = append(p.Insns, device.Insn{Op: device.KFilter, A: uint16(k + 1)})
		p.Project = []uint16{uint16(proj)}
		outType = s.in[proj]
	}
	out, err := e.project(p, c.rows, 64*c.rows+64)
	if err != nil {
		t.Fatalf("%s %+v: %v", s.name, c, err)
	}
	got := out[0].vals
	n, bad := 0, 0
	args := make([]val, k)
	for i := 0; i < c.rows; i++ {
		if !keep[i] {
			continue
		}
		ck := 0
		for j := 0; j < k; j++ {
			if inputs[j] == nil {
				args[j] = cvals[ck]
				ck++
			} else {
				args[j] = inputs[j][i]
			}
		}
		want := s.ref(args)
		if c.fused {
			if want.null || want.i == 0 {
				continue
			}
			want = args[proj]
		}
		if n >= len(got) {
			t.Fatalf("%s %+v: %d rows out, want more", s.name, c, len(got))
		}
		if !sameVal(outType, got[n], want) {
			if bad++; bad <= 5 {
				t.Errorf("%s %+v: row %d (out %d): args %v: got %v, want %v", s.name, c, i, n, args, got[n], want)
			}
		}
		n++
	}
	if n != len(got) {
		t.Errorf("%s %+v: %d rows out, want %d", s.name, c, len(got), n)
	}
}

func TestPipelineKernels(t *testing.T) {
	e := newEnv(t, "soft:memory=64MiB,mode=host-visible", 16<<20)
	sizes := []int{1, 7, 2048, 5000}
	if testing.Short() {
		sizes = []int{7, 2100}
	}
	seed := uint64(1)
	for _, s := range kernelSpecs() {
		t.Run(s.name, func(t *testing.T) {
			for _, rows := range sizes {
				for _, nr := range []float64{0, 0.1, 1} {
					if rows > 2048 && nr != 0.1 { // the vector-spanning size once per filter setting keeps the run short
						continue
					}
					for _, f := range []bool{false, true} {
						seed++
						runKernelCase(t, e, s, kcase{rows: rows, nullRate: nr, filter: f, seed: seed})
					}
				}
			}
			if s.cvar {
				for _, op := range []int{1, 2} {
					for _, cn := range []bool{false, true} {
						seed++
						runKernelCase(t, e, s, kcase{rows: 2100, nullRate: 0.1, filter: true, constOp: op, constNul: cn, seed: seed})
						seed++
						runKernelCase(t, e, s, kcase{rows: 300, nullRate: 0, constOp: op, seed: seed})
						if s.out != device.VTBool {
							continue
						}
						seed++ // compare + FILTER, fused by the interpreter for numeric types
						runKernelCase(t, e, s, kcase{rows: 2100, nullRate: 0.1, filter: cn, constOp: op, constNul: cn && op == 1, fused: true, seed: seed})
						runKernelCase(t, e, s, kcase{rows: 2100, nullRate: 0, constOp: op, fused: true, seed: seed})
					}
				}
			}
		})
	}
}

// TestPipelineKernelsSIMD runs a hot subset on every SIMD level the CPU has.
func TestPipelineKernelsSIMD(t *testing.T) {
	for _, simd := range []string{"scalar", "avx2", "avx512"} {
		e := newEnv(t, "soft:memory=32MiB,mode=host-visible,simd="+simd, 8<<20)
		seed := uint64(100)
		for _, s := range kernelSpecs() {
			if !s.cvar && s.insn.Op != device.KFilter && !strings.HasPrefix(s.name, "like") && !strings.HasPrefix(s.name, "contains-long") {
				continue
			}
			seed++
			runKernelCase(t, e, s, kcase{rows: 3000, nullRate: 0.1, filter: true, seed: seed})
			runKernelCase(t, e, s, kcase{rows: 3000, nullRate: 0, constOp: 2, seed: seed})
			if s.out == device.VTBool {
				runKernelCase(t, e, s, kcase{rows: 3000, nullRate: 0.1, filter: true, constOp: 2, fused: true, seed: seed})
			}
		}
	}
}

// TestPipelineKernelsDiscrete runs the kernels on a discrete device, where
// inputs and outputs cross COPY ops.
func TestPipelineKernelsDiscrete(t *testing.T) {
	e := newEnv(t, "soft:memory=32MiB,mode=discrete", 8<<20)
	seed := uint64(500)
	for _, s := range kernelSpecs() {
		seed++
		runKernelCase(t, e, s, kcase{rows: 2049, nullRate: 0.1, filter: seed%2 == 0, seed: seed})
	}
}
