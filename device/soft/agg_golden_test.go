package soft

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAggGoldenSemantics runs a small hand-made input through the state and
// compares the emitted groups with hand-written expectations: -0.0 and 0.0
// group together, NaNs group together, null is a key value, integer sums
// wrap, a decimal sum that overflows is null, and the FIRST / isEmpty
// buffers.
func TestAggGoldenSemantics(t *testing.T) {
	d := aggDev(t, testMem)
	x := uint16(1)
	spec := hookSpec{Keys: []uint32{vtStr, vtF64}, Aggs: []hookAgg{
		{Func: aggCount, Arg: noReg, Out: vtI64},
		{Func: aggCount, Arg: x, In: vtI64, Out: vtI64},
		{Func: aggSum, Arg: x, In: vtI64, Out: vtI64},
		{Func: aggSum, Flags: aggfDecimal, Arg: x, In: vtI64, Out: vtI64},
		{Func: aggMin, Arg: x, In: vtI64, Out: vtI64},
		{Func: aggMax, Arg: x, In: vtI64, Out: vtI64},
		{Func: aggFirst, Arg: x, In: vtI64, Out: vtI64},
		{Func: aggFirst, Flags: aggfIgnoreNulls, Arg: x, In: vtI64, Out: vtI64},
	}}
	names := []string{"k", "f", "count(*)", "count(x)", "sum(x)", "sumdec(x)", "isEmpty", "min(x)", "max(x)",
		"first(x)", "valueSet", "firstnn(x)", "valueSet"}
	null := aggVal{Null: true}
	k := hookCol{VT: vtStr, Vals: []aggVal{{S: "a"}, {S: "a"}, null, {S: "a"}, null, {S: "b"}}}
	f := hookCol{VT: vtF64, Vals: []aggVal{{F: 0}, {F: math.Copysign(0, -1)}, {F: math.NaN()}, {F: 0},
		{F: math.Float64frombits(0x7ff0000000000123)}, {F: 1.5}}}
	xc := hookCol{VT: vtI64, Vals: []aggVal{{I: 5}, {I: 9223372036854775800}, {I: 3}, {I: 7}, null, null}}
	args := make([]hookCol, len(spec.Aggs))
	for j := 1; j < len(args); j++ {
		args[j] = xc
	}
	s := mustCreate(t, d, spec, 0)
	defer s.free()
	// two vectors, the second with a selection
	if err := s.update([]hookCol{{VT: vtStr, Vals: k.Vals[:3]}, {VT: vtF64, Vals: f.Vals[:3]}}, slice(args, 0, 3), nil, 3, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.update([]hookCol{k, f}, args, nil, 6, []uint16{3, 4, 5}); err != nil {
		t.Fatal(err)
	}
	cols, n, err := s.emit(outVTs(spec), 8, 64)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for g := range n {
		for c, col := range cols {
			if c > 0 {
				got.WriteByte(' ')
			}
			fmt.Fprintf(&got, "%s=%s", names[c], render(col.VT, col.Vals[g]))
		}
		got.WriteByte('\n')
	}
	path := filepath.Join("testdata", "agg", "semantics.golden")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			want.WriteString(line)
		}
	}
	if got.String() != want.String() {
		t.Errorf("emitted groups differ from %s\ngot:\n%s\nwant:\n%s", path, got.String(), want.String())
	}
}

// slice cuts every register with rows to rows [lo, hi).
func slice(cols []hookCol, lo, hi int) []hookCol {
	out := make([]hookCol, len(cols))
	for i, c := range cols {
		out[i] = c
		if c.VT != 0 {
			out[i].Vals = c.Vals[lo:hi]
		}
	}
	return out
}

func render(vt uint32, v aggVal) string {
	if v.Null {
		return "null"
	}
	switch vt {
	case vtBool:
		return strconv.FormatBool(v.I&1 == 1)
	case vtF64:
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	case vtStr:
		return strconv.Quote(v.S)
	case vtI128:
		return bigOf(vtI128, v).String()
	}
	return strconv.FormatInt(v.I, 10)
}
