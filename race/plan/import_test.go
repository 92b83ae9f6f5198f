package plan

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hados-io/hados/operators/types"
)

func importFile(t *testing.T, path string) *Plan {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseSparkText(path, string(data))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func outputTypes(n *Node) map[string]types.DataType {
	m := map[string]types.DataType{}
	for _, a := range n.Output {
		m[a.String()] = a.Type
	}
	return m
}

func TestImportSmall(t *testing.T) {
	p := importFile(t, "testdata/small.explain.txt")
	if p.Version != Version || p.Root.Op != OpTakeOrderedAndProject || len(p.Subqueries) != 1 {
		t.Fatalf("plan = %+v", p)
	}
	byID := map[int]*Node{}
	var order []int
	if err := p.Walk(func(n *Node) error { byID[n.ID] = n; order = append(order, n.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(order) != 17 {
		t.Errorf("walked %v", order)
	}
	if p.Node(17) != byID[17] || p.Node(99) != nil {
		t.Error("Plan.Node lookup")
	}

	scan := byID[1]
	if scan.Scan == nil || scan.Scan.Format != "parquet" || scan.Scan.Table != "default.sales" || !scan.Scan.Batched {
		t.Errorf("scan = %+v", scan.Scan)
	}
	if got := strings.Join(scan.Scan.RequiredColumns, ","); got != "s_item,s_price,s_brand" {
		t.Errorf("required columns %s", got)
	}
	eq := scan.Scan.PushedFilters[1]
	if eq.String() != "EqualTo(s_brand,Brand#12)" || eq.Args[0].Kind != ExprAttr || eq.Args[0].ID != 3 || eq.Args[1].Type != types.StringType {
		t.Errorf("pushed filter %s = %#v", eq, eq.Args)
	}
	in := scan.Scan.PushedFilters[2]
	if in.Args[1].Args[0].Type != types.IntType {
		t.Errorf("In list typed %v", in.Args[1].Args[0].Type)
	}
	// The partition column is typed through the dynamic-pruning subquery.
	if ty := outputTypes(scan)["s_date_sk#4"]; ty != types.IntType {
		t.Errorf("partition column type %v", ty)
	}

	cond := byID[3].Filter.Condition
	want := "(((isnotnull(s_brand#3) AND (s_brand#3 = Brand#12)) AND s_item#1 IN (1,2,3)) AND NOT (s_brand#3 = MED BOX   ))"
	if cond.String() != want {
		t.Errorf("condition %s", cond)
	}
	if cond.Type != types.BooleanType {
		t.Errorf("condition type %v", cond.Type)
	}
	if byID[3].CodegenStage != 2 || !byID[3].Codegen || byID[1].Codegen {
		t.Error("codegen marks")
	}

	if ty := outputTypes(byID[4])["price#6"]; ty != types.DecimalOf(10, 4) {
		t.Errorf("price type %v", ty)
	}
	if r := byID[5].Reused; r == nil || r.ReusesID != 17 {
		t.Errorf("reused = %+v", r)
	}
	if u := byID[6]; u.Op != OpUnknown || u.OpName != "FrobnicateExec" || u.Arguments != "frobnicate(d_date_sk#7) with magic" {
		t.Errorf("unknown op = %+v", u)
	}
	if b := byID[7].Broadcast; b.Mode != "HashedRelationBroadcastMode" || b.PlanID != 2 || len(b.Keys) != 1 {
		t.Errorf("broadcast %+v", b)
	}
	j := byID[8].Join
	if j.Type != JoinInner || j.BuildSide != "right" || j.Condition.String() != "(d_year#8 > 2000)" || len(byID[8].Output) != 5 {
		t.Errorf("join %+v output %v", j, byID[8].Output)
	}

	partial := byID[10].Agg
	modes := []AggMode{AggPartial, AggPartial, AggPartial}
	for i, c := range partial.Functions {
		if c.Mode != modes[i] {
			t.Errorf("partial fn %d mode %v", i, c.Mode)
		}
	}
	wantBuf := map[string]types.DataType{
		"sum#9": types.DecimalOf(20, 4), "isEmpty#10": types.BooleanType, "sum#11": types.DoubleType,
		"count#12": types.LongType, "count#23": types.LongType,
	}
	for _, a := range partial.AggAttrs {
		if a.Type != wantBuf[a.String()] {
			t.Errorf("buffer %s type %v, want %v", a, a.Type, wantBuf[a.String()])
		}
	}
	if ty := outputTypes(byID[10])["sum#13"]; ty != types.DecimalOf(20, 4) {
		t.Errorf("partial result sum#13 %v", ty)
	}
	ex := byID[11].Exchange
	if ex.Kind != PartHash || ex.NumPartitions != 5 || ex.ShuffleOrigin != "ENSURE_REQUIREMENTS" || ex.PlanID != 3 || len(ex.Exprs) != 1 {
		t.Errorf("exchange %+v", ex)
	}
	final := byID[12].Agg
	if final.Functions[0].Mode != AggFinal || !final.Functions[2].Distinct || final.Functions[2].Func != "count" {
		t.Errorf("final fns %+v", final.Functions)
	}
	wantOut := map[string]types.DataType{
		"s_item#1": types.IntType, "total#20": types.DecimalOf(20, 4), "mean#21": types.DecimalOf(14, 8), "years#22": types.LongType,
	}
	for k, v := range outputTypes(byID[12]) {
		if wantOut[k] != v {
			t.Errorf("final output %s = %v, want %v", k, v, wantOut[k])
		}
	}
	top := p.Root.TakeOrdered
	if top.Limit != 10 || len(top.Orders) != 2 || !top.Orders[0].Desc || len(top.Projection) != 4 {
		t.Errorf("take ordered %+v", top)
	}
	sq := p.Subqueries[0]
	if sq.ID != 1 || sq.HostID != 1 || sq.HostExpr.String() != "s_date_sk#4 IN dynamicpruning#5" || sq.Root.ID != 17 {
		t.Errorf("subquery %+v", sq)
	}
	stop := errors.New("stop")
	n := 0
	if err := p.Walk(func(*Node) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Walk did not stop at the first error")
	}
}

func TestImportErrors(t *testing.T) {
	const good = "== Physical Plan ==\n* Filter (2)\n+- Scan parquet t (1)\n\n\n" +
		"(1) Scan parquet t\nOutput [1]: [a#1]\nReadSchema: struct<a:int>\n\n" +
		"(2) Filter [codegen id : 1]\nInput [1]: [a#1]\nCondition : (a#1 > 1)\n"
	if _, err := ParseSparkText("good", good); err != nil {
		t.Fatalf("good plan: %v", err)
	}
	tests := []struct {
		name, text string
		line       int
		construct  string
	}{
		{"empty", "", 0, "header"},
		{"no header", "Project (1)\n", 1, "header"},
		{"no tree", "== Physical Plan ==\n", 1, "tree"},
		{"bad root", "== Physical Plan ==\nnot an operator\n", 2, "tree"},
		{"two roots", "== Physical Plan ==\nA (1)\nB (2)\n", 3, "tree"},
		{"too deep", "== Physical Plan ==\nA (1)\n      +- B (2)\n", 3, "tree"},
		{"missing section", strings.Replace(good, "(2) Filter [codegen id : 1]\nInput [1]: [a#1]\nCondition : (a#1 > 1)\n", "", 1), 2, "tree"},
		{"count mismatch", strings.Replace(good, "Output [1]: [a#1]", "Output [2]: [a#1]", 1), 7, "Output of (1) Scan parquet"},
		{"not an attribute", strings.Replace(good, "Input [1]: [a#1]", "Input [1]: [a]", 1), 11, "Input of (2) Filter"},
		{"bad schema", strings.Replace(good, "struct<a:int>", "struct<a:wibble>", 1), 8, "ReadSchema of (1) Scan parquet"},
		{"agg attrs", strings.Replace(strings.Replace(good, "(2) Filter [codegen id : 1]", "(2) HashAggregate [codegen id : 1]", 1), "* Filter (2)", "* HashAggregate (2)", 1) +
			"Aggregate Attributes [2]: [sum#3]\n", 13, "Aggregate Attributes of (2) HashAggregate"},
		{"stray line", strings.Replace(good, "\n\n(1)", "\n\nstray text\n\n(1)", 1), 6, "plan text"},
		{"bad field", strings.Replace(good, "Batched", "x", 1) + "lowercase: x\n", 0, ""},
	}
	for _, tt := range tests {
		_, err := ParseSparkText("f.txt", tt.text)
		if tt.construct == "" {
			continue // must merely not panic
		}
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: error %v is not a *ParseError", tt.name, err)
			continue
		}
		if pe.Name != "f.txt" || pe.Line != tt.line || pe.Construct != tt.construct {
			t.Errorf("%s: got %q (line %d, construct %q), want line %d construct %q", tt.name, err, pe.Line, pe.Construct, tt.line, tt.construct)
		}
	}
}

func TestImportTolerant(t *testing.T) {
	// Unknown operators, unparsable expressions and AQE markers import.
	text := "== Physical Plan ==\nAdaptiveSparkPlan (3)\n+- == Final Plan ==\n   +- Weird thing here (2)\n      +- Scan parquet t (1)\n" +
		"+- == Initial Plan ==\n   +- Scan parquet t (1)\n\n\n" +
		"(1) Scan parquet t\nOutput [1]: [a#1]\nReadSchema: struct<a:array<int>>\n\n" +
		"(2) Weird\nInput [1]: [a#1]\nCondition : (a#1 = = ((\n\n" +
		"(3) AdaptiveSparkPlan\nOutput [1]: [a#1]\nArguments: isFinalPlan=true\n"
	p, err := ParseSparkText("aqe", text)
	if err != nil {
		t.Fatal(err)
	}
	if p.Root.Op != OpAdaptiveSparkPlan || len(p.Root.Children) != 1 {
		t.Fatalf("root %+v", p.Root)
	}
	w := p.Root.Children[0]
	if w.Op != OpUnknown || w.OpName != "Weird" || w.Header != "thing here" {
		t.Errorf("unknown node %+v", w)
	}
	if ty := w.Children[0].Output[0].Type; ty.Kind != types.Unsupported || ty.Name != "array<int>" {
		t.Errorf("array column %v", ty)
	}
}
