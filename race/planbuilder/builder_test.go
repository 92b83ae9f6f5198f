package planbuilder

import (
	"errors"
	"strings"
	"testing"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

func TestDecLiteral(t *testing.T) {
	for _, tc := range []struct {
		in, text, typ string
	}{
		{"0.06", "0.06", "decimal(2,2)"},
		{"100.00", "100.00", "decimal(5,2)"},
		{"7.0", "7.0", "decimal(2,1)"},
		{"0.0001", "0.0001", "decimal(4,4)"},
		{"-12.5", "-12.5", "decimal(3,1)"},
		{"42", "42", "decimal(2,0)"},
		{"12345678901234567890.5", "12345678901234567890.5", "decimal(21,1)"},
	} {
		b := New()
		e := b.Dec(tc.in)
		if b.Err() != nil {
			t.Errorf("Dec(%q): %v", tc.in, b.Err())
			continue
		}
		if e.String() != tc.text || e.Type.String() != tc.typ {
			t.Errorf("Dec(%q) = %s %s, want %s %s", tc.in, e, e.Type, tc.text, tc.typ)
		}
	}
	for _, bad := range []string{"", "abc", "1e5", "1.2.3", strings.Repeat("9", 40)} {
		b := New()
		b.Dec(bad)
		if b.Err() == nil {
			t.Errorf("Dec(%q): no error", bad)
		}
	}
}

func TestDateLiterals(t *testing.T) {
	for _, tc := range []struct {
		date    string
		y, m, d int
		want    string
	}{
		{"1998-12-01", 0, 0, -90, "1998-09-02"},
		{"1994-01-01", 1, 0, 0, "1995-01-01"},
		{"1993-07-01", 0, 3, 0, "1993-10-01"},
		{"1970-01-01", 0, 0, 0, "1970-01-01"},
	} {
		b := New()
		if got := b.DateAdd(tc.date, tc.y, tc.m, tc.d).String(); got != tc.want || b.Err() != nil {
			t.Errorf("DateAdd(%s, %d, %d, %d) = %s (%v), want %s", tc.date, tc.y, tc.m, tc.d, got, b.Err(), tc.want)
		}
	}
	b := New()
	b.Date("1994-13-01")
	if b.Err() == nil || !strings.Contains(b.Err().Error(), "1994-13-01") {
		t.Errorf("bad date: err = %v", b.Err())
	}
}

func TestLikeSimplification(t *testing.T) {
	b := New()
	for pattern, want := range map[string]string{
		"PROMO%":             "StartsWith(x#1, PROMO)",
		"%BRASS":             "EndsWith(x#1, BRASS)",
		"%green%":            "Contains(x#1, green)",
		"%special%requests%": "x#1 LIKE %special%requests%",
		"a_c%":               "x#1 LIKE a_c%",
		"%":                  "x#1 LIKE %",
		"exact":              "x#1 LIKE exact",
	} {
		x := &plan.Expr{Kind: plan.ExprAttr, Name: "x", ID: 1, Type: types.StringType}
		if got := b.Like(x, pattern).String(); got != want {
			t.Errorf("Like(%q) = %s, want %s", pattern, got, want)
		}
	}
}

// filterOver builds a lineitem scan filtered by cond and returns the
// filter and scan nodes.
func filterOver(t *testing.T, cond func(b *Builder) *plan.Expr) (*plan.Node, *plan.Node) {
	t.Helper()
	b := New()
	r := b.Scan("lineitem", "l_orderkey", "l_quantity", "l_discount", "l_shipdate", "l_shipmode", "l_commitdate").Filter(cond(b))
	p, err := b.Build("t", r)
	if err != nil {
		t.Fatal(err)
	}
	return p.Root, p.Root.Children[0].Children[0]
}

func TestFilterTypingAndPushdown(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cond   func(b *Builder) *plan.Expr
		filter string
		pushed string
	}{
		{"decimal vs int literal", func(b *Builder) *plan.Expr { return b.Lt(b.Col("l_quantity"), b.Int(24)) },
			"(l_quantity#2 < 24.00)", "LessThan(l_quantity,24.00)"},
		{"flipped literal", func(b *Builder) *plan.Expr { return b.Gt(b.Dec("0.05"), b.Col("l_discount")) },
			"(0.05 > l_discount#3)", "LessThan(l_discount,0.05)"},
		{"between", func(b *Builder) *plan.Expr { return b.Between(b.Col("l_discount"), b.Dec("0.05"), b.Dec("0.07")) },
			"((l_discount#3 >= 0.05) AND (l_discount#3 <= 0.07))", "GreaterThanOrEqual(l_discount,0.05) LessThanOrEqual(l_discount,0.07)"},
		{"literal wider than column", func(b *Builder) *plan.Expr { return b.Lt(b.Col("l_discount"), b.Dec("0.065")) },
			"(cast(l_discount#3 as decimal(16,3)) < 0.065)", ""},
		{"date and not null", func(b *Builder) *plan.Expr {
			return b.And(b.IsNotNull(b.Col("l_shipdate")), b.Le(b.Col("l_shipdate"), b.Date("1998-09-02")))
		}, "(isnotnull(l_shipdate#4) AND (l_shipdate#4 <= 1998-09-02))", "IsNotNull(l_shipdate) LessThanOrEqual(l_shipdate,1998-09-02)"},
		{"in sorts pushed values", func(b *Builder) *plan.Expr { return b.In(b.Col("l_shipmode"), b.Strs("SHIP", "MAIL")...) },
			"l_shipmode#6 IN (SHIP,MAIL)", "In(l_shipmode, [MAIL,SHIP])"},
		{"column comparison is not pushed", func(b *Builder) *plan.Expr { return b.Lt(b.Col("l_commitdate"), b.Col("l_shipdate")) },
			"(l_commitdate#5 < l_shipdate#4)", ""},
		{"or and not", func(b *Builder) *plan.Expr {
			return b.Or(b.Eq(b.Col("l_shipmode"), b.Str("AIR")), b.Ne(b.Col("l_shipmode"), b.Str("RAIL")))
		}, "((l_shipmode#6 = AIR) OR NOT (l_shipmode#6 = RAIL))", "Or(EqualTo(l_shipmode,AIR),Not(EqualTo(l_shipmode,RAIL)))"},
		{"or with unpushable side", func(b *Builder) *plan.Expr {
			return b.Or(b.Eq(b.Col("l_shipmode"), b.Str("AIR")), b.Lt(b.Col("l_commitdate"), b.Col("l_shipdate")))
		}, "((l_shipmode#6 = AIR) OR (l_commitdate#5 < l_shipdate#4))", ""},
		{"string functions", func(b *Builder) *plan.Expr { return b.Like(b.Col("l_shipmode"), "%AIR") },
			"EndsWith(l_shipmode#6, AIR)", "StringEndsWith(l_shipmode,AIR)"},
		{"substring is not pushed", func(b *Builder) *plan.Expr { return b.Eq(b.Substring(b.Col("l_shipmode"), 1, 2), b.Str("AI")) },
			"(substring(l_shipmode#6, 1, 2) = AI)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			filter, scan := filterOver(t, tc.cond)
			if got := filter.Filter.Condition.String(); got != tc.filter {
				t.Errorf("condition %s, want %s", got, tc.filter)
			}
			var pushed []string
			for _, f := range scan.Scan.PushedFilters {
				pushed = append(pushed, f.String())
			}
			if got := strings.Join(pushed, " "); got != tc.pushed {
				t.Errorf("pushed %q, want %q", got, tc.pushed)
			}
		})
	}
}

func TestArithmeticTypes(t *testing.T) {
	for _, tc := range []struct {
		name string
		expr func(b *Builder) *plan.Expr
		text string
		typ  string
	}{
		{"int literal in decimal arithmetic", func(b *Builder) *plan.Expr { return b.Sub(b.Int(1), b.Col("ps_supplycost")) },
			"(1 - ps_supplycost#3)", "decimal(16,2)"},
		{"int column cast to decimal", func(b *Builder) *plan.Expr { return b.Mul(b.Col("ps_supplycost"), b.Col("ps_availqty")) },
			"(ps_supplycost#3 * cast(ps_availqty#2 as decimal(10,0)))", "decimal(26,2)"},
		{"division", func(b *Builder) *plan.Expr { return b.Div(b.Col("ps_supplycost"), b.Dec("7.0")) },
			"(ps_supplycost#3 / 7.0)", "decimal(20,6)"},
		{"integers", func(b *Builder) *plan.Expr { return b.Add(b.Col("ps_availqty"), b.Long(1)) },
			"(ps_availqty#2 + 1)", "bigint"},
		{"case widens branches", func(b *Builder) *plan.Expr {
			return b.Case(b.Gt(b.Col("ps_availqty"), b.Int(0)), b.Col("ps_supplycost"), b.Int(0))
		}, "CASE WHEN (ps_availqty#2 > 0) THEN ps_supplycost#3 ELSE 0.00 END", "decimal(15,2)"},
		{"case of literals", func(b *Builder) *plan.Expr {
			return b.Case(b.Gt(b.Col("ps_availqty"), b.Int(0)), b.Int(1), b.Long(0))
		}, "CASE WHEN (ps_availqty#2 > 0) THEN 1 ELSE 0 END", "bigint"},
		{"year", func(b *Builder) *plan.Expr { return b.Year(b.Date("1995-06-17")) }, "year(1995-06-17)", "int"},
		{"explicit cast", func(b *Builder) *plan.Expr { return b.Cast(b.Col("ps_availqty"), types.DoubleType) },
			"cast(ps_availqty#2 as double)", "double"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New()
			r := b.Scan("partsupp", "ps_partkey", "ps_availqty", "ps_supplycost").Project(b.As(tc.expr(b), "x"))
			p, err := b.Build("t", r)
			if err != nil {
				t.Fatal(err)
			}
			e := p.Root.Project.List[0].Args[0]
			if e.String() != tc.text || e.Type.String() != tc.typ {
				t.Errorf("got %s : %s, want %s : %s", e, e.Type, tc.text, tc.typ)
			}
			if p.Root.Output[0].Type != e.Type {
				t.Errorf("alias typed %s, expression %s", p.Root.Output[0].Type, e.Type)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(b *Builder) *Rel
		want  string
	}{
		{"unknown table", func(b *Builder) *Rel { return b.Scan("lineitems", "l_orderkey") }, `unknown table "lineitems"`},
		{"unknown scan column", func(b *Builder) *Rel { return b.Scan("nation", "n_name", "n_bogus") }, "no column(s) [n_bogus]"},
		{"unknown column", func(b *Builder) *Rel { return b.Scan("nation", "n_name").Keep("n_nationkey") }, `no input column "n_nationkey"`},
		{"ambiguous column", func(b *Builder) *Rel {
			n := b.Scan("nation", "n_nationkey", "n_name")
			return n.BJ(b.Scan("nation", "n_nationkey", "n_name"), "n_nationkey", "n_nationkey").Keep("n_name")
		}, `column "n_name" is ambiguous`},
		{"unnamed output", func(b *Builder) *Rel {
			return b.Scan("nation", "n_nationkey").Project(b.Add(b.Col("n_nationkey"), b.Int(1)))
		}, "needs a name"},
		{"final without partial", func(b *Builder) *Rel { return b.Scan("nation", "n_name").FinalAgg() }, "no partial aggregate"},
		{"reuse of a scan", func(b *Builder) *Rel { return b.Scan("nation", "n_name").Reuse() }, "only exchanges"},
		{"key count", func(b *Builder) *Rel {
			j := b.On("n_nationkey", "r_regionkey")
			j.RightKeys = nil
			return b.Scan("nation", "n_nationkey").BroadcastHashJoin(b.Scan("region", "r_regionkey"), j, BuildRight)
		}, "1 left keys but 0 right keys"},
		{"odd key list", func(b *Builder) *Rel {
			return b.Scan("nation", "n_nationkey").BJ(b.Scan("region", "r_regionkey"), "n_nationkey")
		}, "pairs"},
		{"untypable", func(b *Builder) *Rel {
			return b.Scan("nation", "n_name").Project(b.As(b.Add(b.Col("n_name"), b.Int(1)), "x"))
		}, "operands must be numeric"},
		{"literal of wrong type", func(b *Builder) *Rel {
			return b.Scan("nation", "n_nationkey").Filter(b.Eq(b.Col("n_nationkey"), b.Str("x")))
		}, "cannot take type bigint"},
		{"operator used twice", func(b *Builder) *Rel {
			n := b.Scan("nation", "n_nationkey")
			return n.BJ(n, "n_nationkey", "n_nationkey")
		}, "used twice"},
		{"unused subquery", func(b *Builder) *Rel {
			b.ScalarSubquery(b.Scan("region", "r_regionkey").Aggregate(nil, []AggFn{b.Max(b.Col("r_regionkey")).As("m")}))
			return b.Scan("nation", "n_nationkey")
		}, "not used by any operator"},
		{"reused exchange outside the plan", func(b *Builder) *Rel {
			return b.Scan("nation", "n_nationkey").Broadcast(b.Col("n_nationkey")).Reuse()
		}, "not in the plan"},
		{"nil root", func(b *Builder) *Rel { return nil }, "no root operator"},
		{"null project item", func(b *Builder) *Rel { return b.Scan("nation", "n_name").Project(nil) }, "null expression"},
		{"null operand", func(b *Builder) *Rel {
			return b.Scan("nation", "n_name").Filter(b.Eq(b.Col("n_name"), nil))
		}, "null expression"},
		{"null join key", func(b *Builder) *Rel {
			return b.Scan("nation", "n_nationkey").BroadcastHashJoin(b.Scan("region", "r_regionkey"),
				Join{Type: plan.JoinInner, LeftKeys: []*plan.Expr{nil}, RightKeys: b.Cols("r_regionkey")}, BuildRight)
		}, "null expression"},
		{"filter without condition", func(b *Builder) *Rel { return b.Scan("nation", "n_name").Filter(nil) }, "without a condition"},
		{"in without values", func(b *Builder) *Rel { return b.Scan("nation", "n_name").Filter(b.In(b.Col("n_name"))) }, "at least 2 arguments"},
		{"wrong arity", func(b *Builder) *Rel {
			return b.Scan("nation", "n_name").Filter(&plan.Expr{Kind: plan.ExprCall, Name: "=", Args: b.Cols("n_name")})
		}, "= takes 2 arguments, has 1"},
		{"unsupported function", func(b *Builder) *Rel {
			return b.Scan("nation", "n_name").Filter(&plan.Expr{Kind: plan.ExprCall, Name: "rlike", Args: b.Cols("n_name", "n_name")})
		}, `unsupported function "rlike"`},
		{"literal without value", func(b *Builder) *Rel {
			return b.Scan("nation", "n_name").Filter(b.Eq(b.Col("n_name"), &plan.Expr{Kind: plan.ExprLiteral}))
		}, "literal without a value"},
		{"aggregate without argument", func(b *Builder) *Rel {
			return b.Scan("nation", "n_name").Aggregate(nil, []AggFn{{Func: "sum", Name: "s"}})
		}, "needs an argument"},
		{"unknown aggregate", func(b *Builder) *Rel {
			return b.Scan("nation", "n_name").Aggregate(nil, []AggFn{{Func: "median", Arg: b.Col("n_name"), Name: "m"}})
		}, `aggregate "median"`},
		{"invalid UTF-8", func(b *Builder) *Rel {
			return b.Scan("nation", "n_name").Filter(b.Eq(b.Col("n_name"), b.Str("\xff")))
		}, "not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New()
			_, err := b.Build("t", tc.build(b))
			if err == nil || !errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrBuild mentioning %q", err, tc.want)
			}
		})
	}
}

func TestBuildTwice(t *testing.T) {
	b := New()
	r := b.Scan("region", "r_regionkey")
	if _, err := b.Build("a", r); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Build("b", r); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("second Build: err = %v", err)
	}
}

func TestJoinShapes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		join  func(b *Builder, l, r *Rel) *Rel
		shape string
		build string
	}{
		{"broadcast right", func(b *Builder, l, r *Rel) *Rel { return l.BJ(r, "n_regionkey", "r_regionkey") },
			"BroadcastHashJoin/Inner/right(Scan,BroadcastExchange(Scan))", "right"},
		{"broadcast left", func(b *Builder, l, r *Rel) *Rel {
			return l.BroadcastHashJoin(r, b.On("n_regionkey", "r_regionkey"), BuildLeft)
		}, "BroadcastHashJoin/Inner/left(BroadcastExchange(Scan),Scan)", "left"},
		{"shuffled hash", func(b *Builder, l, r *Rel) *Rel {
			return l.ShuffledHashJoin(r, b.OnType(plan.JoinLeftSemi, "n_regionkey", "r_regionkey"), BuildRight)
		}, "ShuffledHashJoin/LeftSemi/right(Exchange(Scan),Exchange(Scan))", "right"},
		{"sort merge", func(b *Builder, l, r *Rel) *Rel {
			return l.SortMergeJoin(r, b.OnType(plan.JoinLeftOuter, "n_regionkey", "r_regionkey"))
		}, "SortMergeJoin/LeftOuter/(Sort(Exchange(Scan)),Sort(Exchange(Scan)))", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New()
			j := tc.join(b, b.Scan("nation", "n_nationkey", "n_regionkey"), b.Scan("region", "r_regionkey", "r_name"))
			p, err := b.Build("t", j)
			if err != nil {
				t.Fatal(err)
			}
			if got := shape(p.Root); got != tc.shape {
				t.Errorf("shape %s, want %s", got, tc.shape)
			}
			if p.Root.Join.BuildSide != tc.build {
				t.Errorf("build side %q, want %q", p.Root.Join.BuildSide, tc.build)
			}
			wantOut := "n_nationkey, n_regionkey, r_regionkey, r_name"
			if p.Root.Join.Type == plan.JoinLeftSemi {
				wantOut = "n_nationkey, n_regionkey"
			}
			if got := stripIDs(attrNames(p.Root.Output)); got != wantOut {
				t.Errorf("output %s, want %s", got, wantOut)
			}
			for _, c := range p.Root.Children {
				if c.Op == plan.OpExchange && (c.Exchange.Kind != plan.PartHash || c.Exchange.NumPartitions != DefaultPartitions) {
					t.Errorf("exchange %v", c.Exchange)
				}
			}
		})
	}
}

func TestOptions(t *testing.T) {
	b := NewWith(Options{Partitions: 8, Database: "tpch"})
	r := b.Scan("region", "r_name", "r_regionkey").OrderBy(b.Asc(b.Col("r_name")))
	p, err := b.Build("t", r)
	if err != nil {
		t.Fatal(err)
	}
	ex := p.Root.Children[0]
	if ex.Exchange.Kind != plan.PartRange || ex.Exchange.NumPartitions != 8 {
		t.Errorf("exchange %+v", ex.Exchange)
	}
	scan := ex.Children[0].Children[0]
	if scan.Scan.Table != "tpch.region" || strings.Join(scan.Scan.RequiredColumns, ",") != "r_regionkey,r_name" {
		t.Errorf("scan %+v", scan.Scan)
	}
	if !p.Root.Sort.Global || p.Root.Sort.Orders[0].String() != "r_name#2 ASC NULLS FIRST" {
		t.Errorf("sort %+v", p.Root.Sort)
	}
}

func TestAddTable(t *testing.T) {
	b := New()
	b.AddTable("t", []plan.Attr{{Name: "a", Type: types.IntType, Nullable: true}, {Name: "s", Type: types.StringType, Nullable: true}})
	r := b.Scan("t", "a", "s").Aggregate(b.Cols("s"), []AggFn{b.Sum(b.Col("a")).As("total"), b.CountDistinct(b.Col("a")).As("n")})
	p, err := b.Build("t", r)
	if err != nil {
		t.Fatal(err)
	}
	if got := stripIDs(attrNames(p.Root.Output)); got != "s, total, n" {
		t.Errorf("output %s", got)
	}
	partial := p.Root.Children[0].Children[0]
	if got := stripIDs(attrNames(partial.Output)); got != "s, sum, count" {
		t.Errorf("partial output %s (int sum has one buffer)", got)
	}
	if c := p.Root.Agg.Functions[1]; !c.Distinct || c.Expr.String() != "count(distinct a#1)" || c.Mode != plan.AggFinal {
		t.Errorf("count distinct %+v %s", c, c.Expr)
	}
}
