package rules

import (
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/convert"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/planbuilder"
)

func small(t *testing.T) *plan.Plan {
	t.Helper()
	b, err := os.ReadFile("testdata/small.explain.txt")
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.ParseSparkText("small", string(b))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, p *plan.Plan, o Options) *Result {
	t.Helper()
	r, err := Run(p, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func node(r *Result, id int) *Node {
	var found *Node
	r.Walk(func(n *Node) {
		if n.Spark != nil && n.Spark.ID == id && found == nil {
			found = n
		}
	})
	return found
}

const stage = `== Physical Plan ==
* Filter (3)
+- * ColumnarToRow (2)
   +- Scan parquet default.t (1)


(1) Scan parquet default.t
Output [2]: [a#1, b#2]
Batched: true
ReadSchema: struct<a:int,b:string>

(2) ColumnarToRow [codegen id : 1]
Input [2]: [a#1, b#2]

(3) Filter [codegen id : 1]
Input [2]: [a#1, b#2]
Condition : (isnotnull(a#1) AND (a#1 > 5))
`

func TestValidateVerdicts(t *testing.T) {
	opts := func(f func(*Options)) Options {
		o := DefaultOptions()
		if f != nil {
			f(&o)
		}
		return o
	}
	tests := []struct {
		name   string
		opts   Options
		id     int
		reason Reason // "" means supported
	}{
		{"unknown operator", opts(nil), 6, ReasonOperator},
		{"filter", opts(nil), 3, ""},
		{"project with decimal arithmetic", opts(nil), 4, ""},
		{"partial aggregate", opts(nil), 10, ""},
		{"final aggregate with distinct rewritten", opts(nil), 12, ""},
		{"join condition", opts(nil), 8, ""},
		{"reused exchange follows its target", opts(nil), 5, ""},
		{"disabled expression", opts(func(o *Options) { o.DisabledExpressions = map[string]bool{"isnotnull": true} }), 3, ReasonConfig},
		{"disabled aggregate", opts(func(o *Options) { o.DisabledExpressions = map[string]bool{"avg": true} }), 10, ReasonConfig},
		{"ANSI arithmetic", opts(func(o *Options) { o.ANSI = true }), 4, ReasonANSI},
		{"ANSI leaves comparisons", opts(func(o *Options) { o.ANSI = true }), 3, ""},
		{"hados disabled", opts(func(o *Options) { o.Enabled = false }), 3, ReasonConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Plan: small(t), Options: tc.opts}
			if err := validate(r); err != nil {
				t.Fatal(err)
			}
			n := node(r, tc.id)
			if n == nil {
				t.Fatalf("no node %d", tc.id)
			}
			if tc.reason == "" && !n.Support.OK || tc.reason != "" && n.Support.Reason != tc.reason {
				t.Errorf("(%d) %s: got %v, want %q", tc.id, n.Spark.OpName, n.Support, tc.reason)
			}
		})
	}
}

func TestConvertPayload(t *testing.T) {
	r := run(t, small(t), func() Options { o := DefaultOptions(); o.Whitelist = []string{"FrobnicateExec"}; return o }())
	f := node(r, 3)
	if f.Kind != DpuFilter || f.Device == nil || f.Device.Filter == nil {
		t.Fatalf("filter: %v %+v", f.Kind, f.Device)
	}
	if got := f.Device.Filter.String(); !strings.Contains(got, "s_brand") {
		t.Errorf("filter condition %s", got)
	}
	a := node(r, 12)
	if a.Kind != DpuHashAggregate || len(a.Device.Calls) != 3 || len(a.Device.Results) != 4 {
		t.Fatalf("final aggregate: %v %+v", a.Kind, a.Device)
	}
	// merge buffers: sum → sum,isEmpty; avg → sum,count; count → count
	if n := len(a.Device.Calls[0].Args) + len(a.Device.Calls[1].Args) + len(a.Device.Calls[2].Args); n != 5 {
		t.Errorf("merge buffer columns %d, want 5", n)
	}
	if node(r, 11).Planned || node(r, 3).Planned {
		t.Error("planned marks: exchange and filter execute today")
	}
}

func TestAllOrNothing(t *testing.T) {
	r := run(t, small(t), DefaultOptions())
	if r.Offloaded() {
		t.Fatal("an unknown operator must keep the query on the host")
	}
	if n := node(r, 3); n.Verdict.Reason != ReasonWholeQuery || !strings.Contains(n.Verdict.Detail, "(6)") {
		t.Errorf("filter verdict %v", n.Verdict)
	}
	o := DefaultOptions()
	o.Whitelist = []string{"FrobnicateExec"}
	r = run(t, small(t), o)
	if !r.Offloaded() || r.ExecutableToday() {
		t.Fatalf("whitelisted: offloaded %v, today %v", r.Offloaded(), r.ExecutableToday())
	}
	fb := r.Fallbacks()
	if len(fb) != 1 || fb[0].ID != 6 {
		t.Errorf("fallbacks %+v", fb)
	}
}

func TestWholePlanDecidesStage(t *testing.T) {
	st, err := plan.ParseSparkText("stage", stage)
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, st, DefaultOptions())
	if !r.Offloaded() || !r.ExecutableToday() {
		t.Fatalf("stage alone: offloaded %v, today %v", r.Offloaded(), r.ExecutableToday())
	}
	o := DefaultOptions()
	o.WholePlan = small(t)
	if r := run(t, st, o); r.Offloaded() {
		t.Error("the stage of a query that falls back must stay on the host")
	}
}

func TestTransitions(t *testing.T) {
	o := DefaultOptions()
	o.Whitelist = []string{"FrobnicateExec"}
	r := run(t, small(t), o)
	var b strings.Builder
	r.WriteText(&b)
	text := b.String()
	for _, want := range []string{
		"ColumnarToRow\n+- DpuTopN (13)", // device output to the host root
		"RowToColumnar\n",                // host Frobnicate feeds a device exchange
		"+- FrobnicateExec (6) [fallback: unsupported-operator]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explain lacks %q:\n%s", want, text)
		}
	}
	// Spark's ColumnarToRow above the DpuScan is gone.
	if n := node(r, 2); n != nil {
		t.Errorf("Spark's ColumnarToRow (2) is still in the tree")
	}
	// All on the host: Spark's own ColumnarToRow stays, no transitions.
	r = run(t, small(t), DefaultOptions())
	if node(r, 2) == nil {
		t.Error("host plan lost Spark's ColumnarToRow")
	}
	r.Walk(func(n *Node) {
		if n.Kind.IsTransition() {
			t.Errorf("host plan has a %s", n.Kind)
		}
	})
}

func TestFuse(t *testing.T) {
	o := DefaultOptions()
	o.Whitelist = []string{"FrobnicateExec"}
	r := run(t, small(t), o)
	var ids [][]int
	for _, p := range r.Pipelines {
		ids = append(ids, p.IDs())
	}
	want := [][]int{{12}, {9, 10}, {1, 3, 4}, {14, 16}}
	if len(ids) != len(want) {
		t.Fatalf("pipelines %v, want %v", ids, want)
	}
	for i := range want {
		if len(ids[i]) != len(want[i]) {
			t.Fatalf("pipelines %v, want %v", ids, want)
		}
		for j := range want[i] {
			if ids[i][j] != want[i][j] {
				t.Fatalf("pipelines %v, want %v", ids, want)
			}
		}
	}
}

func TestCostStrategy(t *testing.T) {
	st, err := plan.ParseSparkText("stage", stage)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Strategy = Cost
	if r := run(t, st, o); !r.Offloaded() {
		t.Error("a fast device should keep the filter")
	}
	o.Cost.DeviceBytesPerSecond = o.Cost.HostBytesPerSecond / 2
	r := run(t, st, o)
	if r.Offloaded() {
		t.Fatal("a slow device should not win")
	}
	if v := node(r, 3).Verdict; v.Reason != ReasonCost {
		t.Errorf("verdict %v", v)
	}
	// Cost keeps the supported part of a plan with an unsupported operator.
	o = DefaultOptions()
	o.Strategy = Cost
	if r := run(t, small(t), o); !r.Offloaded() {
		t.Error("cost strategy should offload the supported regions")
	}
}

func TestSanity(t *testing.T) {
	st, err := plan.ParseSparkText("stage", stage)
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, st, DefaultOptions())
	// Break the tree: a device filter reading host rows directly.
	filter := r.Root.Children[0]
	filter.Children[0].Kind = KindHost
	if err := sanity(r); !errors.Is(err, ErrSanity) || !strings.Contains(err.Error(), "without a transition") {
		t.Errorf("host child of a device node: %v", err)
	}
	r = run(t, st, DefaultOptions())
	r.Root = &Node{Kind: RowToColumnar, Children: []*Node{r.Root}}
	if err := sanity(r); !errors.Is(err, ErrSanity) {
		t.Errorf("stacked transitions: %v", err)
	}
}

func TestStats(t *testing.T) {
	var s Stats
	o := DefaultOptions()
	o.Whitelist = []string{"FrobnicateExec"}
	s.Record(run(t, small(t), o))
	s.Record(run(t, small(t), DefaultOptions()))
	got := map[Decision]uint64{}
	for _, d := range s.Snapshot() {
		got[d.Decision] = d.Count
	}
	if got[Decision{"fallback", "Unknown", ReasonOperator}] != 2 {
		t.Errorf("unknown operator fallbacks: %v", got)
	}
	if got[Decision{"offloaded", "Filter", ""}] != 2 || got[Decision{"fallback", "Filter", ReasonWholeQuery}] != 2 {
		t.Errorf("filter decisions: %v", got)
	}
}

func TestExplainGoldenSmall(t *testing.T) {
	o := DefaultOptions()
	o.Whitelist = []string{"FrobnicateExec"}
	r := run(t, small(t), o)
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "small.golden.txt", b.String())
	j, err := json.MarshalIndent(r.Explain(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "small.golden.json", string(j)+"\n")
}

func TestRulesListed(t *testing.T) {
	var names []string
	for _, r := range Rules() {
		if r.Why == "" {
			t.Errorf("rule %s does not say why it sits there", r.Name)
		}
		names = append(names, r.Name)
	}
	if got := strings.Join(names, ","); got != "validate,convert,transitions,strategy,fuse,sanity" {
		t.Errorf("rules %s", got)
	}
	var seen []string
	if _, err := Run(small(t), DefaultOptions(), func(rule string, _ *Result) { seen = append(seen, rule) }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 6 {
		t.Errorf("after-each-rule saw %v", seen)
	}
}

// TestPayloads checks the converted payloads of the operators between
// pipelines on the builder's TPC-H plans: a global sort over a range
// exchange (Q1), a broadcast join and a TopN (Q3), a ReusedExchange (Q7)
// and a scalar subquery, which validates with a typed null and binds its
// value (Q22). The plans are the corpus shapes (JoinsAsWritten), whose
// operator ids the test names.
func TestPayloads(t *testing.T) {
	q := func(n int) *Result {
		p, err := planbuilder.TPCH(n, planbuilder.Options{Joins: planbuilder.JoinsAsWritten})
		if err != nil {
			t.Fatal(err)
		}
		return run(t, p, DefaultOptions())
	}
	r := q(1)
	if s := node(r, 9); s.Kind != DpuSort || !s.Device.Global || len(s.Device.Orders) != 2 {
		t.Fatalf("Q1 sort: %v %+v", s.Kind, s.Device)
	}
	if x := node(r, 8).Device.Partitioning; x == nil || x.Kind != plan.PartRange || x.N != 200 || len(x.Orders) != 2 {
		t.Fatalf("Q1 range exchange: %+v", x)
	}
	if x := node(r, 6).Device.Partitioning; x == nil || x.Kind != plan.PartHash || len(x.Keys) != 2 {
		t.Fatalf("Q1 hash exchange: %+v", x)
	}
	r = q(3)
	if j := node(r, 9).Device.Join; j == nil || j.Type != plan.JoinInner || j.Build != BuildRight || len(j.LeftKeys) != 1 || len(j.RightKeys) != 1 {
		t.Fatalf("Q3 join: %+v", j)
	}
	if tn := node(r, 21).Device; tn.Limit != 10 || len(tn.Orders) != 2 || len(tn.Project) != 4 {
		t.Fatalf("Q3 TopN: %+v", tn)
	}
	r = q(7)
	if re := node(r, 28); re.Kind != DpuReusedExchange || re.Device == nil || re.Device.Reuses != node(r, 25) {
		t.Fatalf("Q7 reused exchange: %+v", re.Device)
	}
	r = q(22)
	f := node(r, 3)
	if f.Kind != DpuFilter || len(f.Device.Scalars) != 1 || f.Device.Scalars[0] != 9 {
		t.Fatalf("Q22 filter: %v %+v", f.Kind, f.Device)
	}
	if _, _, err := r.ScalarSubquery(9); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Bind(f, nil); err == nil {
		t.Fatal("bind without a value")
	}
	v := expr.Literal(big.NewInt(123456789), types.DecimalOf(19, 6))
	p, err := r.Bind(f, convert.Bindings{9: v})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Filter.String(); !strings.Contains(s, "123") {
		t.Errorf("bound filter %s", s)
	}
}
