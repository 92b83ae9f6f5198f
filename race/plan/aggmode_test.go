package plan

import "testing"

// TestUnprefixedModes: Spark prints Final and Complete functions alike;
// the importer tells them apart by what the input carries.
func TestUnprefixedModes(t *testing.T) {
	attr := func(name string, id int64) Attr { return Attr{Name: name, ID: id} }
	key, x, buf, sumBuf := attr("k", 1), attr("x", 2), attr("count", 8), attr("sum", 9)
	one := &Expr{Kind: ExprLiteral, Raw: "1"}
	call := func(name string, args ...*Expr) AggCall {
		return AggCall{Func: name, Mode: AggComplete, Expr: &Expr{Kind: ExprCall, Name: name, Args: args}}
	}
	for _, tc := range []struct {
		name  string
		input []Attr
		funcs []AggCall
		want  []AggMode
	}{
		{"count(1) over rows", []Attr{key}, []AggCall{call("count", one)}, []AggMode{AggComplete}},
		{"count(1) over its buffer", []Attr{key, buf}, []AggCall{call("count", one)}, []AggMode{AggFinal}},
		{"sum(x) over rows", []Attr{key, x}, []AggCall{call("sum", AttrRef(x))}, []AggMode{AggComplete}},
		{"sum(x) over its buffer", []Attr{key, sumBuf}, []AggCall{call("sum", AttrRef(x))}, []AggMode{AggFinal}},
		{"count(1) beside a final sum", []Attr{key, sumBuf, buf}, []AggCall{call("sum", AttrRef(x)), call("count", one)},
			[]AggMode{AggFinal, AggFinal}},
		{"count(1) beside a complete sum", []Attr{key, x}, []AggCall{call("count", one), call("sum", AttrRef(x))},
			[]AggMode{AggComplete, AggComplete}},
		{"global count(1) over a buffer", []Attr{buf}, []AggCall{call("count", one)}, []AggMode{AggFinal}},
		{"partial functions keep their mode", []Attr{key}, []AggCall{{Func: "count", Mode: AggPartial, Expr: &Expr{Kind: ExprCall, Name: "partial_count", Args: []*Expr{one}}}},
			[]AggMode{AggPartial}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &AggInfo{Keys: []*Expr{AttrRef(key)}, Functions: tc.funcs}
			if tc.name == "global count(1) over a buffer" {
				a.Keys = nil
			}
			unprefixedModes(tc.input, a)
			for i, f := range a.Functions {
				if f.Mode != tc.want[i] {
					t.Errorf("function %d (%s): %s, want %s", i, f.Func, f.Mode, tc.want[i])
				}
			}
		})
	}
}
