package planbuilder

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hados-io/hados/race/plan"
)

// FuzzBuilderInputs feeds arbitrary text to the builder's text inputs
// (decimal and date literals, LIKE patterns, column and table names,
// string literals): building must return a plan or an ErrBuild error,
// never panic, and a built plan must survive a JSON round trip.
func FuzzBuilderInputs(f *testing.F) {
	f.Add("0.06", "1994-01-01", "%green%", "l_discount", "lineitem", "BUILDING")
	f.Add("100.00", "1998-12-01", "PROMO%", "l_quantity", "lineitem", "")
	f.Add("-7", "2024-02-29", "%Customer%Complaints%", "l_shipmode", "orders", "a\"b\\c")
	f.Add("1e9", "1994-13-40", "%", "", "", "\x00\xff")
	f.Add("99999999999999999999999999999999999999.9", "0000-01-01", "_%_", "nope", "lineitem", "x")
	f.Fuzz(func(t *testing.T, dec, date, pattern, col, table, str string) {
		b := New()
		r := b.Scan(table, "l_discount", "l_shipdate", "l_shipmode").Filter(b.And(
			b.Ge(b.Col("l_discount"), b.Dec(dec)),
			b.Lt(b.Col("l_shipdate"), b.Date(date)),
			b.Like(b.Col("l_shipmode"), pattern),
			b.Not(b.Eq(b.Col("l_shipmode"), b.Str(str))),
			b.IsNotNull(b.Col(col)),
		))
		p, err := b.Build("fuzz", r.Aggregate(nil, []AggFn{b.Sum(b.Col("l_discount")).As("s")}))
		if err != nil {
			if !errors.Is(err, ErrBuild) {
				t.Fatalf("error %v does not wrap ErrBuild", err)
			}
			return
		}
		raw, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := plan.DecodeJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		again, _ := back.MarshalJSON()
		if !bytes.Equal(raw, again) {
			t.Fatal("JSON changes after a round trip")
		}
	})
}

// exprFromBytes decodes data into an arbitrary expression tree: any call
// name the builder knows (and one it does not) with any number of
// arguments, columns that may not exist, literals of every kind, nulls.
func exprFromBytes(b *Builder, data []byte, depth int) (*plan.Expr, []byte) {
	if len(data) == 0 || depth > 6 {
		return b.Col("p_size"), data
	}
	op, data := data[0], data[1:]
	names := []string{"=", "<", "+", "-", "*", "/", "AND", "OR", "NOT", "isnotnull", "IN", "CASE", "substring", "year", "cast", "LIKE", "rlike"}
	switch op % 12 {
	case 0:
		return b.Col([]string{"p_size", "p_retailprice", "p_name", "p_partkey", "missing"}[int(op/12)%5]), data
	case 1:
		return b.Int(int32(op)), data
	case 2:
		return b.Dec([]string{"0.06", "100.00", "7", "-1.5"}[int(op/12)%4]), data
	case 3:
		return b.Str(string(rune('a' + op%26))), data
	case 4:
		return b.Date("1995-01-01"), data
	case 5:
		return nil, data
	case 6:
		x, rest := exprFromBytes(b, data, depth+1)
		return b.As(x, "a"), rest
	default:
		name := names[int(op)%len(names)]
		n := 0
		if len(data) > 0 {
			n, data = int(data[0]%5), data[1:]
		}
		e := &plan.Expr{Kind: plan.ExprCall, Name: name}
		if name == "cast" {
			e.Type = b.Dec("1.0").Type
		}
		for i := 0; i < n; i++ {
			var x *plan.Expr
			x, data = exprFromBytes(b, data, depth+1)
			e.Args = append(e.Args, x)
		}
		return e, data
	}
}

// FuzzExpressionTrees builds filters, projections and aggregates over
// arbitrary expression trees: every outcome is a plan or an ErrBuild
// error, never a panic.
func FuzzExpressionTrees(f *testing.F) {
	for _, seed := range [][]byte{{}, {7, 2, 0, 1}, {11, 2, 12, 2}, {5}, {9, 4, 0, 0, 0, 0}, {6, 13, 2, 0, 14}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := New()
		cond, rest := exprFromBytes(b, data, 0)
		val, _ := exprFromBytes(b, rest, 0)
		r := b.Scan("part", "p_partkey", "p_name", "p_size", "p_retailprice").
			Filter(cond).
			Project(b.As(val, "v"), b.Col("p_partkey")).
			Aggregate(b.Cols("p_partkey"), []AggFn{b.Max(b.Col("v")).As("m")})
		if _, err := b.Build("fuzz", r); err != nil && !errors.Is(err, ErrBuild) {
			t.Fatalf("error %v does not wrap ErrBuild", err)
		}
	})
}
