package scan

import (
	"github.com/hados-io/hados/internal/testkit"

	"flag"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
}

// TestFilterString checks filters print the way Spark prints them.
func TestFilterString(t *testing.T) {
	fs := []Filter{
		EqualTo{"l_shipdate", Date(9204)},
		IsNotNull{"x"},
		In{"a", []Value{int32(1), int32(2)}},
		In{"a", []Value{"x", nil}},
		EqualTo{"l_discount", Decimal{big.NewInt(5), 2}},
		EqualTo{"n", Decimal{big.NewInt(-5), 3}},
		GreaterThan{"d", 1.5}, LessThan{"d", math.NaN()}, LessThanOrEqual{"d", 2.0},
		GreaterThanOrEqual{"f", float32(0.25)},
		EqualNullSafe{"s", nil},
		EqualTo{"ts", Timestamp(795_225_600_123_000)},
		EqualTo{"ts", Timestamp(-1)},
		EqualTo{"bin", []byte{0xca, 0xfe}},
		StringStartsWith{"s", "ab"}, StringEndsWith{"s", "yz"}, StringContains{"s", "mid"},
		And{IsNotNull{"a"}, Or{IsNull{"b"}, Not{EqualTo{"b", true}}}},
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	golden(t, "filters.golden", b.String())
}

// TestEvalThreeValued checks Eval against hand-computed Spark results,
// including nulls, NaN and signed zeros.
func TestEvalThreeValued(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	nan := math.NaN()
	xs := []*float64{ptr(1.0), nil, ptr(nan), ptr(math.Copysign(0, -1)), ptr(5.0)}
	b := array.NewFloat64Builder(mem)
	for _, x := range xs {
		if x == nil {
			b.AppendNull()
		} else {
			b.Append(*x)
		}
	}
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil),
		[]arrow.Array{col}, int64(len(xs)))
	col.Release()
	defer rec.Release()
	cases := []struct {
		f    Filter
		want string // one char per row: 1 true, 0 not true
	}{
		{IsNull{"d"}, "01000"},
		{IsNotNull{"d"}, "10111"},
		{EqualTo{"d", 0.0}, "00010"},
		{EqualTo{"d", nan}, "00100"},
		{GreaterThan{"d", 4.0}, "00101"},
		{LessThan{"d", nan}, "10011"},
		{Not{GreaterThan{"d", 4.0}}, "10010"},
		{Not{EqualTo{"d", 1.0}}, "00111"},
		{EqualNullSafe{"d", nil}, "01000"},
		{Not{EqualNullSafe{"d", 1.0}}, "01111"},
		{In{"d", []Value{1.0, nil}}, "10000"},
		{Not{In{"d", []Value{1.0, nil}}}, "00000"},
		{Not{In{"d", []Value{1.0}}}, "00111"},
		{Or{IsNull{"d"}, GreaterThan{"d", 2.0}}, "01101"},
		{Not{And{IsNotNull{"d"}, LessThan{"d", 2.0}}}, "01101"},
		{In{"d", nil}, "00000"},
	}
	for _, c := range cases {
		got, err := Eval(c.f, rec)
		if err != nil {
			t.Fatalf("%s: %v", c.f, err)
		}
		var s strings.Builder
		for _, g := range got {
			if g {
				s.WriteByte('1')
			} else {
				s.WriteByte('0')
			}
		}
		if s.String() != c.want {
			t.Errorf("%s = %s, want %s", c.f, s.String(), c.want)
		}
	}
	if _, err := Eval(EqualTo{"d", "x"}, rec); err == nil || !strings.Contains(err.Error(), "EqualTo(d,x)") {
		t.Errorf("string literal on double: err = %v", err)
	}
	if _, err := Eval(StringStartsWith{"d", "x"}, rec); err == nil {
		t.Error("StringStartsWith on double: no error")
	}
	if _, err := Eval(IsNull{"nope"}, rec); err == nil {
		t.Error("missing column: no error")
	}
}

func ptr[T any](v T) *T { return &v }
