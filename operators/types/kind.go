package types

import (
	"fmt"
	"strconv"
)

// Kind enumerates the Spark SQL data types hados models.
type Kind uint8

// The kinds. KindUnknown is the zero value: a type nobody could infer.
const (
	KindUnknown Kind = iota
	Boolean
	Byte
	Short
	Int
	Long
	Float
	Double
	Decimal
	Date
	Timestamp
	TimestampNTZ
	String
	Binary
	Null
	// Unsupported is any other Spark type (array, map, struct, interval,
	// …); DataType.Name keeps the name Spark printed.
	Unsupported
)

var kindNames = [...]string{
	KindUnknown:  "unknown",
	Boolean:      "boolean",
	Byte:         "tinyint",
	Short:        "smallint",
	Int:          "int",
	Long:         "bigint",
	Float:        "float",
	Double:       "double",
	Decimal:      "decimal",
	Date:         "date",
	Timestamp:    "timestamp",
	TimestampNTZ: "timestamp_ntz",
	String:       "string",
	Binary:       "binary",
	Null:         "void",
	Unsupported:  "unsupported",
}

// String returns the kind's Spark simpleString (without decimal parameters).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// MaxPrecision is the largest decimal precision Spark supports.
const MaxPrecision = 38

// DataType is a Spark SQL data type. It is a comparable value type and owns
// no memory. Precision and Scale are set only for Decimal; Name only for
// Unsupported.
type DataType struct {
	Kind      Kind
	Precision int
	Scale     int
	Name      string
}

// Convenience values for the parameterless types.
var (
	Unknown          = DataType{}
	BooleanType      = DataType{Kind: Boolean}
	ByteType         = DataType{Kind: Byte}
	ShortType        = DataType{Kind: Short}
	IntType          = DataType{Kind: Int}
	LongType         = DataType{Kind: Long}
	FloatType        = DataType{Kind: Float}
	DoubleType       = DataType{Kind: Double}
	DateType         = DataType{Kind: Date}
	TimestampType    = DataType{Kind: Timestamp}
	TimestampNTZType = DataType{Kind: TimestampNTZ}
	StringType       = DataType{Kind: String}
	BinaryType       = DataType{Kind: Binary}
	NullType         = DataType{Kind: Null}
)

// DecimalOf returns decimal(p,s). It does not validate; see NewDecimal.
func DecimalOf(p, s int) DataType { return DataType{Kind: Decimal, Precision: p, Scale: s} }

// NewDecimal returns decimal(p,s), or an error when 1 <= p <= 38 and
// 0 <= s <= p do not hold.
func NewDecimal(p, s int) (DataType, error) {
	if p < 1 || p > MaxPrecision {
		return Unknown, fmt.Errorf("types: decimal precision %d out of range [1,%d]", p, MaxPrecision)
	}
	if s < 0 || s > p {
		return Unknown, fmt.Errorf("types: decimal scale %d out of range [0,%d]", s, p)
	}
	return DecimalOf(p, s), nil
}

// UnsupportedType returns the Unsupported type carrying Spark's name for it.
func UnsupportedType(name string) DataType { return DataType{Kind: Unsupported, Name: name} }

// String returns Spark's simpleString of the type.
func (t DataType) String() string {
	switch t.Kind {
	case Decimal:
		return "decimal(" + strconv.Itoa(t.Precision) + "," + strconv.Itoa(t.Scale) + ")"
	case Unsupported:
		if t.Name == "" {
			return "unsupported"
		}
		return t.Name
	}
	return t.Kind.String()
}

// IsKnown reports whether the type is not the zero "unknown" type.
func (t DataType) IsKnown() bool { return t.Kind != KindUnknown }

// IsIntegral reports byte, short, int and bigint.
func (t DataType) IsIntegral() bool {
	return t.Kind == Byte || t.Kind == Short || t.Kind == Int || t.Kind == Long
}

// IsFractional reports float and double.
func (t DataType) IsFractional() bool { return t.Kind == Float || t.Kind == Double }

// IsNumeric reports integral, fractional and decimal types.
func (t DataType) IsNumeric() bool { return t.IsIntegral() || t.IsFractional() || t.Kind == Decimal }

// Field is one field of a struct type, e.g. one column of a ReadSchema.
type Field struct {
	Name     string
	Type     DataType
	Nullable bool
}
