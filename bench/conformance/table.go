package conformance

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
)

// Table is a query result in the comparison's value domain: every value is
// nil, bool, int64, float64, string, Decimal, a date as a "yyyy-mm-dd"
// string or a time.Time (UTC). Types are the engine's own type names, kept
// for reports only. A Table is plain Go data; nothing needs releasing.
type Table struct {
	Names []string
	Types []string
	Rows  [][]any
}

// FromArrow converts records (hados's result) into a Table. It does not
// take ownership of the records: the caller still releases them. A column
// of a type the comparison does not know (lists, structs, maps, intervals…)
// is an error naming the column and its type.
func FromArrow(schema *arrow.Schema, recs []arrow.Record) (*Table, error) {
	t := &Table{}
	readers := make([]func(arrow.Array, int) any, schema.NumFields())
	for i, f := range schema.Fields() {
		t.Names = append(t.Names, f.Name)
		t.Types = append(t.Types, f.Type.String())
		r, err := arrowReader(f.Type)
		if err != nil {
			return nil, fmt.Errorf("conformance: column %q: %w", f.Name, err)
		}
		readers[i] = r
	}
	for _, rec := range recs {
		if int(rec.NumCols()) != len(readers) {
			return nil, fmt.Errorf("conformance: a record has %d columns, the schema %d", rec.NumCols(), len(readers))
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, len(readers))
			for j, read := range readers {
				col := rec.Column(j)
				if col.IsNull(i) {
					continue
				}
				row[j] = read(col, i)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t, nil
}

// arrowReader returns a function reading one non-null value of type dt.
func arrowReader(dt arrow.DataType) (func(arrow.Array, int) any, error) {
	switch dt.ID() {
	case arrow.BOOL:
		return func(a arrow.Array, i int) any { return a.(*array.Boolean).Value(i) }, nil
	case arrow.INT8:
		return func(a arrow.Array, i int) any { return int64(a.(*array.Int8).Value(i)) }, nil
	case arrow.INT16:
		return func(a arrow.Array, i int) any { return int64(a.(*array.Int16).Value(i)) }, nil
	case arrow.INT32:
		return func(a arrow.Array, i int) any { return int64(a.(*array.Int32).Value(i)) }, nil
	case arrow.INT64:
		return func(a arrow.Array, i int) any { return a.(*array.Int64).Value(i) }, nil
	case arrow.FLOAT32:
		return func(a arrow.Array, i int) any { return float64(a.(*array.Float32).Value(i)) }, nil
	case arrow.FLOAT64:
		return func(a arrow.Array, i int) any { return a.(*array.Float64).Value(i) }, nil
	case arrow.DECIMAL32:
		scale := int(dt.(*arrow.Decimal32Type).Scale)
		return func(a arrow.Array, i int) any {
			return Decimal{Unscaled: big.NewInt(int64(a.(*array.Decimal32).Value(i))), Scale: scale}
		}, nil
	case arrow.DECIMAL64:
		scale := int(dt.(*arrow.Decimal64Type).Scale)
		return func(a arrow.Array, i int) any {
			return Decimal{Unscaled: big.NewInt(int64(a.(*array.Decimal64).Value(i))), Scale: scale}
		}, nil
	case arrow.DECIMAL128:
		scale := int(dt.(*arrow.Decimal128Type).Scale)
		return func(a arrow.Array, i int) any {
			return Decimal{Unscaled: a.(*array.Decimal128).Value(i).BigInt(), Scale: scale}
		}, nil
	case arrow.DECIMAL256:
		scale := int(dt.(*arrow.Decimal256Type).Scale)
		return func(a arrow.Array, i int) any {
			return Decimal{Unscaled: a.(*array.Decimal256).Value(i).BigInt(), Scale: scale}
		}, nil
	case arrow.STRING:
		return func(a arrow.Array, i int) any { return a.(*array.String).Value(i) }, nil
	case arrow.LARGE_STRING:
		return func(a arrow.Array, i int) any { return a.(*array.LargeString).Value(i) }, nil
	case arrow.BINARY:
		return func(a arrow.Array, i int) any { return string(a.(*array.Binary).Value(i)) }, nil
	case arrow.DATE32:
		return func(a arrow.Array, i int) any {
			return a.(*array.Date32).Value(i).ToTime().UTC().Format(time.DateOnly)
		}, nil
	case arrow.DATE64:
		return func(a arrow.Array, i int) any {
			return a.(*array.Date64).Value(i).ToTime().UTC().Format(time.DateOnly)
		}, nil
	case arrow.TIMESTAMP:
		unit := dt.(*arrow.TimestampType).Unit
		return func(a arrow.Array, i int) any { return a.(*array.Timestamp).Value(i).ToTime(unit).UTC() }, nil
	}
	return nil, fmt.Errorf("type %s is not compared", dt)
}

// FromDuckDB converts rows normalised by duckdbh (DECIMAL as a string at
// its scale) into a Table, turning each DECIMAL(p,s) column's strings into
// Decimals. types are DuckDB's type names, one per column. It takes the
// rows over (they are converted in place).
func FromDuckDB(names, types []string, rows [][]any) (*Table, error) {
	if len(names) != len(types) {
		return nil, fmt.Errorf("conformance: %d column names, %d types", len(names), len(types))
	}
	for i, row := range rows {
		if len(row) != len(types) {
			return nil, fmt.Errorf("conformance: row %d has %d values, want %d", i+1, len(row), len(types))
		}
		for j, v := range row {
			s, ok := v.(string)
			if !ok || !strings.HasPrefix(strings.ToUpper(types[j]), "DECIMAL") {
				continue
			}
			d, err := ParseDecimal(s)
			if err != nil {
				return nil, fmt.Errorf("conformance: row %d column %q (%s): %w", i+1, names[j], types[j], err)
			}
			row[j] = d
		}
	}
	return &Table{Names: names, Types: types, Rows: rows}, nil
}

// DescribeDuckDB returns the names and DuckDB type names of query's result
// columns without running it (DESCRIBE).
func DescribeDuckDB(ctx context.Context, db *duckdbh.DB, query string) (names, types []string, err error) {
	rows, _, _, err := db.QueryRawContext(ctx, "DESCRIBE "+strings.TrimRight(strings.TrimSpace(query), ";"))
	if err != nil {
		return nil, nil, fmt.Errorf("conformance: describe query: %w", err)
	}
	for _, vals := range rows {
		if len(vals) < 2 {
			return nil, nil, fmt.Errorf("conformance: describe query: %d columns, want name and type", len(vals))
		}
		names = append(names, fmt.Sprint(vals[0]))
		types = append(types, fmt.Sprint(vals[1]))
	}
	return names, types, nil
}

// QueryDuckDB runs query on db and returns its result as a Table.
func QueryDuckDB(ctx context.Context, db *duckdbh.DB, query string) (*Table, error) {
	names, types, err := DescribeDuckDB(ctx, db, query)
	if err != nil {
		return nil, err
	}
	rows, _, err := db.QueryRowsContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return FromDuckDB(names, types, rows)
}
