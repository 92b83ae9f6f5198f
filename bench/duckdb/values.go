package duckdbh

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Normalize maps a value the duckdb driver scanned into an `any` onto the
// small set of types the harness compares (see the package documentation).
// dbType is the column's DuckDB type name (sql.ColumnType.DatabaseTypeName,
// e.g. "DATE", "DECIMAL(15,2)"); it only matters for DATE, which the driver
// returns as a time.Time at midnight UTC and Normalize turns into
// "yyyy-mm-dd". A value of a type the harness does not compare (lists,
// structs, maps, intervals, UUIDs) is an error naming the Go type.
func Normalize(v any, dbType string) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool, int64, float64, string:
		return x, nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int:
		return int64(x), nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return fmt.Sprint(x), nil
		}
		return int64(x), nil
	case float32:
		return float64(x), nil
	case *big.Int:
		if x == nil {
			return nil, nil
		}
		if x.IsInt64() {
			return x.Int64(), nil
		}
		return x.String(), nil
	case duckdb.Decimal:
		if x.Value == nil {
			return nil, nil
		}
		return FormatDecimal(x.Value, int(x.Scale)), nil
	case []byte:
		return string(x), nil
	case time.Time:
		if strings.EqualFold(dbType, "DATE") {
			return x.UTC().Format(time.DateOnly), nil
		}
		return x.UTC(), nil
	}
	return nil, fmt.Errorf("duckdbh: cannot normalise a %s value of Go type %T", dbType, v)
}

// FormatDecimal renders the unscaled integer value with exactly scale digits
// after the decimal point: (12345, 2) is "123.45", (-5, 3) is "-0.005",
// (7, 0) is "7". A negative scale is treated as 0.
func FormatDecimal(value *big.Int, scale int) string {
	digits := new(big.Int).Abs(value).String()
	sign := ""
	if value.Sign() < 0 {
		sign = "-"
	}
	if scale <= 0 {
		return sign + digits
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	cut := len(digits) - scale
	return sign + digits[:cut] + "." + digits[cut:]
}
