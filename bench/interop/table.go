package interop

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/hados-io/hados/operators/types"
)

// column is one column of the interop table: its hados type and the
// DuckDB type holding the same values.
type column struct {
	name   string
	typ    types.DataType
	duckdb string
}

var columns = []column{
	{"b", types.BooleanType, "BOOLEAN"},
	{"i8", types.ByteType, "TINYINT"},
	{"i16", types.ShortType, "SMALLINT"},
	{"i32", types.IntType, "INTEGER"},
	{"i64", types.LongType, "BIGINT"},
	{"f32", types.FloatType, "REAL"},
	{"f64", types.DoubleType, "DOUBLE"},
	{"d9", types.DecimalOf(9, 2), "DECIMAL(9,2)"},
	{"d18", types.DecimalOf(18, 4), "DECIMAL(18,4)"},
	{"d38", types.DecimalOf(38, 10), "DECIMAL(38,10)"},
	{"dt", types.DateType, "DATE"},
	{"ts", types.TimestampType, "TIMESTAMPTZ"},
	{"s", types.StringType, "VARCHAR"},
	{"bin", types.BinaryType, "BLOB"},
}

// null is the canonical text of a null.
const null = "NULL"

// rows builds n rows of canonical values, one string per column: booleans
// "true"/"false", integers in decimal, floats in Go's shortest form for
// their width, decimals with exactly their scale's digits, dates
// yyyy-mm-dd, timestamps as microseconds since the epoch (UTC), strings and
// binary as their bytes. Every seventh value of a column is null.
func rows(n int) [][]string {
	out := make([][]string, n)
	for r := range out {
		row := make([]string, len(columns))
		for c, col := range columns {
			if (r+c)%7 == 3 {
				row[c] = null
				continue
			}
			row[c] = value(col.typ, r)
		}
		out[r] = row
	}
	return out
}

// value is row r's value of a column of type t, edge values first.
func value(t types.DataType, r int) string {
	sign := 1 - 2*(r%2) // alternate signs
	switch t.Kind {
	case types.Boolean:
		return strconv.FormatBool(r%3 == 0)
	case types.Byte:
		return pick(r, []int64{math.MinInt8, math.MaxInt8, 0}, int64(sign*(r%100)))
	case types.Short:
		return pick(r, []int64{math.MinInt16, math.MaxInt16, 0}, int64(sign*r*97))
	case types.Int:
		return pick(r, []int64{math.MinInt32, math.MaxInt32, 0}, int64(sign*r*104729))
	case types.Long:
		return pick(r, []int64{math.MinInt64, math.MaxInt64, 0}, int64(sign)*int64(r)*1_000_000_007)
	case types.Float:
		edge := []string{"NaN", "-0", "3.4028235e+38", "1e-45", "+Inf"}
		if r < len(edge) {
			return edge[r]
		}
		return strconv.FormatFloat(float64(float32(sign)*float32(r)*1.25), 'g', -1, 32)
	case types.Double:
		edge := []string{"NaN", "-0", "1.7976931348623157e+308", "5e-324", "-Inf"}
		if r < len(edge) {
			return edge[r]
		}
		return strconv.FormatFloat(float64(sign)*float64(r)/3, 'g', -1, 64)
	case types.Decimal:
		digits := t.Precision - t.Scale
		whole := fmt.Sprintf("%d", r*7919%int(math.Pow10(min(digits, 9))))
		frac := fmt.Sprintf("%0*d", t.Scale, r*31%int(math.Pow10(min(t.Scale, 9))))
		if r == 0 { // the largest magnitude
			whole, frac = repeat9(digits), repeat9(t.Scale)
		}
		s := whole + "." + frac
		if sign < 0 {
			s = "-" + s
		}
		return s
	case types.Date:
		return time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r*1301).Format(time.DateOnly)
	case types.Timestamp:
		return strconv.FormatInt(int64(sign)*int64(r)*86_399_999_999+1_700_000_000_000_000, 10)
	case types.String:
		texts := []string{"", "a", "héllo wörld", "日本語", "emoji 🚀", "tab\tnew\nline"}
		return texts[r%len(texts)] + strconv.Itoa(r)
	case types.Binary:
		return string([]byte{0, byte(r), 0xff, byte(r * 7)})
	}
	panic("interop: no values for " + t.String())
}

func pick(r int, edge []int64, v int64) string {
	if r < len(edge) {
		return strconv.FormatInt(edge[r], 10)
	}
	return strconv.FormatInt(v, 10)
}

func repeat9(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '9'
	}
	return string(b)
}
