package soft_test

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hados-io/hados/device"
)

// Plain Go references of the kernels, written from hados_pipeline.h's
// semantics (Spark's non-ANSI rules), one small function per kernel family.

var (
	nullV = val{null: true}
	big10 = big.NewInt(10)
)

func boolV(b bool) val {
	if b {
		return val{i: 1}
	}
	return val{}
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big10, big.NewInt(int64(n)), nil) }

// cmpVals orders two non-null values of vt by Spark's rules.
func cmpVals(vt device.VType, a, b val) int {
	switch vt {
	case device.VTF64:
		an, bn := math.IsNaN(a.f), math.IsNaN(b.f)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		case a.f < b.f:
			return -1
		case a.f > b.f:
			return 1
		}
		return 0
	case device.VTI128:
		return a.x.Cmp(b.x)
	case device.VTStr:
		return strings.Compare(a.s, b.s)
	}
	switch {
	case a.i < b.i:
		return -1
	case a.i > b.i:
		return 1
	}
	return 0
}

func refCompare(op device.Kernel, vt device.VType) func([]val) val {
	return func(a []val) val {
		if op == device.KEqNullSafe {
			if a[0].null || a[1].null {
				return boolV(a[0].null && a[1].null)
			}
			return boolV(cmpVals(vt, a[0], a[1]) == 0)
		}
		if a[0].null || a[1].null {
			return nullV
		}
		c := cmpVals(vt, a[0], a[1])
		switch op {
		case device.KEq:
			return boolV(c == 0)
		case device.KNe:
			return boolV(c != 0)
		case device.KLt:
			return boolV(c < 0)
		case device.KLe:
			return boolV(c <= 0)
		case device.KGt:
			return boolV(c > 0)
		}
		return boolV(c >= 0)
	}
}

func refLogic(op device.Kernel) func([]val) val {
	return func(a []val) val {
		x := a[0]
		if op == device.KNot {
			if x.null {
				return nullV
			}
			return boolV(x.i == 0)
		}
		y := a[1]
		switch op {
		case device.KAnd:
			if (!x.null && x.i == 0) || (!y.null && y.i == 0) {
				return boolV(false)
			}
			if x.null || y.null {
				return nullV
			}
			return boolV(true)
		}
		if (!x.null && x.i != 0) || (!y.null && y.i != 0) {
			return boolV(true)
		}
		if x.null || y.null {
			return nullV
		}
		return boolV(false)
	}
}

func refIn(vt device.VType, list []val) func([]val) val {
	return func(a []val) val {
		if a[0].null {
			return nullV
		}
		sawNull := false
		for _, c := range list {
			if c.null {
				sawNull = true
			} else if cmpVals(vt, a[0], c) == 0 {
				return boolV(true)
			}
		}
		if sawNull {
			return nullV
		}
		return boolV(false)
	}
}

func refSelect(a []val) val {
	if !a[2].null && a[2].i != 0 {
		return a[0]
	}
	return a[1]
}

// refArith: wrapping integers, IEEE doubles, null on integer /0 (and on
// double /0 when zeroNull).
func refArith(op device.Kernel, vt device.VType, zeroNull bool) func([]val) val {
	return func(a []val) val {
		if a[0].null || (op != device.KNeg && a[1].null) {
			return nullV
		}
		if vt == device.VTF64 {
			x := a[0].f
			if op == device.KNeg {
				return val{f: -x}
			}
			y := a[1].f
			switch op {
			case device.KAdd:
				return val{f: x + y}
			case device.KSub:
				return val{f: x - y}
			case device.KMul:
				return val{f: x * y}
			}
			if zeroNull && y == 0 {
				return nullV
			}
			if op == device.KDiv {
				return val{f: x / y}
			}
			return val{f: math.Mod(x, y)}
		}
		wrap := func(v int64) val {
			if vt == device.VTI32 {
				return val{i: int64(int32(v))}
			}
			return val{i: v}
		}
		x := a[0].i
		if op == device.KNeg {
			return wrap(-x)
		}
		y := a[1].i
		switch op {
		case device.KAdd:
			return wrap(x + y)
		case device.KSub:
			return wrap(x - y)
		case device.KMul:
			return wrap(x * y)
		}
		if y == 0 {
			return nullV
		}
		if y == -1 {
			if op == device.KDiv {
				return wrap(-x)
			}
			return val{}
		}
		if op == device.KDiv {
			return wrap(x / y)
		}
		return wrap(x % y)
	}
}

// ---------------------------------------------------------------- decimals

func bigOf(v val, vt device.VType) *big.Int {
	if vt == device.VTI128 {
		return new(big.Int).Set(v.x)
	}
	return big.NewInt(v.i)
}

var (
	minI64  = big.NewInt(math.MinInt64)
	maxI64  = big.NewInt(math.MaxInt64)
	maxI128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	minI128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
)

// decVal stores x in vt, or null when it does not fit.
func decVal(x *big.Int, vt device.VType) val {
	switch vt {
	case device.VTI64:
		if x.Cmp(minI64) < 0 || x.Cmp(maxI64) > 0 {
			return nullV
		}
		return val{i: x.Int64()}
	case device.VTI32:
		if x.Cmp(big.NewInt(math.MinInt32)) < 0 || x.Cmp(big.NewInt(math.MaxInt32)) > 0 {
			return nullV
		}
		return val{i: x.Int64()}
	}
	if x.Cmp(minI128) < 0 || x.Cmp(maxI128) > 0 {
		return nullV
	}
	return val{x: x}
}

// roundHalfUp is n / d rounded half away from zero.
func roundHalfUp(n, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(d)) >= 0 {
		if (n.Sign() < 0) != (d.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

func refDec(in device.Insn) func([]val) val {
	ta, tb := device.VType(in.P2), device.VType(in.P3)
	sa, sb := int(in.Imm&0xff), int(in.Imm>>8&0xff)
	return func(a []val) val {
		if a[0].null || (in.Op != device.KDecCheck && in.Op != device.KDecRescale && a[1].null) {
			return nullV
		}
		x := bigOf(a[0], ta)
		switch in.Op {
		case device.KDecCheck:
			x = bigOf(a[0], in.VType)
			lim := new(big.Int).Sub(pow10(int(in.P1)), big.NewInt(1))
			if new(big.Int).Abs(x).Cmp(lim) > 0 {
				return nullV
			}
			return decVal(x, in.VType)
		case device.KDecRescale:
			if in.P1 >= 0 {
				return decVal(x.Mul(x, pow10(int(in.P1))), in.VType)
			}
			return decVal(roundHalfUp(x, pow10(int(-in.P1))), in.VType)
		}
		y := bigOf(a[1], tb)
		switch in.Op {
		case device.KDecAdd:
			return decVal(new(big.Int).Add(x.Mul(x, pow10(sa)), y.Mul(y, pow10(sb))), in.VType)
		case device.KDecSub:
			return decVal(new(big.Int).Sub(x.Mul(x, pow10(sa)), y.Mul(y, pow10(sb))), in.VType)
		case device.KDecMul:
			return decVal(roundHalfUp(x.Mul(x, y), pow10(int(in.P1))), in.VType)
		case device.KDecDiv:
			if y.Sign() == 0 {
				return nullV
			}
			if in.P1 >= 0 {
				return decVal(roundHalfUp(x.Mul(x, pow10(int(in.P1))), y), in.VType)
			}
			return decVal(roundHalfUp(x, y.Mul(y, pow10(int(-in.P1)))), in.VType)
		}
		if y.Sign() == 0 { // DEC_MOD
			return nullV
		}
		return decVal(new(big.Int).Rem(x.Mul(x, pow10(sa)), y.Mul(y, pow10(sb))), in.VType)
	}
}

// ---------------------------------------------------------------- casts

func trimSpark(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

var (
	reDate = regexp.MustCompile(`^([+-]?)(\d{4,7})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[ T].*)?$`)
	reInt  = regexp.MustCompile(`^[+-]?(\d*)(?:\.(\d*))?$`)
	reDec  = regexp.MustCompile(`^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$`)
	reF64  = regexp.MustCompile(`^[0-9.eE+-]*[0-9][0-9.eE+-]*$`)
)

func civil(days int64) (int64, int, int) {
	t := time.Unix(days*86400, 0).UTC()
	return int64(t.Year()), int(t.Month()), t.Day()
}

func refStrToDate(s string) val {
	m := reDate.FindStringSubmatch(trimSpark(s))
	if m == nil {
		return nullV
	}
	y, _ := strconv.ParseInt(m[2], 10, 64)
	if m[1] == "-" {
		y = -y
	}
	mo, d := 1, 1
	if m[3] != "" {
		mo, _ = strconv.Atoi(m[3])
	}
	if m[4] != "" {
		d, _ = strconv.Atoi(m[4])
	}
	if mo < 1 || mo > 12 || d < 1 {
		return nullV
	}
	t := time.Date(int(y), time.Month(mo), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return nullV
	}
	days := t.Unix() / 86400
	if days < math.MinInt32 || days > math.MaxInt32 {
		return nullV
	}
	return val{i: days}
}

// refStrToInt is UTF8String.toLong/toInt: no digit is required (".", "-."
// are 0), but the trimmed text must not be empty or a lone sign.
func refStrToInt(s string, vt device.VType) val {
	t := trimSpark(s)
	if t == "" || t == "+" || t == "-" || !reInt.MatchString(t) {
		return nullV
	}
	if i := strings.IndexByte(t, '.'); i >= 0 {
		t = t[:i]
	}
	if t == "" || t == "+" || t == "-" {
		t += "0"
	}
	x, ok := new(big.Int).SetString(t, 10)
	if !ok {
		return nullV
	}
	return decVal(x, vt)
}

func refStrToF64(s string) val {
	s = trimSpark(s)
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return val{f: math.Inf(1)}
	case "-inf", "-infinity":
		return val{f: math.Inf(-1)}
	case "nan":
		return val{f: math.NaN()}
	}
	if n := len(s); n > 0 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	if !reF64.MatchString(s) {
		return nullV
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors_IsRange(err) {
		return nullV
	}
	return val{f: f}
}

func errors_IsRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// refDecText parses a decimal text into scale/precision/storage (HALF_UP).
func refDecText(s string, scale, prec int, vt device.VType) val {
	m := reDec.FindStringSubmatch(trimSpark(s))
	if m == nil || len(m[2])+len(m[3]) == 0 {
		return nullV
	}
	digits := strings.TrimLeft(m[2]+m[3], "0")
	if digits == "" {
		return val{i: 0, x: big.NewInt(0)}
	}
	exp := 0
	if m[4] != "" {
		e, err := strconv.Atoi(m[4])
		if err != nil || e > 100000 || e < -100000 {
			return nullV
		}
		exp = e
	}
	d, _ := new(big.Int).SetString(digits, 10)
	shift := exp - len(m[3]) + scale
	var u *big.Int
	if shift >= 0 {
		if shift > 80 {
			return nullV
		}
		u = d.Mul(d, pow10(shift))
	} else {
		if -shift > 200 {
			u = new(big.Int)
		} else {
			u = roundHalfUp(d, pow10(-shift))
		}
	}
	if u.Cmp(pow10(prec)) >= 0 {
		return nullV
	}
	if m[1] == "-" {
		u.Neg(u)
	}
	v := decVal(u, vt)
	if !v.null && vt != device.VTI128 {
		v.x = nil
	}
	return v
}

func refCast(in device.Insn, aType device.VType) func([]val) val {
	return func(a []val) val {
		x := a[0]
		if x.null {
			return nullV
		}
		switch in.Op {
		case device.KCastI32I64:
			return val{i: x.i}
		case device.KCastI64I32:
			return val{i: int64(int32(x.i))}
		case device.KCastToF64:
			var f float64
			if aType == device.VTI128 {
				f, _ = new(big.Float).SetInt(x.x).Float64()
			} else {
				f = float64(x.i)
			}
			if in.P1 != 0 {
				f /= math.Pow10(int(in.P1))
			}
			return val{f: f}
		case device.KCastF64ToDec:
			if math.IsNaN(x.f) || math.IsInf(x.f, 0) {
				return nullV
			}
			return refDecText(strconv.FormatFloat(x.f, 'e', -1, 64), int(in.P1), int(in.P3), in.VType)
		case device.KCastDecToInt:
			q := new(big.Int).Quo(bigOf(x, aType), pow10(int(in.P1)))
			return decVal(q, in.VType)
		case device.KCastIntToDec:
			return decVal(new(big.Int).Mul(big.NewInt(x.i), pow10(int(in.P1))), in.VType)
		case device.KCastF64ToInt:
			f := x.f
			lo, hi := float64(math.MinInt64), float64(math.MaxInt64)
			li, hiI := int64(math.MinInt64), int64(math.MaxInt64)
			if in.VType == device.VTI32 {
				lo, hi, li, hiI = math.MinInt32, math.MaxInt32, math.MinInt32, math.MaxInt32
			}
			switch {
			case math.IsNaN(f):
				return val{}
			case f >= hi:
				return val{i: hiI}
			case f <= lo:
				return val{i: li}
			}
			return val{i: int64(f)}
		case device.KCastStrDate:
			return refStrToDate(x.s)
		case device.KCastDateStr:
			y, m, d := civil(x.i)
			return val{s: sprintfDate(y, m, d)}
		case device.KCastStrInt:
			return refStrToInt(x.s, in.VType)
		case device.KCastStrF64:
			return refStrToF64(x.s)
		case device.KCastIntStr:
			return val{s: strconv.FormatInt(x.i, 10)}
		case device.KCastStrDec:
			return refDecText(x.s, int(in.P1), int(in.P3), in.VType)
		case device.KCastTSDate:
			q := x.i / 86400000000
			if x.i%86400000000 < 0 {
				q--
			}
			return val{i: q}
		}
		return val{i: x.i * 86400000000} // KCastDateTS
	}
}

func sprintfDate(y int64, m, d int) string {
	s := strconv.FormatInt(y, 10)
	neg := y < 0
	if neg {
		s = s[1:]
	}
	for len(s) < 4-boolInt(neg) {
		s = "0" + s
	}
	if neg {
		s = "-" + s
	}
	return s + "-" + pad2(m) + "-" + pad2(d)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pad2(x int) string {
	if x < 10 {
		return "0" + strconv.Itoa(x)
	}
	return strconv.Itoa(x)
}

// ---------------------------------------------------------------- dates, strings

func refDate(op device.Kernel) func([]val) val {
	return func(a []val) val {
		if a[0].null || (op == device.KDateAdd && a[1].null) {
			return nullV
		}
		if op == device.KDateAdd {
			return val{i: int64(int32(a[0].i + a[1].i))}
		}
		y, m, d := civil(a[0].i)
		switch op {
		case device.KYear:
			return val{i: int64(int32(y))}
		case device.KMonth:
			return val{i: int64(m)}
		}
		return val{i: int64(d)}
	}
}

func likeRegexp(p string, esc byte) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^(?s)`)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == esc && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		case c == '%':
			b.WriteString(`.*`)
		case c == '_':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

func refStrPred(op device.Kernel, pat string, esc byte) func([]val) val {
	var re *regexp.Regexp
	if op == device.KLike {
		re = likeRegexp(pat, esc)
	}
	return func(a []val) val {
		if a[0].null {
			return nullV
		}
		s := a[0].s
		switch op {
		case device.KStartsWith:
			return boolV(strings.HasPrefix(s, pat))
		case device.KEndsWith:
			return boolV(strings.HasSuffix(s, pat))
		case device.KContains:
			return boolV(strings.Contains(s, pat))
		}
		return boolV(re.MatchString(s))
	}
}

func refSubstr(pos, length int) func([]val) val {
	return func(a []val) val {
		if a[0].null {
			return nullV
		}
		r := []rune(a[0].s)
		n := len(r)
		start := 0
		switch {
		case pos > 0:
			start = pos - 1
		case pos < 0:
			start = n + pos
		}
		end := math.MaxInt32
		if length >= 0 {
			end = start + length
		}
		if start < 0 {
			start = 0
		}
		if start >= end || start >= n {
			return val{s: ""}
		}
		if end > n {
			end = n
		}
		return val{s: string(r[start:end])}
	}
}

func refLength(a []val) val {
	if a[0].null {
		return nullV
	}
	return val{i: int64(utf8.RuneCountInString(a[0].s))}
}
