package plan

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hados-io/hados/operators/types"
)

var (
	reInteger = regexp.MustCompile(`^-?[0-9]+$`)
	reDecimal = regexp.MustCompile(`^-?[0-9]+\.[0-9]+$`)
	reFloat   = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?[eE][-+]?[0-9]+$`)
	reDate    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// newLiteral builds the literal printed as raw, typed by its shape alone:
// null; true/false → boolean; integers → int, bigint when wider, else
// decimal; d.d → decimal(max(digits, scale), scale) as Spark types a
// BigDecimal; exponent forms → double; yyyy-mm-dd → date; anything else
// → string. Typing later coerces it to its context (see coerceLiteral).
func newLiteral(raw string) *Expr {
	e := &Expr{Kind: ExprLiteral, Raw: raw}
	setNatural(e)
	return e
}

func setNatural(e *Expr) {
	raw := e.Raw
	switch {
	case raw == "null":
		e.Type, e.Lit = types.NullType, &Literal{Null: true}
	case raw == "true" || raw == "false":
		e.Type, e.Lit = types.BooleanType, &Literal{Bool: raw == "true"}
	case reInteger.MatchString(raw):
		if v, err := strconv.ParseInt(raw, 10, 64); err == nil {
			e.Lit = &Literal{Int: v}
			e.Type = types.LongType
			if v >= math.MinInt32 && v <= math.MaxInt32 {
				e.Type = types.IntType
			}
			return
		}
		setDecimal(e, raw, 0)
	case reDecimal.MatchString(raw):
		setDecimal(e, strings.Replace(raw, ".", "", 1), len(raw)-strings.IndexByte(raw, '.')-1)
	case reFloat.MatchString(raw):
		f, _ := strconv.ParseFloat(raw, 64)
		e.Type, e.Lit = types.DoubleType, &Literal{Float: f}
	case reDate.MatchString(raw):
		if days, ok := parseDate(raw); ok {
			e.Type, e.Lit = types.DateType, &Literal{Int: days}
			return
		}
		e.Type, e.Lit = types.StringType, &Literal{Str: raw}
	default:
		e.Type, e.Lit = types.StringType, &Literal{Str: raw}
	}
}

// setDecimal makes e the decimal with the given unscaled digits and scale,
// or a string when it does not fit 38 digits.
func setDecimal(e *Expr, digits string, scale int) {
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		e.Type, e.Lit = types.StringType, &Literal{Str: e.Raw}
		return
	}
	p := len(new(big.Int).Abs(u).String())
	p = max(p, scale)
	if p > types.MaxPrecision {
		e.Type, e.Lit = types.DoubleType, &Literal{}
		e.Lit.Float, _ = strconv.ParseFloat(e.Raw, 64)
		return
	}
	e.Type = types.DecimalOf(p, scale)
	e.Lit = unscaledLiteral(u)
}

func unscaledLiteral(u *big.Int) *Literal {
	if u.IsInt64() {
		return &Literal{Int: u.Int64()}
	}
	return &Literal{Big: u.String()}
}

// coerceLiteral retypes a literal printed without its type to the type t of
// the expression it meets (the other side of a comparison, the IN value,
// another CASE branch), when its text can be read as t. Literals keep their
// natural type otherwise.
func coerceLiteral(e *Expr, t types.DataType) {
	if e == nil || e.Kind != ExprLiteral || !t.IsKnown() || t.Kind == types.Null {
		return
	}
	setNatural(e)
	if e.Lit.Null {
		e.Type = t
		return
	}
	raw := e.Raw
	switch {
	case t.Kind == types.String:
		e.Type, e.Lit = types.StringType, &Literal{Str: raw}
	case t.Kind == types.Date && e.Type.Kind == types.Date:
	case t.Kind == types.Timestamp || t.Kind == types.TimestampNTZ:
		if micros, ok := parseTimestamp(raw); ok {
			e.Type, e.Lit = t, &Literal{Int: micros}
		}
	case t.IsIntegral() && reInteger.MatchString(raw) && e.Type.IsIntegral():
		e.Type = t
	case t.IsFractional() && (reInteger.MatchString(raw) || reDecimal.MatchString(raw) || reFloat.MatchString(raw)):
		f, err := strconv.ParseFloat(raw, 64)
		if err == nil {
			e.Type, e.Lit = t, &Literal{Float: f}
		}
	case t.Kind == types.Decimal && (reInteger.MatchString(raw) || reDecimal.MatchString(raw)):
		rescaleDecimal(e, t)
	}
}

// rescaleDecimal gives literal e the decimal type t when its value fits
// without rounding.
func rescaleDecimal(e *Expr, t types.DataType) {
	raw := e.Raw
	intPart, frac := raw, ""
	if i := strings.IndexByte(raw, '.'); i >= 0 {
		intPart, frac = raw[:i], raw[i+1:]
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > t.Scale {
		return
	}
	frac += strings.Repeat("0", t.Scale-len(frac))
	u, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok || len(new(big.Int).Abs(u).String()) > t.Precision && u.Sign() != 0 {
		return
	}
	e.Type, e.Lit = t, unscaledLiteral(u)
}

var epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

func parseDate(s string) (int64, bool) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, false
	}
	return t.Unix() / 86400, true
}

// parseTimestamp reads "yyyy-mm-dd[ hh:mm:ss[.ffffff]]" as microseconds
// since the epoch (UTC, as Spark prints timestamps in the session zone,
// which plan-stability suites set to UTC).
func parseTimestamp(s string) (int64, bool) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Unix()*1_000_000 + int64(t.Nanosecond()/1000), true
		}
	}
	return 0, false
}

func formatDate(days int64) string {
	return epoch.AddDate(0, 0, int(days)).Format("2006-01-02")
}
