package tpchgen

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// kind is the logical type of a column, independent of the Schema.
type kind int

const (
	kindID     kind = iota // identifiers and foreign keys: bigint
	kindInt                // small integers (sizes, quantities of stock, line numbers): int
	kindMoney              // money, quantities, rates: decimal(15,2) or decimal(10,0)
	kindDate               // calendar dates: date
	kindString             // text: string
)

// ColumnDef describes one column of a TPC-H table.
type ColumnDef struct {
	Name string
	kind kind
}

// SparkType returns the column's Spark SQL type name under schema s, e.g.
// "bigint", "int", "decimal(15,2)", "decimal(10,0)", "date", "string".
func (c ColumnDef) SparkType(s Schema) string {
	switch c.kind {
	case kindID:
		return "bigint"
	case kindInt:
		return "int"
	case kindMoney:
		if s == SparkTest {
			return "decimal(10,0)"
		}
		return "decimal(15,2)"
	case kindDate:
		return "date"
	}
	return "string"
}

// ArrowType returns the column's Arrow type under schema s: int64, int32,
// decimal128(15,2)/decimal128(10,0), date32 or utf8.
func (c ColumnDef) ArrowType(s Schema) arrow.DataType {
	switch c.kind {
	case kindID:
		return arrow.PrimitiveTypes.Int64
	case kindInt:
		return arrow.PrimitiveTypes.Int32
	case kindMoney:
		if s == SparkTest {
			return &arrow.Decimal128Type{Precision: 10, Scale: 0}
		}
		return &arrow.Decimal128Type{Precision: 15, Scale: 2}
	case kindDate:
		return arrow.FixedWidthTypes.Date32
	}
	return arrow.BinaryTypes.String
}

// TableDef describes one TPC-H table: its name and columns in
// specification order.
type TableDef struct {
	Name    string
	Columns []ColumnDef
}

// ArrowSchema returns the table's Arrow schema under s. Every column is
// non-nullable: TPC-H data has no nulls.
func (t TableDef) ArrowSchema(s Schema) *arrow.Schema {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.ArrowType(s)}
	}
	return arrow.NewSchema(fields, nil)
}

// String renders the table like schema.txt in the Spark plan corpus:
// "name: col type, col type, ...".
func (t TableDef) String(s Schema) string {
	var b strings.Builder
	b.WriteString(t.Name)
	b.WriteString(": ")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name + " " + c.SparkType(s))
	}
	return b.String()
}

// Tables describes the eight TPC-H tables in the order Generate writes
// them (largest first). The returned slice is a fresh copy.
func Tables() []TableDef {
	out := make([]TableDef, len(registry))
	for i, t := range registry {
		out[i] = TableDef{Name: t.name, Columns: append([]ColumnDef(nil), t.cols...)}
	}
	return out
}

// TableNames lists the eight table names in the order of Tables.
func TableNames() []string {
	out := make([]string, len(registry))
	for i, t := range registry {
		out[i] = t.name
	}
	return out
}

func lookupTable(name string) (*tableSpec, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, t := range registry {
		if t.name == n {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%w: %w %q (want one of %s)", ErrInvalidOptions, ErrUnknownTable, name, strings.Join(TableNames(), ", "))
}

func col(name string, k kind) ColumnDef { return ColumnDef{Name: name, kind: k} }
