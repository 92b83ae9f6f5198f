package operators

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Values the device join finds equal must hash alike: -0 and 0, every NaN,
// a string in utf8, large utf8 and dictionary encodings, int32 and int64
// of one value; a null is flagged unless the key is null-safe.
func TestHashJoinKeysFollowKeyEquality(t *testing.T) {
	mem := memory.DefaultAllocator
	hash := func(t *testing.T, a arrow.Array, nullSafe bool, seed uint64) ([]uint64, []bool) {
		t.Helper()
		defer a.Release()
		h, n := make([]uint64, a.Len()), make([]bool, a.Len())
		if err := hashJoinKeys([]arrow.Array{a}, []bool{nullSafe}, seed, h, n); err != nil {
			t.Fatal(err)
		}
		return h, n
	}
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(0x7FF8000000000001), 1.5}, nil)
	h, _ := hash(t, fb.NewArray(), false, 1)
	if h[0] != h[1] || h[2] != h[3] || h[0] == h[4] || h[2] == h[4] {
		t.Errorf("float hashes %x", h)
	}
	sb, lb := array.NewStringBuilder(mem), array.NewLargeStringBuilder(mem)
	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	for _, s := range []string{"a long string of many words", "", "k1"} {
		sb.Append(s)
		lb.Append(s)
		if err := db.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	hs, _ := hash(t, sb.NewArray(), false, 2)
	hl, _ := hash(t, lb.NewArray(), false, 2)
	hd, _ := hash(t, db.NewArray(), false, 2)
	for i := range hs {
		if hs[i] != hl[i] || hs[i] != hd[i] {
			t.Errorf("string %d: utf8 %x, large %x, dictionary %x", i, hs[i], hl[i], hd[i])
		}
	}
	ib, jb := array.NewInt32Builder(mem), array.NewInt64Builder(mem)
	ib.AppendValues([]int32{-7, 3}, nil)
	ib.AppendNull()
	jb.AppendValues([]int64{-7, 3}, nil)
	jb.AppendNull()
	hi, ni := hash(t, ib.NewArray(), false, 3)
	hj, nj := hash(t, jb.NewArray(), true, 3)
	if hi[0] != hj[0] || hi[1] != hj[1] || !ni[2] || nj[2] || ni[0] || nj[0] {
		t.Errorf("ints %x %v, longs %x %v", hi, ni, hj, nj)
	}
	other, _ := hash(t, func() arrow.Array {
		b := array.NewInt64Builder(mem)
		b.AppendValues([]int64{-7, 3}, nil)
		return b.NewArray()
	}(), false, 4)
	if other[0] == hj[0] && other[1] == hj[1] {
		t.Error("another seed gives the same hashes")
	}
	dec := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 20, Scale: 2})
	dec.Append(decimal128.FromI64(-5))
	dec.Append(decimal128.FromI64(5))
	hdec, _ := hash(t, dec.NewArray(), false, 5)
	if hdec[0] == hdec[1] {
		t.Error("decimals -5 and 5 hash alike")
	}
	if err := hashJoinKeys([]arrow.Array{array.MakeArrayOfNull(mem, arrow.FixedWidthTypes.Float16, 1)}, nil, 1, make([]uint64, 1), make([]bool, 1)); err == nil {
		t.Error("float16 keys accepted")
	}
}
