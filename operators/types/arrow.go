package types

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ToArrow returns the Arrow type hados uses for t. Decimals of precision up
// to 18 map to decimal64, wider ones to decimal128; date to date32;
// timestamp to timestamp[us, UTC] and timestamp_ntz to timestamp[us]. The
// unknown type and Unsupported kinds are errors naming the type.
func ToArrow(t DataType) (arrow.DataType, error) {
	switch t.Kind {
	case Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case Byte:
		return arrow.PrimitiveTypes.Int8, nil
	case Short:
		return arrow.PrimitiveTypes.Int16, nil
	case Int:
		return arrow.PrimitiveTypes.Int32, nil
	case Long:
		return arrow.PrimitiveTypes.Int64, nil
	case Float:
		return arrow.PrimitiveTypes.Float32, nil
	case Double:
		return arrow.PrimitiveTypes.Float64, nil
	case Decimal:
		if _, err := NewDecimal(t.Precision, t.Scale); err != nil {
			return nil, err
		}
		if t.Precision <= 18 {
			return &arrow.Decimal64Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
		}
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case Date:
		return arrow.FixedWidthTypes.Date32, nil
	case Timestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case TimestampNTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case String:
		return arrow.BinaryTypes.String, nil
	case Binary:
		return arrow.BinaryTypes.Binary, nil
	case Null:
		return arrow.Null, nil
	}
	return nil, fmt.Errorf("types: unsupported data type %s has no Arrow mapping", t)
}

// FromArrow returns the Spark type for an Arrow type. large_utf8 and
// dictionary-encoded utf8 are accepted as string, large_binary as binary.
// Timestamps must be in microseconds; a zone makes them timestamp, none
// timestamp_ntz.
func FromArrow(t arrow.DataType) (DataType, error) {
	if t == nil {
		return Unknown, fmt.Errorf("types: nil Arrow type")
	}
	switch t.ID() {
	case arrow.BOOL:
		return BooleanType, nil
	case arrow.INT8:
		return ByteType, nil
	case arrow.INT16:
		return ShortType, nil
	case arrow.INT32:
		return IntType, nil
	case arrow.INT64:
		return LongType, nil
	case arrow.FLOAT32:
		return FloatType, nil
	case arrow.FLOAT64:
		return DoubleType, nil
	case arrow.DECIMAL64, arrow.DECIMAL128:
		d := t.(arrow.DecimalType)
		return NewDecimal(int(d.GetPrecision()), int(d.GetScale()))
	case arrow.DATE32:
		return DateType, nil
	case arrow.TIMESTAMP:
		ts := t.(*arrow.TimestampType)
		if ts.Unit != arrow.Microsecond {
			return Unknown, fmt.Errorf("types: Arrow %s: only microsecond timestamps map to Spark", t)
		}
		if ts.TimeZone == "" {
			return TimestampNTZType, nil
		}
		return TimestampType, nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return StringType, nil
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
		return BinaryType, nil
	case arrow.NULL:
		return NullType, nil
	case arrow.DICTIONARY:
		vt := t.(*arrow.DictionaryType).ValueType
		switch vt.ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			return StringType, nil
		case arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.DATE32, arrow.TIMESTAMP, arrow.DECIMAL64, arrow.DECIMAL128:
			return FromArrow(vt) // a dictionary-encoded column has its values' type
		}
		return Unknown, fmt.Errorf("types: Arrow %s: only dictionaries of utf8 or of int, bigint, double, date, timestamp or decimal map to Spark", t)
	}
	return Unknown, fmt.Errorf("types: Arrow type %s has no Spark mapping", t)
}
