package types

import "testing"

func d(p, s int) DataType { return DecimalOf(p, s) }

func TestArithmetic(t *testing.T) {
	tests := []struct {
		op   string
		l, r DataType
		want DataType
	}{
		// Integral and fractional.
		{"+", IntType, IntType, IntType},
		{"+", IntType, LongType, LongType},
		{"*", ShortType, ByteType, ShortType},
		{"/", IntType, IntType, DoubleType},
		{"%", LongType, IntType, LongType},
		{"div", IntType, IntType, LongType},
		{"-", FloatType, IntType, FloatType},
		{"-", FloatType, DoubleType, DoubleType},
		{"*", d(10, 2), DoubleType, DoubleType},
		{"+", NullType, IntType, IntType},
		// The decimal table.
		{"+", d(10, 2), d(5, 3), d(12, 3)},
		{"-", d(7, 2), d(7, 2), d(8, 2)},
		{"*", d(7, 2), d(7, 2), d(15, 4)},
		{"*", d(10, 0), d(11, 0), d(22, 0)},
		{"/", d(7, 2), d(7, 2), d(17, 10)},
		{"/", d(15, 4), d(15, 4), d(35, 20)},
		{"%", d(10, 2), d(5, 3), d(5, 3)},
		{"%", d(10, 2), d(12, 3), d(11, 3)},
		// Integral operands as decimals.
		{"+", IntType, d(7, 2), d(13, 2)},
		{"*", LongType, d(7, 2), d(28, 2)},
		{"-", d(1, 0), d(10, 0), d(11, 0)},
		// Precision above 38: keep integral digits, scale down to >= min(s,6).
		{"*", d(38, 10), d(38, 10), d(38, 6)},
		{"*", d(20, 2), d(20, 2), d(38, 4)},
		{"/", d(38, 20), d(38, 20), d(38, 6)},
		{"+", d(38, 0), d(38, 0), d(38, 0)},
		{"+", d(38, 38), d(38, 38), d(38, 37)},
		{"*", d(35, 20), d(23, 20), d(38, 19)},
		{"*", d(35, 20), d(17, 2), d(38, 7)},
		{"/", d(17, 2), d(17, 2), d(37, 20)},
		{"/", d(38, 2), d(1, 0), d(38, 6)},
	}
	for _, tt := range tests {
		got, err := Arithmetic(tt.op, tt.l, tt.r)
		if err != nil || got != tt.want {
			t.Errorf("%v %s %v = %v, %v; want %v", tt.l, tt.op, tt.r, got, err, tt.want)
		}
	}
	for _, bad := range [][2]DataType{{StringType, IntType}, {DateType, IntType}} {
		if _, err := Arithmetic("+", bad[0], bad[1]); err == nil {
			t.Errorf("%v + %v succeeded", bad[0], bad[1])
		}
	}
	if _, err := Arithmetic("^", IntType, IntType); err == nil {
		t.Error("unknown operator accepted")
	}
}

func TestWiden(t *testing.T) {
	tests := []struct {
		l, r DataType
		want DataType
		ok   bool
	}{
		{IntType, IntType, IntType, true},
		{IntType, LongType, LongType, true},
		{NullType, DateType, DateType, true},
		{d(7, 2), IntType, d(12, 2), true},
		{d(7, 2), LongType, d(22, 2), true},
		{d(7, 2), d(10, 5), d(10, 5), true},
		{d(38, 0), d(38, 38), d(38, 38), true},
		{d(7, 2), DoubleType, DoubleType, true},
		{FloatType, DoubleType, DoubleType, true},
		{DateType, TimestampType, TimestampType, true},
		{StringType, DateType, DateType, true},
		{StringType, IntType, DoubleType, true},
		{BooleanType, IntType, Unknown, false},
		{BinaryType, StringType, Unknown, false},
	}
	for _, tt := range tests {
		got, ok := Widen(tt.l, tt.r)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Widen(%v,%v) = %v,%v want %v,%v", tt.l, tt.r, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAggregate(t *testing.T) {
	tests := []struct {
		fn     string
		arg    DataType
		want   DataType
		buffer []DataType
	}{
		{"sum", IntType, LongType, []DataType{LongType}},
		{"sum", LongType, LongType, []DataType{LongType}},
		{"sum", DoubleType, DoubleType, []DataType{DoubleType}},
		{"sum", d(7, 2), d(17, 2), []DataType{d(17, 2), BooleanType}},
		{"sum", d(30, 2), d(38, 2), []DataType{d(38, 2), BooleanType}},
		{"avg", d(7, 2), d(11, 6), []DataType{d(17, 2), LongType}},
		{"avg", d(36, 36), d(38, 38), []DataType{d(38, 36), LongType}},
		{"avg", IntType, DoubleType, []DataType{DoubleType, LongType}},
		{"avg", LongType, DoubleType, []DataType{DoubleType, LongType}},
		{"count", StringType, LongType, []DataType{LongType}},
		{"min", DateType, DateType, []DataType{DateType}},
		{"max", d(7, 2), d(7, 2), []DataType{d(7, 2)}},
		{"first", StringType, StringType, []DataType{StringType, BooleanType}},
		{"stddev_samp", DoubleType, DoubleType, []DataType{DoubleType, DoubleType, DoubleType}},
	}
	for _, tt := range tests {
		got, err := Aggregate(tt.fn, tt.arg)
		if err != nil || got != tt.want {
			t.Errorf("%s(%v) = %v, %v; want %v", tt.fn, tt.arg, got, err, tt.want)
		}
		buf, err := AggregateBuffer(tt.fn, tt.arg)
		if err != nil || len(buf) != len(tt.buffer) {
			t.Errorf("buffer %s(%v) = %v, %v; want %v", tt.fn, tt.arg, buf, err, tt.buffer)
			continue
		}
		for i := range buf {
			if buf[i] != tt.buffer[i] {
				t.Errorf("buffer %s(%v)[%d] = %v; want %v", tt.fn, tt.arg, i, buf[i], tt.buffer[i])
			}
		}
	}
	if _, err := Aggregate("sum", StringType); err == nil {
		t.Error("sum(string) accepted")
	}
	if _, err := Aggregate("frobnicate", IntType); err == nil {
		t.Error("unknown aggregate accepted")
	}
}

func TestDecimalExpressions(t *testing.T) {
	if got, err := MakeDecimal(17, 2); err != nil || got != d(17, 2) {
		t.Errorf("MakeDecimal = %v, %v", got, err)
	}
	if _, err := MakeDecimal(39, 2); err == nil {
		t.Error("MakeDecimal(39,2) accepted")
	}
	if got, err := UnscaledValue(d(18, 2)); err != nil || got != LongType {
		t.Errorf("UnscaledValue = %v, %v", got, err)
	}
	if _, err := UnscaledValue(d(19, 2)); err == nil {
		t.Error("UnscaledValue(decimal(19,2)) accepted")
	}
	if got, err := CheckOverflow(d(38, 20)); err != nil || got != d(38, 20) {
		t.Errorf("CheckOverflow = %v, %v", got, err)
	}
	if _, err := CheckOverflow(IntType); err == nil {
		t.Error("CheckOverflow(int) accepted")
	}
	if PromotePrecision(d(12, 2)) != d(12, 2) {
		t.Error("PromotePrecision changed the type")
	}
	if LiteralDecimal(1) != d(1, 0) || LiteralDecimal(-123) != d(3, 0) || LiteralDecimal(0) != d(1, 0) {
		t.Error("LiteralDecimal")
	}
	if Bounded(48, 40) != d(38, 38) {
		t.Error("Bounded")
	}
}

func TestCast(t *testing.T) {
	tests := []struct {
		from, to DataType
		ok       bool
	}{
		{IntType, d(10, 0), true}, {d(7, 2), d(12, 2), true}, {StringType, DateType, true},
		{DateType, StringType, true}, {IntType, StringType, true}, {DateType, TimestampType, true},
		{BinaryType, IntType, false}, {IntType, DateType, false}, {IntType, UnsupportedType("array<int>"), false},
		{NullType, DateType, true}, {StringType, BinaryType, true},
	}
	for _, tt := range tests {
		got, err := Cast(tt.from, tt.to)
		if (err == nil) != tt.ok || (tt.ok && got != tt.to) {
			t.Errorf("Cast(%v,%v) = %v, %v; ok want %v", tt.from, tt.to, got, err, tt.ok)
		}
	}
}
