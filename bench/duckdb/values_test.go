package duckdbh

import (
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

func TestFormatDecimal(t *testing.T) {
	tests := []struct {
		value int64
		scale int
		want  string
	}{
		{0, 0, "0"},
		{0, 2, "0.00"},
		{7, 0, "7"},
		{12345, 2, "123.45"},
		{300, 2, "3.00"},
		{5, 3, "0.005"},
		{-5, 3, "-0.005"},
		{-12345, 2, "-123.45"},
		{100, 2, "1.00"},
		{99, 2, "0.99"},
		{-99, 2, "-0.99"},
		{42, -1, "42"},
	}
	for _, tt := range tests {
		if got := FormatDecimal(big.NewInt(tt.value), tt.scale); got != tt.want {
			t.Errorf("FormatDecimal(%d, %d) = %q, want %q", tt.value, tt.scale, got, tt.want)
		}
	}
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890123456", 10)
	if got, want := FormatDecimal(huge, 4), "-12345678901234567890123456789012.3456"; got != want {
		t.Errorf("FormatDecimal(38 digits) = %q, want %q", got, want)
	}
}

// FuzzFormatDecimal checks FormatDecimal keeps exactly scale fraction
// digits and that removing the point gives the value back.
func FuzzFormatDecimal(f *testing.F) {
	f.Add(int64(0), uint8(0))
	f.Add(int64(12345), uint8(2))
	f.Add(int64(-5), uint8(3))
	f.Add(int64(math.MinInt64), uint8(38))
	f.Fuzz(func(t *testing.T, v int64, scale uint8) {
		s := FormatDecimal(big.NewInt(v), int(scale))
		intPart, frac, hasPoint := strings.Cut(s, ".")
		if hasPoint != (scale > 0) || len(frac) != int(scale) {
			t.Fatalf("FormatDecimal(%d, %d) = %q: want %d fraction digits", v, scale, s, scale)
		}
		if intPart == "" || intPart == "-" {
			t.Fatalf("FormatDecimal(%d, %d) = %q: no integer digit", v, scale, s)
		}
		back, ok := new(big.Int).SetString(intPart+frac, 10)
		if !ok || back.Cmp(big.NewInt(v)) != 0 {
			t.Fatalf("FormatDecimal(%d, %d) = %q does not read back", v, scale, s)
		}
	})
}

func TestNormalize(t *testing.T) {
	day := time.Date(1998, 9, 2, 0, 0, 0, 0, time.UTC)
	stamp := time.Date(2020, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))
	huge, _ := new(big.Int).SetString("170141183460469231731687303715884105727", 10)
	tests := []struct {
		name   string
		in     any
		dbType string
		want   any
	}{
		{"nil", nil, "INTEGER", nil},
		{"bool", true, "BOOLEAN", true},
		{"int8", int8(-3), "TINYINT", int64(-3)},
		{"int16", int16(300), "SMALLINT", int64(300)},
		{"int32", int32(7), "INTEGER", int64(7)},
		{"int64", int64(9), "BIGINT", int64(9)},
		{"uint8", uint8(200), "UTINYINT", int64(200)},
		{"uint16", uint16(60000), "USMALLINT", int64(60000)},
		{"uint32", uint32(4e9), "UINTEGER", int64(4e9)},
		{"uint64 small", uint64(5), "UBIGINT", int64(5)},
		{"uint64 big", uint64(math.MaxUint64), "UBIGINT", "18446744073709551615"},
		{"float32", float32(1.5), "FLOAT", 1.5},
		{"float64", 2.25, "DOUBLE", 2.25},
		{"hugeint small", big.NewInt(-42), "HUGEINT", int64(-42)},
		{"hugeint big", huge, "HUGEINT", "170141183460469231731687303715884105727"},
		{"hugeint nil", (*big.Int)(nil), "HUGEINT", nil},
		{"decimal", duckdb.Decimal{Width: 15, Scale: 2, Value: big.NewInt(300)}, "DECIMAL(15,2)", "3.00"},
		{"decimal nil", duckdb.Decimal{Width: 15, Scale: 2}, "DECIMAL(15,2)", nil},
		{"string", "x", "VARCHAR", "x"},
		{"blob", []byte("ab"), "BLOB", "ab"},
		{"date", day, "DATE", "1998-09-02"},
		{"timestamp", stamp, "TIMESTAMP", stamp.UTC()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in, tt.dbType)
			if err != nil {
				t.Fatalf("Normalize: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Normalize(%#v) = %#v (%T), want %#v (%T)", tt.in, got, got, tt.want, tt.want)
			}
		})
	}
}

func TestNormalizeRejectsUnsupported(t *testing.T) {
	_, err := Normalize(duckdb.Interval{Days: 1}, "INTERVAL")
	if err == nil || !strings.Contains(err.Error(), "INTERVAL") || !strings.Contains(err.Error(), "duckdb.Interval") {
		t.Fatalf("Normalize(interval) error = %v, want one naming INTERVAL and duckdb.Interval", err)
	}
}

// TestDriverTypes pins what the duckdb driver returns for each SQL type the
// TPC-H answers use, after normalisation.
func TestDriverTypes(t *testing.T) {
	db := openDB(t, 1)
	tests := []struct {
		expr string
		want any
	}{
		{"true", true},
		{"42::tinyint", int64(42)},
		{"42::integer", int64(42)},
		{"42::bigint", int64(42)},
		{"sum(x) from (values (1::bigint), (2::bigint)) v(x)", int64(3)}, // HUGEINT
		{"170141183460469231731687303715884105727::hugeint", "170141183460469231731687303715884105727"},
		{"1.5::double", 1.5},
		{"12.3::decimal(15,2)", "12.30"},
		{"-0.05::decimal(15,2)", "-0.05"},
		{"3::decimal(15,2) * 1::decimal(15,2)", "3.0000"},
		{"sum(x) from (values (1.10::decimal(15,2)), (2.20::decimal(15,2))) v(x)", "3.30"}, // DECIMAL(38,2)
		{"avg(x) from (values (1::decimal(15,2)), (2::decimal(15,2))) v(x)", 1.5},          // DOUBLE
		{"'abc'", "abc"},
		{"date '1998-09-02'", "1998-09-02"},
		{"date '1998-12-01' - interval 90 day", time.Date(1998, 9, 2, 0, 0, 0, 0, time.UTC)}, // TIMESTAMP
		{"extract(year from date '1995-06-01')", int64(1995)},
		{"null::integer", nil},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			rows, cols, err := db.QueryRows("SELECT " + tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || len(rows[0]) != 1 || len(cols) != 1 {
				t.Fatalf("got rows %v columns %v, want one value", rows, cols)
			}
			if got := rows[0][0]; !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("SELECT %s = %#v (%T), want %#v (%T)", tt.expr, got, got, tt.want, tt.want)
			}
		})
	}
}
