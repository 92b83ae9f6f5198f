package convert

import (
	"errors"
	"testing"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// schema and parse build expressions the way the importer does: from a
// tiny formatted plan whose Filter holds the expression.
func parse(t *testing.T, cond string) (*plan.Expr, Schema) {
	t.Helper()
	text := `== Physical Plan ==
* Filter (2)
+- Scan parquet default.t (1)


(1) Scan parquet default.t
Output [5]: [i#1, d#2, s#3, dt#4, b#5]
ReadSchema: struct<i:int,d:decimal(7,2),s:string,dt:date,b:tinyint>

(2) Filter
Input [5]: [i#1, d#2, s#3, dt#4, b#5]
Condition : ` + cond + "\n"
	p, err := plan.ParseSparkText("t", text)
	if err != nil {
		t.Fatal(err)
	}
	return p.Root.Filter.Condition, p.Root.Children[0].Output
}

func TestConvert(t *testing.T) {
	tests := []struct {
		cond, want string
		code       Code // "" means it converts
	}{
		{"(isnotnull(i#1) AND (i#1 > 5))", "(isnotnull(i) AND (i > 5))", ""},
		{"(d#2 > 1.50)", "(d > 1.50)", ""},
		{"((d#2 * 2) > 3)", "((d * 2) > 3.00)", ""},
		{"(dt#4 >= 1995-03-15)", "(dt >= 1995-03-15)", ""},
		{"s#3 IN (a,b)", "(s IN (a,b))", ""},
		{"StartsWith(s#3, ab)", "StartsWith(s, ab)", ""},
		{"(-i#1 = 1)", "(-i = 1)", ""},
		{"(substr(s#3, 1, 2) = ab)", "(substring(s, 1, 2) = ab)", ""},
		{"(upper(s#3) = AB)", "", CodeExpression},
		{"(i#1 = Subquery scalar-subquery#9, [id=#10])", "", CodeSubquery},
		{"(b#5 = 1)", "", CodeDataType},
		{"isnotnull(i#1, d#2)", "", CodeShape},
	}
	for _, tc := range tests {
		t.Run(tc.cond, func(t *testing.T) {
			e, in := parse(t, tc.cond)
			got, err := Expr(e, in)
			if tc.code != "" {
				var ce *Error
				if !errors.As(err, &ce) || ce.Code != tc.code {
					t.Fatalf("got %v, %v; want code %s", got, err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestColumnsAreIndices(t *testing.T) {
	e, in := parse(t, "(s#3 = x)")
	got, err := Expr(e, in)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Args[0]; c.Col != 2 || c.Type != types.StringType {
		t.Errorf("column %d of type %s", c.Col, c.Type)
	}
	if _, err := Expr(e, in[:2]); err == nil {
		t.Error("an attribute missing from the input must not convert")
	} else if ce := (*Error)(nil); !errors.As(err, &ce) || ce.Code != CodeUnresolved {
		t.Errorf("missing attribute: %v", err)
	}
}

func TestLiterals(t *testing.T) {
	e, in := parse(t, "(d#2 = 12345678901234567890.12)")
	if _, err := Expr(e, in); err != nil {
		t.Logf("wide literal: %v", err) // typed by the importer; must not panic
	}
	if _, err := Expr(nil, in); err == nil {
		t.Error("nil expression")
	}
}

func TestFunctionsTable(t *testing.T) {
	for _, name := range Functions() {
		if !Supported(name) {
			t.Errorf("%s listed but not supported", name)
		}
	}
	if Supported("upper") {
		t.Error("upper has no IR operation")
	}
}
