package conformance

import (
	"bytes"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sampleRecord has one column of each type hados returns, two rows, the
// second all nulls.
func sampleRecord(t testing.TB) arrow.Record {
	t.Helper()
	dec := &arrow.Decimal128Type{Precision: 25, Scale: 2}
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "dec", Type: dec, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d64", Type: &arrow.Decimal64Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: ts, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.BooleanBuilder).Append(true)
	b.Field(1).(*array.Int32Builder).Append(-7)
	b.Field(2).(*array.Int64Builder).Append(1 << 40)
	b.Field(3).(*array.Float64Builder).Append(0.25)
	b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(-1230))
	b.Field(5).(*array.StringBuilder).Append("AIR")
	b.Field(6).(*array.Decimal64Builder).Append(-5)
	b.Field(7).(*array.Date32Builder).Append(arrow.Date32FromTime(time.Date(1995, 3, 15, 0, 0, 0, 0, time.UTC)))
	b.Field(8).(*array.TimestampBuilder).Append(arrow.Timestamp(time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC).UnixMicro()))
	for i := range schema.NumFields() {
		b.Field(i).AppendNull()
	}
	return b.NewRecord()
}

var sampleRows = [][]any{
	{true, int64(-7), int64(1 << 40), 0.25, Decimal{Unscaled: big.NewInt(-1230), Scale: 2}, "AIR", dec("-0.05"), "1995-03-15",
		time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)},
	{nil, nil, nil, nil, nil, nil, nil, nil, nil},
}

func TestFromArrow(t *testing.T) {
	rec := sampleRecord(t)
	defer rec.Release()
	got, err := FromArrow(rec.Schema(), []arrow.Record{rec, rec})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != 4 || !reflect.DeepEqual(got.Names, []string{"b", "i32", "i64", "f64", "dec", "s", "d64", "d", "ts"}) {
		t.Fatalf("got %d rows, names %v", len(got.Rows), got.Names)
	}
	if err := Compare(got, &Table{Names: got.Names, Types: got.Types, Rows: append(sampleRows, sampleRows...)}, nil); err != nil {
		t.Fatal(err)
	}
	if got.Rows[0][4].(Decimal).String() != "-12.30" || got.Types[4] != "decimal(25, 2)" {
		t.Errorf("decimal %v, type %s", got.Rows[0][4], got.Types[4])
	}
	list := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}, nil)
	if _, err := FromArrow(list, nil); err == nil || !strings.Contains(err.Error(), `column "l": type list<item: int64, nullable> is not compared`) {
		t.Errorf("list column: %v", err)
	}
}

func TestFromDuckDB(t *testing.T) {
	got, err := FromDuckDB([]string{"n", "sum"}, []string{"VARCHAR", "DECIMAL(38,2)"}, [][]any{{"x", "12.30"}, {"y", nil}})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := got.Rows[0][1].(Decimal); !ok || d.String() != "12.30" || got.Rows[0][0] != "x" || got.Rows[1][1] != nil {
		t.Fatalf("rows %v", got.Rows)
	}
	for _, tt := range []struct {
		names, types []string
		rows         [][]any
		wantErr      string
	}{
		{[]string{"a"}, []string{"INTEGER", "DATE"}, nil, "1 column names, 2 types"},
		{[]string{"a"}, []string{"DECIMAL(15,2)"}, [][]any{{"1.0"}, {"x"}}, `row 2 column "a" (DECIMAL(15,2)): not a decimal: "x"`},
		{[]string{"a"}, []string{"INTEGER"}, [][]any{{int64(1), int64(2)}}, "row 1 has 2 values, want 1"},
	} {
		if _, err := FromDuckDB(tt.names, tt.types, tt.rows); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("FromDuckDB(%v, %v): %v, want %q", tt.names, tt.types, err, tt.wantErr)
		}
	}
}

// ipcBytes writes records as an Arrow IPC stream.
func ipcBytes(t testing.TB, recs ...arrow.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(recs[0].Schema()))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadIPC(t *testing.T) {
	rec := sampleRecord(t)
	defer rec.Release()
	data := ipcBytes(t, rec, rec)
	got, err := ReadIPC("q1.arrow", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := Compare(got, &Table{Names: got.Names, Rows: append(sampleRows, sampleRows...)}, nil); err != nil {
		t.Fatal(err)
	}
	for i, bad := range [][]byte{nil, []byte("not arrow"), data[:len(data)/2]} {
		if _, err := ReadIPC("bad.arrow", bytes.NewReader(bad)); !errors.Is(err, ErrIPC) || !strings.Contains(err.Error(), "bad.arrow") {
			t.Errorf("input %d: error %v, want ErrIPC naming the file", i, err)
		}
	}
	if _, err := ReadIPCFile("/nonexistent/q1.arrow"); err == nil || !strings.Contains(err.Error(), "/nonexistent/q1.arrow") {
		t.Errorf("missing file: %v", err)
	}
}
