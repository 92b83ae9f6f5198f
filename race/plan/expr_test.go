package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/hados-io/hados/operators/types"
)

func testIndex(attrs ...string) *attrIndex {
	ix := newAttrIndex()
	for _, a := range attrs {
		at, ok := itemAttr(a)
		if !ok {
			panic("bad test attr " + a)
		}
		ix.add(at.Name, at.ID)
	}
	return ix
}

var exprIndex = testIndex("c_mktsegment#2", "p_brand#5", "p_size#12", "x#1", "y#3",
	"(avg(ctr_total_return) * 1.2)#20", "ctr_store_sk#11", "ctr_store_sk#11#21", "order count #5",
	"sum(UnscaledValue(sr_return_amt#3))#9", "d_day_name#11", "ss_sold_date_sk#4", "year_total#44", "_w0#16", "i_class#9")

func TestParseExpr(t *testing.T) {
	tests := []struct {
		in    string
		check func(*Expr) bool
		// print is the expected String when it differs from in.
		print string
	}{
		{"(c_mktsegment#2 = BUILDING)", func(e *Expr) bool {
			return e.Name == "=" && e.Args[0].Kind == ExprAttr && e.Args[1].Kind == ExprLiteral && e.Args[1].Raw == "BUILDING"
		}, ""},
		// Brand#12 is not an attribute: id 12 is p_size.
		{"(p_brand#5 = Brand#12)", func(e *Expr) bool { return e.Args[1].Kind == ExprLiteral && e.Args[1].Raw == "Brand#12" }, ""},
		// Padded CHAR values keep their spaces.
		{"(d_day_name#11 = Saturday )", func(e *Expr) bool { return e.Args[1].Raw == "Saturday " }, ""},
		{"(x#1 = 2 yr Degree)", func(e *Expr) bool { return e.Args[1].Raw == "2 yr Degree" }, ""},
		{"isnotnull((avg(ctr_total_return) * 1.2)#20)", func(e *Expr) bool {
			return e.Args[0].Kind == ExprAttr && e.Args[0].ID == 20 && e.Args[0].Name == "(avg(ctr_total_return) * 1.2)"
		}, ""},
		// An id printed nowhere else after a parenthesised expression.
		{"isnotnull((x#1 + y#3)#77)", func(e *Expr) bool {
			return e.Args[0].Kind == ExprAttr && e.Args[0].ID == 77 && e.Args[0].Name == "(x#1 + y#3)"
		}, ""},
		{"ctr_store_sk#11#21", func(e *Expr) bool { return e.Kind == ExprAttr && e.ID == 21 && e.Name == "ctr_store_sk#11" }, ""},
		{"order count #5 ASC NULLS FIRST", func(e *Expr) bool {
			return e.Kind == ExprSortOrder && !e.Desc && e.NullsFirst && e.Args[0].Name == "order count "
		}, ""},
		{"y#3 DESC NULLS LAST", func(e *Expr) bool { return e.Desc && !e.NullsFirst }, ""},
		{"MakeDecimal(sum(UnscaledValue(sr_return_amt#3))#9,17,2) AS ctr_total_return#12", func(e *Expr) bool {
			return e.Kind == ExprAlias && e.ID == 12 && e.Args[0].Name == "MakeDecimal" && e.Args[0].Args[0].ID == 9
		}, ""},
		{"(1 - x#1)", func(e *Expr) bool { return e.Name == "-" && e.Args[0].Type == types.IntType }, ""},
		{"-x#1", func(e *Expr) bool { return e.Name == "-" && len(e.Args) == 1 }, ""},
		{"(x#1 >= -5)", func(e *Expr) bool { return e.Args[1].Lit.Int == -5 }, ""},
		{"(x#1 < 1995-03-15)", func(e *Expr) bool { return e.Args[1].Type == types.DateType && e.Args[1].Lit.Int == 9204 }, ""},
		{"(x#1 * 0.05)", func(e *Expr) bool { return e.Args[1].Type == types.DecimalOf(2, 2) && e.Args[1].Lit.Int == 5 }, ""},
		{"(x#1 > 0.90000000000000000000)", func(e *Expr) bool {
			return e.Args[1].Type == types.DecimalOf(20, 20) && e.Args[1].Lit.Big == "90000000000000000000"
		}, ""},
		{"(x#1 = 1.0E-4)", func(e *Expr) bool { return e.Args[1].Type == types.DoubleType }, ""},
		{"x#1 IN (AIR,AIR REG)", func(e *Expr) bool { return e.Name == "IN" && len(e.Args) == 3 && e.Args[2].Raw == "AIR REG" }, ""},
		{"(x#1 INSET 1, 2, 3 AND isnotnull(y#3))", func(e *Expr) bool {
			return e.Name == "AND" && e.Args[0].Name == "IN" && len(e.Args[0].Args) == 4
		}, "(x#1 IN (1,2,3) AND isnotnull(y#3))"},
		{"x#1 INSET (a,b)", func(e *Expr) bool { return e.Name == "IN" && len(e.Args) == 3 }, "x#1 IN (a,b)"},
		{"NOT x#1 LIKE %a%b%", func(e *Expr) bool { return e.Name == "NOT" && e.Args[0].Name == "LIKE" }, ""},
		{"dynamicpruningexpression(ss_sold_date_sk#4 IN dynamicpruning#5)", func(e *Expr) bool {
			return e.Args[0].Name == "dynamicpruning" && e.Args[0].ID == 5
		}, ""},
		{"CASE WHEN (year_total#44 > 0.00) THEN x#1 ELSE null END", func(e *Expr) bool {
			return e.Name == "CASE" && len(e.Args) == 3 && e.Args[2].Lit.Null
		}, ""},
		{"cast(x#1 as decimal(24,7))", func(e *Expr) bool { return e.Name == "cast" && e.Type == types.DecimalOf(24, 7) }, ""},
		{"CheckOverflow((promote_precision(x#1) / promote_precision(y#3)), DecimalType(38,20), true)", func(e *Expr) bool {
			return e.Args[1].Type == types.DecimalOf(38, 20)
		}, ""},
		{"count(distinct x#1)", func(e *Expr) bool { return e.Distinct }, ""},
		{"Subquery scalar-subquery#2, [id=#3].count(1)", func(e *Expr) bool {
			return e.Name == "field" && e.Lit.Str == "count(1)" && e.Args[0].ID == 2
		}, ""},
		{"ReusedSubquery Subquery scalar-subquery#2, [id=#3]", func(e *Expr) bool { return e.Name == "reused-scalar-subquery" }, ""},
		{"sum(_w0#16) windowspecdefinition(i_class#9, specifiedwindowframe(RowFrame, unboundedpreceding$(), unboundedfollowing$())) AS _we0#18",
			func(e *Expr) bool { return e.Kind == ExprAlias && e.Args[0].Name == "window" }, ""},
		{"concat(store channel, x#1)", func(e *Expr) bool { return e.Args[0].Raw == "store channel" }, ""},
		{"In(ca_state, [AR,IA,LA])", func(e *Expr) bool { return e.Args[1].Name == "list" && len(e.Args[1].Args) == 3 }, ""},
		{"coalesce(x#1, )", func(e *Expr) bool { return e.Args[1].Raw == "" }, ""},
		{"(shiftleft(cast(x#1 as bigint), 32) | (cast(y#3 as bigint) & 4294967295))", func(e *Expr) bool { return e.Name == "|" }, ""},
	}
	for _, tt := range tests {
		e, err := parseExpr(tt.in, exprIndex)
		if err != nil {
			t.Errorf("parseExpr(%q): %v", tt.in, err)
			continue
		}
		if !tt.check(e) {
			t.Errorf("parseExpr(%q) = %#v: check failed", tt.in, e)
		}
		want := tt.print
		if want == "" {
			want = tt.in
		}
		if got := e.String(); got != want {
			t.Errorf("String of %q = %q, want %q", tt.in, got, want)
		}
	}
}

func TestParseExprErrors(t *testing.T) {
	for _, in := range []string{
		"(x#1 = 1",
		"CASE WHEN x#1 END",
		"isnotnull(x#1",
		"cast(x#1 int)",
		"x#1 AS y",
		strings.Repeat("(", maxExprDepth+10) + "x#1" + strings.Repeat(")", maxExprDepth+10),
		strings.Repeat("NOT ", maxExprDepth+10) + "x#1",
	} {
		if _, err := parseExpr(in, exprIndex); err == nil {
			t.Errorf("parseExpr(%q) succeeded", clip(in))
		}
	}
}

func TestFindSpansPrefersLongest(t *testing.T) {
	sp := exprIndex.findSpans("isnotnull(ctr_store_sk#11#21)")
	if s, ok := sp[10]; !ok || s.id != 21 {
		t.Errorf("spans = %v", sp)
	}
	// No match inside a longer identifier.
	if sp := testIndex("sum#13").findSpans("partial_sum#13"); len(sp) != 0 {
		t.Errorf("matched inside identifier: %v", sp)
	}
}

func TestLiteralCoercion(t *testing.T) {
	tests := []struct {
		raw  string
		to   types.DataType
		want types.DataType
	}{
		{"2000", types.StringType, types.StringType},
		{"2000", types.LongType, types.LongType},
		{"2000", types.DoubleType, types.DoubleType},
		{"0.00", types.DecimalOf(7, 2), types.DecimalOf(7, 2)},
		{"100.123", types.DecimalOf(7, 2), types.DecimalOf(6, 3)},
		{"1998-09-02", types.DateType, types.DateType},
		{"1998-09-02", types.StringType, types.StringType},
		{"null", types.DateType, types.DateType},
		{"2000-01-01 00:00:01", types.TimestampType, types.TimestampType},
		{"1970-01-02", types.TimestampNTZType, types.TimestampNTZType},
		{"abc", types.IntType, types.StringType},
	}
	for _, tt := range tests {
		e := newLiteral(tt.raw)
		coerceLiteral(e, tt.to)
		if e.Type != tt.want {
			t.Errorf("coerce %q to %v = %v, want %v", tt.raw, tt.to, e.Type, tt.want)
		}
		if e.String() != tt.raw {
			t.Errorf("coerced %q prints %q", tt.raw, e.String())
		}
	}
	if d := newLiteral("0.00"); d.Type != types.DecimalOf(2, 2) {
		t.Errorf("0.00 = %v", d.Type)
	}
	if d := newLiteral("99999999999"); d.Type != types.LongType {
		t.Errorf("99999999999 = %v", d.Type)
	}
	if d := newLiteral("123456789012345678901234567890"); d.Type != types.DecimalOf(30, 0) || d.Lit.Big == "" {
		t.Errorf("wide integer = %v %+v", d.Type, d.Lit)
	}
}

func TestExprStringFromValues(t *testing.T) {
	// Expressions built in code (no Raw) print from their values.
	cases := []struct {
		e    *Expr
		want string
	}{
		{&Expr{Kind: ExprLiteral, Type: types.DecimalOf(5, 2), Lit: &Literal{Int: -105}}, "-1.05"},
		{&Expr{Kind: ExprLiteral, Type: types.DecimalOf(3, 3), Lit: &Literal{Int: 5}}, "0.005"},
		{&Expr{Kind: ExprLiteral, Type: types.DateType, Lit: &Literal{Int: 0}}, "1970-01-01"},
		{&Expr{Kind: ExprLiteral, Type: types.BooleanType, Lit: &Literal{Bool: true}}, "true"},
		{&Expr{Kind: ExprLiteral, Type: types.IntType, Lit: &Literal{Null: true}}, "null"},
		{call("=", AttrRef(Attr{Name: "a", ID: 1}), &Expr{Kind: ExprLiteral, Type: types.StringType, Lit: &Literal{Str: "x y"}}), "(a#1 = x y)"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("String = %q, want %q", got, c.want)
		}
	}
	var nilExpr *Expr
	if nilExpr.String() != "<nil>" {
		t.Error("nil expr")
	}
	stop := errors.New("stop")
	n := 0
	e := call("AND", call("=", AttrRef(Attr{ID: 1}), AttrRef(Attr{ID: 2})), AttrRef(Attr{ID: 3}))
	if err := e.Walk(func(*Expr) error { n++; return nil }); err != nil || n != 5 {
		t.Errorf("Walk visited %d", n)
	}
	if err := e.Walk(func(*Expr) error { return stop }); err != stop {
		t.Errorf("Walk did not stop: %v", err)
	}
}
