package scan

import (
	"math"
	"testing"

	"github.com/hados-io/hados/operators/types"
)

func colTypes(name string) (types.DataType, error) {
	switch name {
	case "d":
		return types.DoubleType, nil
	case "s":
		return types.StringType, nil
	}
	return types.LongType, nil
}

// TestSummaryMay is the table of pruning decisions on hand-made metadata:
// what each kind of summary may and may not conclude.
func TestSummaryMay(t *testing.T) {
	nan := math.NaN()
	mm := func(lo, hi datum) *summary { return &summary{min: lo, max: hi, minMaxSet: true} }
	nulls := func(rows, n int64) *summary { return &summary{rows: rows, nulls: n, nullsKnown: true} }
	dict := func(vs ...datum) *summary { return &summary{valuesSet: true, values: vs} }
	cases := []struct {
		name string
		f    Filter
		s    *summary
		may  bool
	}{
		{"eq inside", EqualTo{"l", int64(5)}, mm(int64(1), int64(9)), true},
		{"eq below", EqualTo{"l", int64(0)}, mm(int64(1), int64(9)), false},
		{"eq above", EqualTo{"l", int64(10)}, mm(int64(1), int64(9)), false},
		{"gt max", GreaterThan{"l", int64(9)}, mm(int64(1), int64(9)), false},
		{"ge max", GreaterThanOrEqual{"l", int64(9)}, mm(int64(1), int64(9)), true},
		{"lt min", LessThan{"l", int64(1)}, mm(int64(1), int64(9)), false},
		{"le min", LessThanOrEqual{"l", int64(1)}, mm(int64(1), int64(9)), true},
		{"ne constant", Not{EqualTo{"l", int64(4)}}, mm(int64(4), int64(4)), false},
		{"ne range", Not{EqualTo{"l", int64(4)}}, mm(int64(4), int64(5)), true},
		{"not in constant", Not{In{"l", []Value{int64(4), int64(7)}}}, mm(int64(4), int64(4)), false},
		{"in none", In{"l", []Value{int64(0), int64(10)}}, mm(int64(1), int64(9)), false},
		{"no minmax", EqualTo{"l", int64(0)}, &summary{}, true},
		{"all null eq", EqualTo{"l", int64(5)}, nulls(10, 10), false},
		{"all null isnotnull", IsNotNull{"l"}, nulls(10, 10), false},
		{"no nulls isnull", IsNull{"l"}, nulls(10, 0), false},
		{"some nulls isnull", IsNull{"l"}, nulls(10, 1), true},
		{"unknown nulls isnull", IsNull{"l"}, mm(int64(1), int64(2)), true},
		{"not isnotnull no nulls", Not{IsNotNull{"l"}}, nulls(10, 0), false},
		{"nullsafe null", EqualNullSafe{"l", nil}, nulls(10, 0), false},
		{"not nullsafe constant with nulls", Not{EqualNullSafe{"l", int64(4)}}, &summary{rows: 5, nulls: 1, nullsKnown: true, min: int64(4), max: int64(4), minMaxSet: true}, true},
		// Floating point: NaN hides from min/max and is above everything.
		{"double gt max may be NaN", GreaterThan{"d", 100.0}, mm(1.0, 9.0), true},
		{"double lt min", LessThan{"d", 1.0}, mm(1.0, 9.0), false},
		{"double lt NaN", LessThan{"d", nan}, mm(1.0, 9.0), true},
		{"double eq NaN", EqualTo{"d", nan}, mm(1.0, 9.0), true},
		{"double eq outside", EqualTo{"d", 10.0}, mm(1.0, 9.0), false},
		{"double NaN bound", EqualTo{"d", 10.0}, mm(1.0, nan), true},
		{"double -0 vs 0 min", EqualTo{"d", math.Copysign(0, -1)}, mm(0.0, 9.0), true},
		{"double 0 vs -0 max", EqualTo{"d", 0.0}, mm(-5.0, math.Copysign(0, -1)), true},
		{"double ne", Not{EqualTo{"d", 3.0}}, mm(3.0, 3.0), true},
		// Strings, including truncated bounds (a shorter min, an incremented max).
		{"starts inside", StringStartsWith{"s", "ab"}, mm([]byte("aa"), []byte("ac")), true},
		{"starts truncated min", StringStartsWith{"s", "abc"}, mm([]byte("ab"), []byte("b")), true},
		{"starts truncated max", StringStartsWith{"s", "abz"}, mm([]byte("aa"), []byte("ac")), true},
		{"starts below", StringStartsWith{"s", "a"}, mm([]byte("b"), []byte("c")), false},
		{"starts above", StringStartsWith{"s", "d"}, mm([]byte("b"), []byte("c")), false},
		{"starts max is prefix", StringStartsWith{"s", "cat"}, mm([]byte("b"), []byte("ca")), false},
		{"not starts all prefixed", Not{StringStartsWith{"s", "ab"}}, mm([]byte("ab"), []byte("abz")), false},
		{"not starts truncated max", Not{StringStartsWith{"s", "ab"}}, mm([]byte("ab"), []byte("ac")), true},
		{"eq truncated max", EqualTo{"s", "abcdef"}, mm([]byte("ab"), []byte("abd")), true},
		{"ends unknown", StringEndsWith{"s", "zz"}, mm([]byte("a"), []byte("b")), true},
		{"contains unknown", StringContains{"s", "zz"}, mm([]byte("a"), []byte("b")), true},
		// Dictionaries are exact value sets.
		{"dict absent", EqualTo{"l", int64(5)}, dict(int64(4), int64(6)), false},
		{"dict present", EqualTo{"l", int64(6)}, dict(int64(4), int64(6)), true},
		{"dict ends", StringEndsWith{"s", "na"}, dict([]byte("banana"), []byte("apple")), true},
		{"dict ends absent", StringEndsWith{"s", "zz"}, dict([]byte("banana"), []byte("apple")), false},
		{"dict isnull unknown", IsNull{"l"}, dict(int64(4)), true},
		{"dict NaN", EqualTo{"d", nan}, dict(1.0, nan), true},
		{"dict -0", EqualTo{"d", 0.0}, dict(math.Copysign(0, -1)), true},
		{"dict gt NaN above all", GreaterThan{"d", 100.0}, dict(1.0, nan), true},
		// Bloom filters: only equality, and only when they can answer.
		{"bloom absent", EqualTo{"l", int64(5)}, &summary{mayContain: func(datum) (bool, bool) { return false, true }}, false},
		{"bloom unknown", EqualTo{"l", int64(5)}, &summary{mayContain: func(datum) (bool, bool) { return false, false }}, true},
		{"bloom range", GreaterThan{"l", int64(5)}, &summary{mayContain: func(datum) (bool, bool) { return false, true }}, true},
		// Composition.
		{"and one side false", And{EqualTo{"l", int64(0)}, IsNotNull{"l"}}, mm(int64(1), int64(9)), false},
		{"or one side true", Or{EqualTo{"l", int64(0)}, EqualTo{"l", int64(5)}}, mm(int64(1), int64(9)), true},
		{"not and", Not{And{GreaterThan{"l", int64(0)}, LessThan{"l", int64(100)}}}, mm(int64(1), int64(9)), false},
		{"in with null only", In{"l", []Value{nil}}, mm(int64(1), int64(9)), false},
		{"not in with null", Not{In{"l", []Value{int64(100), nil}}}, mm(int64(1), int64(9)), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile(c.f, colTypes)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.may(func(string) *summary { return c.s }); got != c.may {
				t.Errorf("%s may = %t, want %t", c.f, got, c.may)
			}
		})
	}
}

func TestRanges(t *testing.T) {
	a := ranges{{0, 10}, {20, 30}}
	b := ranges{{5, 25}}
	if got := a.intersect(b); len(got) != 2 || got[0] != (rowRange{5, 10}) || got[1] != (rowRange{20, 25}) {
		t.Errorf("intersect = %v", got)
	}
	if got := a.union(b); len(got) != 1 || got[0] != (rowRange{0, 30}) {
		t.Errorf("union = %v", got)
	}
	if got := a.union(ranges{{10, 20}}); len(got) != 1 || got.rows() != 30 {
		t.Errorf("adjacent union = %v", got)
	}
	if !a.overlaps(9, 11) || a.overlaps(10, 20) {
		t.Error("overlaps")
	}
	p, _ := compile(GreaterThan{"l", int64(15)}, colTypes)
	pages := &pageSummaries{
		spans: []rowRange{{0, 10}, {10, 20}, {20, 30}},
		sums: []*summary{
			{min: int64(0), max: int64(9), minMaxSet: true},
			{min: int64(10), max: int64(19), minMaxSet: true},
			nil,
		},
	}
	got := p.rowsMay(30, func(string) *pageSummaries { return pages })
	if len(got) != 1 || got[0] != (rowRange{10, 30}) {
		t.Errorf("rowsMay = %v", got)
	}
}
