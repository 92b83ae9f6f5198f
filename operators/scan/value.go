package scan

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/hados-io/hados/operators/types"
)

// Value is a typed filter literal: nil (SQL null), bool, int8, int16, int32,
// int64, float32, float64, Decimal, Date, Timestamp, string or []byte.
// A literal is compared in the domain of the column it is tested against, as
// Spark does after its analyzer has cast it: an integer literal may be tested
// against any numeric column, a Decimal against decimal and fractional
// columns, Date only against dates, Timestamp only against timestamps, and
// string/[]byte against string and binary columns.
type Value = any

// Decimal is a decimal literal: Unscaled × 10^-Scale. It owns no memory
// beyond the big.Int, which the scan never modifies.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// Date is a date literal in days since 1970-01-01.
type Date int32

// Timestamp is a timestamp literal in microseconds since the epoch, UTC.
type Timestamp int64

// String prints the decimal with its digits, as Spark prints BigDecimal: 0.05.
func (d Decimal) String() string {
	if d.Unscaled == nil {
		return "null"
	}
	s := d.Unscaled.String()
	if d.Scale <= 0 {
		return s + strings.Repeat("0", -d.Scale)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if len(s) <= d.Scale {
		s = strings.Repeat("0", d.Scale-len(s)+1) + s
	}
	s = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
	if neg {
		s = "-" + s
	}
	return s
}

// String prints the date as yyyy-mm-dd.
func (d Date) String() string {
	return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
}

// String prints the timestamp as java.sql.Timestamp does, in UTC:
// 1995-03-15 10:00:00.0, fractional zeros trimmed.
func (t Timestamp) String() string {
	sec, us := int64(t)/1e6, int64(t)%1e6
	if us < 0 {
		sec, us = sec-1, us+1e6
	}
	frac := strings.TrimRight(fmt.Sprintf("%06d", us), "0")
	if frac == "" {
		frac = "0"
	}
	return time.Unix(sec, 0).UTC().Format("2006-01-02 15:04:05") + "." + frac
}

// FormatValue prints a literal the way Spark's filters print it.
func FormatValue(v Value) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case float32:
		return formatFloat(float64(v), 32)
	case float64:
		return formatFloat(v, 64)
	case []byte:
		return "0x" + strings.ToUpper(fmt.Sprintf("%x", v))
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}

func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// domain is the comparison domain of a column: every value of the column,
// every statistic and every literal compared with it is first brought into
// the domain's canonical Go representation (a datum).
type domain uint8

const (
	domBool  domain = iota + 1 // bool
	domInt                     // int64: byte, short, int, bigint, date (days), timestamp (µs)
	domFloat                   // float64: float, double
	domDec                     // *big.Rat: decimal
	domBytes                   // []byte: string, binary
)

// datum is a value in a domain's canonical representation.
type datum = any

func domainOf(t types.DataType) (domain, bool) {
	switch {
	case t.Kind == types.Boolean:
		return domBool, true
	case t.IsIntegral(), t.Kind == types.Date, t.Kind == types.Timestamp, t.Kind == types.TimestampNTZ:
		return domInt, true
	case t.IsFractional():
		return domFloat, true
	case t.Kind == types.Decimal:
		return domDec, true
	case t.Kind == types.String, t.Kind == types.Binary:
		return domBytes, true
	}
	return 0, false
}

// coerce brings a literal into the domain of a column of type t.
func coerce(t types.DataType, v Value) (datum, error) {
	dom, ok := domainOf(t)
	if !ok {
		return nil, fmt.Errorf("cannot filter on a column of type %s", t)
	}
	bad := func() (datum, error) {
		return nil, fmt.Errorf("literal %s (%T) cannot be compared with a column of type %s", FormatValue(v), v, t)
	}
	switch dom {
	case domBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case domInt:
		switch v := v.(type) {
		case Date:
			if t.Kind == types.Date {
				return int64(v), nil
			}
		case Timestamp:
			if t.Kind == types.Timestamp || t.Kind == types.TimestampNTZ {
				return int64(v), nil
			}
		default:
			if t.IsIntegral() {
				if i, ok := intOf(v); ok {
					return i, nil
				}
			}
		}
	case domFloat:
		switch v := v.(type) {
		case float32:
			return float64(v), nil
		case float64:
			return v, nil
		case Decimal:
			if v.Unscaled != nil {
				f, _ := decRat(v).Float64()
				return f, nil
			}
		default:
			if i, ok := intOf(v); ok {
				return float64(i), nil
			}
		}
	case domDec:
		switch v := v.(type) {
		case Decimal:
			if v.Unscaled != nil {
				return decRat(v), nil
			}
		default:
			if i, ok := intOf(v); ok {
				return new(big.Rat).SetInt64(i), nil
			}
		}
	case domBytes:
		switch v := v.(type) {
		case string:
			return []byte(v), nil
		case []byte:
			return v, nil
		}
	}
	return bad()
}

func intOf(v Value) (int64, bool) {
	switch v := v.(type) {
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case int:
		return int64(v), true
	}
	return 0, false
}

func decRat(d Decimal) *big.Rat {
	r := new(big.Rat).SetInt(d.Unscaled)
	if d.Scale > 0 {
		r.Quo(r, new(big.Rat).SetInt(pow10(d.Scale)))
	} else if d.Scale < 0 {
		r.Mul(r, new(big.Rat).SetInt(pow10(-d.Scale)))
	}
	return r
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// unscaledRat is the decimal unscaled × 10^-scale as a rational.
func unscaledRat(unscaled *big.Int, scale int) *big.Rat {
	return decRat(Decimal{Unscaled: unscaled, Scale: scale})
}

// compare orders two datums of one domain with Spark's semantics: false <
// true, numbers by value, floating point with -0.0 == 0.0 and NaN equal to
// itself and greater than every other value, bytes unsigned lexicographically.
func compare(dom domain, a, b datum) int {
	switch dom {
	case domBool:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case domInt:
		x, y := a.(int64), b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case domFloat:
		x, y := a.(float64), b.(float64)
		xn, yn := math.IsNaN(x), math.IsNaN(y)
		switch {
		case xn && yn:
			return 0
		case xn:
			return 1
		case yn:
			return -1
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case domDec:
		return a.(*big.Rat).Cmp(b.(*big.Rat))
	case domBytes:
		return bytes.Compare(a.([]byte), b.([]byte))
	}
	panic("scan: compare in unknown domain")
}

func isNaN(d datum) bool {
	f, ok := d.(float64)
	return ok && math.IsNaN(f)
}
