package interop

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/operators/types"
)

// fromArrow is the canonical text of row i of a hados scan's column.
func fromArrow(a arrow.Array, i int) (string, error) {
	if a.IsNull(i) {
		return null, nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i)), nil
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10), nil
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32), nil
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64), nil
	case *array.Decimal64:
		dt := a.DataType().(*arrow.Decimal64Type)
		return duckdbh.FormatDecimal(big.NewInt(int64(a.Value(i))), int(dt.Scale)), nil
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return duckdbh.FormatDecimal(a.Value(i).BigInt(), int(dt.Scale)), nil
	case *array.Date32:
		return a.Value(i).ToTime().Format(time.DateOnly), nil
	case *array.Timestamp:
		if u := a.DataType().(*arrow.TimestampType).Unit; u != arrow.Microsecond {
			return "", fmt.Errorf("timestamp unit %s, want us", u)
		}
		return strconv.FormatInt(int64(a.Value(i)), 10), nil
	case *array.String:
		return a.Value(i), nil
	case *array.Binary:
		return string(a.Value(i)), nil
	}
	return "", fmt.Errorf("no canonical form for Arrow type %s", a.DataType())
}

// fromDuckDB is the canonical text of a value DuckDB returned for a column
// of type t.
func fromDuckDB(v any, dbType string, t types.DataType) (string, error) {
	n, err := duckdbh.Normalize(v, dbType)
	if err != nil || n == nil {
		return null, err
	}
	switch x := n.(type) {
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if t.Kind == types.Float {
			return strconv.FormatFloat(x, 'g', -1, 32), nil
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case string:
		return x, nil
	case time.Time:
		return strconv.FormatInt(x.UnixMicro(), 10), nil
	}
	return "", fmt.Errorf("no canonical form for %T", n)
}

// sqlLiteral is a DuckDB expression of type col.duckdb for a canonical value.
func sqlLiteral(col column, v string) string {
	if v == null {
		return "NULL::" + col.duckdb
	}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	switch col.typ.Kind {
	case types.Date:
		return "DATE " + quote(v)
	case types.Timestamp:
		us, _ := strconv.ParseInt(v, 10, 64)
		return "CAST(" + quote(time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.999999")+"+00") + " AS TIMESTAMPTZ)"
	case types.Binary:
		return fmt.Sprintf("from_hex('%x')", v)
	}
	return "CAST(" + quote(strings.TrimPrefix(v, "+")) + " AS " + col.duckdb + ")"
}

// appendCanonical appends a canonical value to a builder of col's Arrow type.
func appendCanonical(b array.Builder, t types.DataType, v string) error {
	if v == null {
		b.AppendNull()
		return nil
	}
	parseInt := func() int64 { n, _ := strconv.ParseInt(v, 10, 64); return n }
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v == "true")
	case *array.Int8Builder:
		b.Append(int8(parseInt()))
	case *array.Int16Builder:
		b.Append(int16(parseInt()))
	case *array.Int32Builder:
		b.Append(int32(parseInt()))
	case *array.Int64Builder:
		b.Append(parseInt())
	case *array.Float32Builder:
		f, _ := strconv.ParseFloat(v, 32)
		b.Append(float32(f))
	case *array.Float64Builder:
		f, _ := strconv.ParseFloat(v, 64)
		b.Append(f)
	case *array.Decimal64Builder:
		b.Append(decimal.Decimal64(unscaled(v).Int64()))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromBigInt(unscaled(v)))
	case *array.Date32Builder:
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return err
		}
		b.Append(arrow.Date32FromTime(d))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(parseInt()))
	case *array.StringBuilder:
		b.Append(v)
	case *array.BinaryBuilder:
		b.Append([]byte(v))
	default:
		return fmt.Errorf("no builder for %s", t)
	}
	return nil
}

// unscaled reads a canonical decimal, which has exactly its type's scale
// digits after the point, as its unscaled integer.
func unscaled(v string) *big.Int {
	u, _ := new(big.Int).SetString(strings.Replace(v, ".", "", 1), 10)
	return u
}

// record builds the table's rows as one Arrow record in hados's types.
func record(mem memory.Allocator, rows [][]string) (arrow.RecordBatch, error) {
	fields := make([]arrow.Field, len(columns))
	for i, c := range columns {
		at, err := types.ToArrow(c.typ)
		if err != nil {
			return nil, err
		}
		fields[i] = arrow.Field{Name: c.name, Type: at, Nullable: true}
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, row := range rows {
		for c, v := range row {
			if err := appendCanonical(b.Field(c), columns[c].typ, v); err != nil {
				return nil, fmt.Errorf("column %s: %w", columns[c].name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}
