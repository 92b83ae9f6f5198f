package exchange

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// hashOf hashes single arrays with seed 42.
func hashOf(t *testing.T, cols ...arrow.Array) []int32 {
	t.Helper()
	out := make([]int32, cols[0].Len())
	if err := HashColumns(cols, SparkSeed, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func equalInts(t *testing.T, name string, got, want []int32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s[%d] = %d, want %d", name, i, got[i], want[i])
		}
	}
}

// TestHashColumnsKnown hashes Arrow arrays of every supported type and
// checks Spark's known values (nulls keep the seed 42).
func TestHashColumnsKnown(t *testing.T) {
	mem := checkedMem(t)
	valid := []bool{true, true, true, true, true, true, false}

	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{0, 1, 2, 3, 4, -1, 99}, valid)
	ints := ib.NewArray()
	defer ints.Release()
	ib.Release()
	ints32 := []int32{933211791, -559580957, 1765031574, -1823081949, -397064898, -1604776387, 42}
	equalInts(t, "int", hashOf(t, ints), ints32)

	db := array.NewDate32Builder(mem)
	db.AppendValues([]arrow.Date32{0, 1, 2, 3, 4, -1, 7}, valid)
	dates := db.NewArray()
	defer dates.Release()
	db.Release()
	equalInts(t, "date", hashOf(t, dates), ints32)

	lb := array.NewInt64Builder(mem)
	lb.AppendValues([]int64{0, 1, -1, 5}, []bool{true, true, true, false})
	longs := lb.NewArray()
	defer longs.Release()
	lb.Release()
	equalInts(t, "long", hashOf(t, longs), []int32{-1670924195, -1712319331, -939490007, 42})

	tb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond})
	tb.AppendValues([]arrow.Timestamp{0, 1, -1}, nil)
	ts := tb.NewArray()
	defer ts.Release()
	tb.Release()
	equalInts(t, "timestamp", hashOf(t, ts), []int32{-1670924195, -1712319331, -939490007})

	bb := array.NewBooleanBuilder(mem)
	bb.AppendValues([]bool{true, false, true}, []bool{true, true, false})
	bools := bb.NewArray()
	defer bools.Release()
	bb.Release()
	equalInts(t, "bool", hashOf(t, bools), []int32{-559580957, 933211791, 42})

	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"hello world", "hello", "", "abc", "x"}, []bool{true, true, true, true, false})
	strs := sb.NewArray()
	defer strs.Release()
	sb.Release()
	strWant := []int32{-1528836094, -1008564952, 142593372, 1322437556, 42}
	equalInts(t, "string", hashOf(t, strs), strWant)

	// A slice of the string array (non-zero offset) hashes the same rows.
	sl := array.NewSlice(strs, 1, 4)
	defer sl.Release()
	equalInts(t, "string slice", hashOf(t, sl), strWant[1:4])

	lsb := array.NewLargeStringBuilder(mem)
	lsb.AppendValues([]string{"hello world", "hello", "", "abc", "x"}, []bool{true, true, true, true, false})
	lstrs := lsb.NewArray()
	defer lstrs.Release()
	lsb.Release()
	equalInts(t, "large string", hashOf(t, lstrs), strWant)

	binb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	binb.AppendValues([][]byte{{0, 0xc8}, []byte("abc")}, nil)
	bins := binb.NewArray()
	defer bins.Release()
	binb.Release()
	equalInts(t, "binary", hashOf(t, bins), []int32{-424716282, 1322437556})

	dictb := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	for _, s := range []string{"hello world", "hello", "", "abc"} {
		if err := dictb.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	dictb.AppendNull()
	dict := dictb.NewArray()
	defer dict.Release()
	dictb.Release()
	equalInts(t, "dictionary", hashOf(t, dict), strWant)

	d64b := array.NewDecimal64Builder(mem, &arrow.Decimal64Type{Precision: 10, Scale: 2})
	d64b.AppendValues([]decimal.Decimal64{0, 1, -1}, nil)
	d64 := d64b.NewArray()
	defer d64.Release()
	d64b.Release()
	equalInts(t, "decimal64", hashOf(t, d64), []int32{-1670924195, -1712319331, -939490007})

	d128b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 18, Scale: 0})
	d128b.AppendValues([]decimal128.Num{decimal128.FromI64(0), decimal128.FromI64(1), decimal128.FromI64(-1)}, nil)
	d128 := d128b.NewArray()
	defer d128.Release()
	d128b.Release()
	equalInts(t, "decimal128(18)", hashOf(t, d128), []int32{-1670924195, -1712319331, -939490007})

	w128b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: 0})
	w128b.AppendValues([]decimal128.Num{decimal128.FromI64(0), decimal128.FromI64(-1), decimal128.FromI64(128)}, nil)
	w128 := w128b.NewArray()
	defer w128.Release()
	w128b.Release()
	equalInts(t, "decimal128(38)", hashOf(t, w128), []int32{HashBytes([]byte{0}, 42), HashBytes([]byte{0xff}, 42), HashBytes([]byte{0, 0x80}, 42)})

	// Chaining: hash(i, s) seeds the string hash with the int's hash; a
	// null in any position leaves the running hash as it was.
	ints5 := array.NewSlice(ints, 0, 5)
	defer ints5.Release()
	got := hashOf(t, ints5, strs)
	for i := 0; i < 5; i++ {
		want := HashBytes([]byte([]string{"hello world", "hello", "", "abc"}[min(i, 3)]), ints32[i])
		if i == 4 {
			want = ints32[4] // string null
		}
		if got[i] != want {
			t.Errorf("hash(int, string)[%d] = %d, want %d", i, got[i], want)
		}
	}
}

func TestHashColumnsErrors(t *testing.T) {
	mem := memory.NewGoAllocator()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	lb.Append(true)
	list := lb.NewArray()
	defer list.Release()
	lb.Release()
	if err := HashColumns([]arrow.Array{list}, 42, make([]int32, 1)); !errors.Is(err, ErrNotSupported) {
		t.Errorf("list column: err = %v, want ErrNotSupported", err)
	}
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{1, 2}, nil)
	ints := ib.NewArray()
	defer ints.Release()
	ib.Release()
	if err := HashColumns([]arrow.Array{ints}, 42, make([]int32, 3)); err == nil {
		t.Error("row count mismatch: no error")
	}
}

// TestHashRandomAllTypes checks on random data that a column with nulls
// hashes like the same rows hashed one at a time (the per-row chain), and
// that dictionary and large-string columns agree with plain strings.
func TestHashRandomAllTypes(t *testing.T) {
	mem := checkedMem(t)
	rec := randomRecord(t, rand.New(rand.NewPCG(1, 2)), mem, 500, 0.2)
	defer rec.Release()
	all := hashOf(t, rec.Columns()...)
	for i := 0; i < int(rec.NumRows()); i += 37 {
		want := SparkSeed
		for _, c := range rec.Columns() {
			row := array.NewSlice(c, int64(i), int64(i+1))
			var one [1]int32 // this column's value seeded with the running hash
			if err := HashColumns([]arrow.Array{row}, want, one[:]); err != nil {
				t.Fatal(err)
			}
			want = one[0]
			row.Release()
		}
		if all[i] != want {
			t.Errorf("row %d: %d, want %d", i, all[i], want)
		}
	}
	ls, dict := rec.Column(14), rec.Column(15)
	for _, c := range []arrow.Array{ls, dict} {
		h := hashOf(t, c)
		for i := range h {
			var want int32 = SparkSeed
			if c.IsValid(i) {
				var v string
				if d, ok := c.(*array.Dictionary); ok {
					v = d.Dictionary().(*array.String).Value(d.GetValueIndex(i))
				} else {
					v = c.(*array.LargeString).Value(i)
				}
				want = HashBytes([]byte(v), SparkSeed)
			}
			if h[i] != want {
				t.Fatalf("%s row %d: %d, want %d", c.DataType(), i, h[i], want)
			}
		}
	}
}

func TestHashTimestampUnit(t *testing.T) {
	mem := checkedMem(t)
	b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond})
	b.Append(1)
	a := b.NewArray()
	b.Release()
	defer a.Release()
	if err := HashColumns([]arrow.Array{a}, 42, make([]int32, 1)); !errors.Is(err, ErrNotSupported) {
		t.Errorf("timestamp[ns]: err = %v, want ErrNotSupported", err)
	}
}
