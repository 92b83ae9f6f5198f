package rules

import (
	"strings"
	"testing"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// emptyAgg is a global count(1) over an empty LocalTableScan of column a,
// typed when typed is true (a plan typed from a catalog).
func emptyAgg(t *testing.T, typed bool) *plan.Plan {
	t.Helper()
	cat := plan.NewCatalog()
	if typed {
		cat.Add("t", "a", types.IntType)
	}
	text := `== Physical Plan ==
* HashAggregate (2)
+- LocalTableScan <empty>, [a#1] (1)


(1) LocalTableScan
Output [1]: [a#1]
Arguments: <empty>, [a#1]

(2) HashAggregate [codegen id : 1]
Input [1]: [a#1]
Keys: []
Functions [1]: [count(1)]
Aggregate Attributes [1]: [count(1)#2]
Results [1]: [count(1)#2 AS n#3]
`
	p, err := plan.ImportSparkWith("empty", strings.NewReader(text), plan.ImportOptions{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEmptyInputVerdict: a leaf of no rows stays on the host without
// keeping the query there, and counts as neither offloaded nor fallen
// back; untyped, it is a fallback like any operator whose types are
// unknown.
func TestEmptyInputVerdict(t *testing.T) {
	r := run(t, emptyAgg(t, true), DefaultOptions())
	leaf := node(r, 1)
	if leaf == nil || leaf.Kind != KindHost || !leaf.IsEmptyInput() || leaf.Verdict != EmptyInput {
		t.Fatalf("leaf %+v: want a host leaf with verdict EmptyInput", leaf)
	}
	if c := r.Count(); c.Operators != 1 || c.OnDevice != 1 || len(r.Fallbacks()) != 0 || !r.ExecutableToday() {
		t.Errorf("counts %+v, fallbacks %v, executable today %v: want the aggregation alone, on the device", c, r.Fallbacks(), r.ExecutableToday())
	}
	var b strings.Builder
	r.WriteText(&b)
	if !strings.Contains(b.String(), "LocalTableScan <empty>, [a#1] (1) [empty input]") {
		t.Errorf("explain:\n%s", b.String())
	}
	x := r.Explain().Root
	for len(x.Children) == 1 {
		x = x.Children[0]
	}
	if x.ID != 1 || !x.EmptyInput {
		t.Errorf("explain JSON does not mark the empty input: %+v", x)
	}

	r = run(t, emptyAgg(t, false), DefaultOptions())
	if leaf := node(r, 1); leaf.IsEmptyInput() || leaf.Verdict.Reason != ReasonDataType {
		t.Errorf("untyped leaf: verdict %v, want %s", leaf.Verdict, ReasonDataType)
	}
	if r.Offloaded() {
		t.Error("a plan with an untyped leaf is offloaded")
	}
}
