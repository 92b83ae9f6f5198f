package types

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParseAndString(t *testing.T) {
	tests := []struct {
		in   string
		want DataType
		str  string
	}{
		{"int", IntType, "int"},
		{"IntegerType", IntType, "int"},
		{"integer", IntType, "int"},
		{"bigint", LongType, "bigint"},
		{"LongType", LongType, "bigint"},
		{"tinyint", ByteType, "tinyint"},
		{"smallint", ShortType, "smallint"},
		{"boolean", BooleanType, "boolean"},
		{"float", FloatType, "float"},
		{"DoubleType", DoubleType, "double"},
		{"decimal(10,0)", DecimalOf(10, 0), "decimal(10,0)"},
		{"DecimalType(12,2)", DecimalOf(12, 2), "decimal(12,2)"},
		{"decimal(38, 38)", DecimalOf(38, 38), "decimal(38,38)"},
		{"dec(7)", DecimalOf(7, 0), "decimal(7,0)"},
		{"decimal", DecimalOf(10, 0), "decimal(10,0)"},
		{"date", DateType, "date"},
		{"timestamp", TimestampType, "timestamp"},
		{"timestamp_ntz", TimestampNTZType, "timestamp_ntz"},
		{"string", StringType, "string"},
		{"char(10)", StringType, "string"},
		{"varchar(20)", StringType, "string"},
		{"binary", BinaryType, "binary"},
		{"void", NullType, "void"},
		{"array<int>", UnsupportedType("array<int>"), "array<int>"},
		{"map<string,int>", UnsupportedType("map<string,int>"), "map<string,int>"},
		{"struct<count(1):bigint>", UnsupportedType("struct<count(1):bigint>"), "struct<count(1):bigint>"},
		{"interval day to second", UnsupportedType("interval day to second"), "interval day to second"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want || got.String() != tt.str {
			t.Errorf("Parse(%q) = %v (%q), want %v (%q)", tt.in, got, got.String(), tt.want, tt.str)
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("Parse(String(%v)) = %v, %v", got, back, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "foo", "decimal(39,0)", "decimal(0,0)", "decimal(5,6)", "decimal(a,1)",
		"decimal(1,2,3)", "decimal(10", "char(x)", "decimal(10,-1)"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded, want error", in)
		}
	}
}

func TestParseStruct(t *testing.T) {
	got, err := ParseStruct("struct<c_custkey:bigint,l_discount:decimal(10,0),m:map<string,int>,d:date>")
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{"c_custkey", LongType, true}, {"l_discount", DecimalOf(10, 0), true},
		{"m", UnsupportedType("map<string,int>"), true}, {"d", DateType, true}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %v, want %v", i, got[i], want[i])
		}
	}
	if f, err := ParseStruct("struct<>"); err != nil || len(f) != 0 {
		t.Errorf("struct<> = %v, %v", f, err)
	}
	for _, bad := range []string{"int", "struct<a>", "struct<a:int", "struct<a:foo>", "struct<a:int)>"} {
		if _, err := ParseStruct(bad); err == nil {
			t.Errorf("ParseStruct(%q) succeeded", bad)
		}
	}
}

func TestArrow(t *testing.T) {
	tests := []struct {
		t    DataType
		want string
	}{
		{BooleanType, "bool"}, {ByteType, "int8"}, {ShortType, "int16"}, {IntType, "int32"},
		{LongType, "int64"}, {FloatType, "float32"}, {DoubleType, "float64"},
		{DecimalOf(18, 2), "decimal64(18, 2)"}, {DecimalOf(19, 2), "decimal(19, 2)"},
		{DecimalOf(38, 10), "decimal(38, 10)"}, {DateType, "date32"},
		{TimestampType, "timestamp[us, tz=UTC]"}, {TimestampNTZType, "timestamp[us]"},
		{StringType, "utf8"}, {BinaryType, "binary"},
	}
	for _, tt := range tests {
		a, err := ToArrow(tt.t)
		if err != nil {
			t.Errorf("ToArrow(%v): %v", tt.t, err)
			continue
		}
		if a.String() != tt.want {
			t.Errorf("ToArrow(%v) = %s, want %s", tt.t, a, tt.want)
		}
		back, err := FromArrow(a)
		if err != nil || back != tt.t {
			t.Errorf("FromArrow(%s) = %v, %v; want %v", a, back, err, tt.t)
		}
	}
	for _, a := range []arrow.DataType{arrow.BinaryTypes.LargeString,
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}} {
		if got, err := FromArrow(a); err != nil || got != StringType {
			t.Errorf("FromArrow(%s) = %v, %v", a, got, err)
		}
	}
	if _, err := ToArrow(UnsupportedType("array<int>")); err == nil || !strings.Contains(err.Error(), "array<int>") {
		t.Errorf("ToArrow(array) error %v should name the type", err)
	}
	if _, err := ToArrow(Unknown); err == nil {
		t.Error("ToArrow(unknown) succeeded")
	}
	for _, a := range []arrow.DataType{nil, &arrow.TimestampType{Unit: arrow.Second}, arrow.ListOf(arrow.PrimitiveTypes.Int32)} {
		if _, err := FromArrow(a); err == nil {
			t.Errorf("FromArrow(%v) succeeded", a)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"int", "decimal(10,2)", "DecimalType(38,0)", "array<int>", "char(3)", "decimal("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dt, err := Parse(s)
		if err != nil {
			return
		}
		if dt.Kind == Decimal {
			if _, err := NewDecimal(dt.Precision, dt.Scale); err != nil {
				t.Fatalf("Parse(%q) returned invalid %v", s, dt)
			}
		}
	})
}

func FuzzParseStruct(f *testing.F) {
	for _, s := range []string{"struct<a:int,b:decimal(10,0)>", "struct<>", "struct<a:array<struct<x:int>>>", "struct<a:int"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fields, err := ParseStruct(s)
		if err == nil && len(fields) > len(s) {
			t.Fatalf("more fields than bytes")
		}
	})
}

func TestText(t *testing.T) {
	for _, dt := range []DataType{Unknown, IntType, DecimalOf(38, 2), UnsupportedType("array<int>"), UnsupportedType(""), TimestampNTZType} {
		b, err := dt.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back DataType
		if err := back.UnmarshalText(b); err != nil || back != dt {
			t.Errorf("%v: round trip gave %v, %v", dt, back, err)
		}
	}
	var dt DataType
	if err := dt.UnmarshalText([]byte("nonsense")); err == nil {
		t.Error("UnmarshalText(nonsense) succeeded")
	}
}
