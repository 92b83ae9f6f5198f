package main

import (
	"errors"
	"io"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/internal/arrowsize"
)

var roundTripSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "amount", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "ratio", Type: arrow.PrimitiveTypes.Float64, Nullable: false},
}, nil)

// roundTripRecords builds batches of every column type the executor
// returns, with nulls, empty strings, multi-byte strings and negative
// decimals. The caller releases them.
func roundTripRecords(mem memory.Allocator, batches, rows int) []arrow.Record {
	b := array.NewRecordBuilder(mem, roundTripSchema)
	defer b.Release()
	names := []string{"", "a", "déjà vu", "spark", "ünïcödé ✓"}
	var out []arrow.Record
	for k := 0; k < batches; k++ {
		for i := 0; i < rows; i++ {
			n := k*rows + i
			null := n%7 == 3
			appendOrNull(b.Field(0), null, func() { b.Field(0).(*array.Int64Builder).Append(int64(n) - 50) })
			appendOrNull(b.Field(1), n%5 == 1, func() { b.Field(1).(*array.StringBuilder).Append(names[n%len(names)]) })
			appendOrNull(b.Field(2), null, func() {
				b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(n*12345) - 99999))
			})
			appendOrNull(b.Field(3), n%11 == 0, func() { b.Field(3).(*array.Date32Builder).Append(arrow.Date32(8766 + n)) })
			appendOrNull(b.Field(4), n%3 == 0, func() { b.Field(4).(*array.BooleanBuilder).Append(n%2 == 0) })
			b.Field(5).(*array.Float64Builder).Append(float64(n) / 3)
		}
		out = append(out, b.NewRecord())
	}
	return out
}

func appendOrNull(b array.Builder, null bool, add func()) {
	if null {
		b.AppendNull()
		return
	}
	add()
}

// readAll drains an imported C stream, keeping its records.
func readAll(t *testing.T, rdr interface {
	Read() (arrow.Record, error)
}) []arrow.Record {
	t.Helper()
	var got []arrow.Record
	for {
		rec, err := rdr.Read()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		rec.Retain()
		got = append(got, rec)
	}
}

// TestStreamRoundTrip exports records as hados' output stream, imports it
// as a C consumer would (arrow-go's importer) and compares; every byte of C
// memory is returned once the consumer releases the stream.
func TestStreamRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	want := roundTripRecords(mem, 3, 100)
	for _, r := range want {
		r.Retain() // toC releases its input
	}
	recs, bytes, err := toC(want)
	if err != nil {
		t.Fatal(err)
	}
	if bytes == 0 || cAlloc.AllocatedBytes() == 0 {
		t.Fatalf("toC copied %d bytes, C memory holds %d", bytes, cAlloc.AllocatedBytes())
	}
	s := newCStream()
	defer freeCStream(s)
	exportStream(roundTripSchema, recs, s)
	rdr, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(s)), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, rdr)
	rdr.(interface{ Release() }).Release()
	if len(got) != len(want) {
		t.Fatalf("%d batches back, want %d", len(got), len(want))
	}
	for i := range want {
		if !array.RecordEqual(got[i], want[i]) {
			t.Errorf("batch %d differs:\ngot  %v\nwant %v", i, got[i], want[i])
		}
		got[i].Release()
		want[i].Release()
	}
	mem.AssertSize(t, 0)
	if n := cAlloc.AllocatedBytes(); n != 0 {
		t.Errorf("C memory still holds %d bytes after the consumer released everything", n)
	}
}

// TestStreamReleasedEarly releases the output stream before reading it all:
// the batches not handed out are freed.
func TestStreamReleasedEarly(t *testing.T) {
	recs, _, err := toC(roundTripRecords(memory.DefaultAllocator, 4, 10))
	if err != nil {
		t.Fatal(err)
	}
	s := newCStream()
	defer freeCStream(s)
	exportStream(roundTripSchema, recs, s)
	before := liveHandles()
	rdr, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(s)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rdr.Read(); err != nil {
		t.Fatal(err)
	}
	rdr.(interface{ Release() }).Release()
	if n := cAlloc.AllocatedBytes(); n != 0 {
		t.Errorf("C memory holds %d bytes after an early release", n)
	}
	if liveHandles() != before-1 {
		t.Errorf("live handles %d after release, want %d", liveHandles(), before-1)
	}
}

// TestInputStream reads a C stream handed to a task as an operator: the
// records arrive intact and Close releases the producer's stream once.
func TestInputStream(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	want := roundTripRecords(mem, 2, 50)
	rr, err := array.NewRecordReader(roundTripSchema, want)
	if err != nil {
		t.Fatal(err)
	}
	s := newCStream()
	defer freeCStream(s)
	cdata.ExportRecordReader(rr, (*cdata.CArrowArrayStream)(unsafe.Pointer(s)))
	rr.Release()
	in, err := importStream(s)
	if err != nil {
		t.Fatal(err)
	}
	if s.release != nil {
		t.Error("the caller's stream was not moved (release still set)")
	}
	if !in.Schema().Equal(roundTripSchema) {
		t.Errorf("schema %v, want %v", in.Schema(), roundTripSchema)
	}
	ctx := t.Context()
	for i := 0; ; i++ {
		rec, err := in.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			if i != len(want) {
				t.Errorf("%d batches, want %d", i, len(want))
			}
			break
		}
		if !array.RecordEqual(rec, want[i]) {
			t.Errorf("batch %d differs", i)
		}
		rec.Release()
	}
	if in.rows.Load() != 100 || in.batches.Load() != 2 {
		t.Errorf("counted %d rows in %d batches, want 100 in 2", in.rows.Load(), in.batches.Load())
	}
	in.Close()
	in.Close() // idempotent
	if _, err := in.Next(ctx); err == nil {
		t.Error("Next after Close succeeded")
	}
	for _, r := range want {
		r.Release()
	}
	mem.AssertSize(t, 0)
}

// TestInputStreamRefused: NULL and released streams are errors, not
// crashes.
func TestInputStreamRefused(t *testing.T) {
	if _, err := importStream(nil); err == nil || statusOf(err) != -1 {
		t.Errorf("NULL stream: %v", err)
	}
	s := newCStream() // zeroed: released
	defer freeCStream(s)
	if _, err := importStream(s); err == nil || statusOf(err) != -1 {
		t.Errorf("released stream: %v", err)
	}
}

// BenchmarkStreamExport measures the output path: copying a task's result
// into C memory, exporting it as a stream and consuming it through the C
// Data interface (bytes: the result's buffers).
func BenchmarkStreamExport(b *testing.B) {
	src := roundTripRecords(memory.DefaultAllocator, 16, 64<<10)
	defer func() {
		for _, r := range src {
			r.Release()
		}
	}()
	var size int64
	for _, r := range src {
		for _, c := range r.Columns() {
			size += arrowsize.Data(c.Data())
		}
	}
	b.SetBytes(size)
	s := newCStream()
	defer freeCStream(s)
	for b.Loop() {
		for _, r := range src {
			r.Retain()
		}
		recs, _, err := toC(src)
		if err != nil {
			b.Fatal(err)
		}
		exportStream(roundTripSchema, recs, s)
		rdr, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(s)), nil)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rdr.Read(); err != nil {
				break
			}
		}
		rdr.(interface{ Release() }).Release()
	}
}
