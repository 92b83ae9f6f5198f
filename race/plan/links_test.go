package plan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/operators/types"
)

func importCorpusFile(t *testing.T, rel string) *Plan {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedDir(t), "spark-plans", rel))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseSparkText(rel, string(data))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBroadcastNullAware(t *testing.T) {
	for _, c := range []struct {
		mode string
		want bool
	}{
		{"HashedRelationBroadcastMode(List(input[0, bigint, true]),true)", true},
		{"HashedRelationBroadcastMode(List(input[0, bigint, false]),false)", false},
		{"HashedRelationBroadcastMode(List(input[0, int, true], input[1, int, true]))", false},
		{"IdentityBroadcastMode", false},
		{"HashedRelationBroadcastMode(true", false},
		{"", false},
	} {
		if got := broadcastNullAware(c.mode); got != c.want {
			t.Errorf("%q: %v, want %v", c.mode, got, c.want)
		}
	}
}

// TestNullAwareAntiJoinQ16: TPC-H Q16's NOT IN is a null-aware anti join,
// carried through JSON; its other join is not.
func TestNullAwareAntiJoinQ16(t *testing.T) {
	p := importCorpusFile(t, "tpch/q16.explain.txt")
	anti, inner := p.Node(9), p.Node(14)
	if anti == nil || anti.Join == nil || anti.Join.Type != JoinLeftAnti || !anti.Join.NullAwareAnti {
		t.Fatalf("join (9): %+v", anti.Join)
	}
	if inner.Join.NullAwareAnti || !p.Node(8).Broadcast.NullAware || p.Node(13).Broadcast.NullAware {
		t.Errorf("inner join or broadcasts mis-marked")
	}
	q := roundTripPlan(t, p)
	if !q.Node(9).Join.NullAwareAnti || !q.Node(8).Broadcast.NullAware {
		t.Errorf("the flags do not survive JSON")
	}
	var n int
	for _, f := range corpusFiles(t) {
		data, _ := os.ReadFile(f)
		cp, err := ParseSparkText(f, string(data))
		if err != nil {
			t.Fatal(err)
		}
		_ = cp.Walk(func(nd *Node) error {
			if nd.Join != nil && nd.Join.NullAwareAnti {
				n++
			}
			return nil
		})
	}
	t.Logf("%d null-aware anti joins in the corpus", n)
}

func roundTripPlan(t *testing.T, p *Plan) *Plan {
	t.Helper()
	b, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	q, err := DecodeJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestSubqueryLinksCorpus: every scalar-subquery, reused scalar subquery
// and dynamic-pruning expression of every corpus plan resolves to a block
// with a plan whose first output has the expression's type.
func TestSubqueryLinksCorpus(t *testing.T) {
	kinds := map[string]int{}
	for _, f := range corpusFiles(t) {
		data, _ := os.ReadFile(f)
		p, err := ParseSparkText(filepath.Base(f), string(data))
		if err != nil {
			t.Fatal(err)
		}
		_ = p.Walk(func(n *Node) error {
			n.Exprs(func(e *Expr) {
				_ = e.Walk(func(x *Expr) error {
					switch x.Name {
					case "scalar-subquery", "reused-scalar-subquery", "dynamicpruning":
					default:
						return nil
					}
					kinds[x.Name]++
					s := p.SubqueryFor(x)
					switch {
					case s == nil || s.Root == nil:
						t.Errorf("%s (%d): %s#%d has no subquery plan", p.Name, n.ID, x.Name, x.ID)
					case x.Name != "dynamicpruning" && len(s.Root.Output) > 0 && x.Type.IsKnown() &&
						x.Type != s.Root.Output[0].Type && x.Type.Kind != types.Unsupported:
						t.Errorf("%s (%d): %s typed %v, its plan outputs %v", p.Name, n.ID, x, x.Type, s.Root.Output[0].Type)
					}
					return nil
				})
			})
			return nil
		})
		for _, s := range p.Subqueries {
			if s.Kind == "" {
				t.Errorf("%s: subquery %d: unrecognised host %s", p.Name, s.ID, s.HostExpr)
			}
			if s.Root == nil && s.Reuses == 0 {
				t.Errorf("%s: subquery %d prints no plan and reuses none", p.Name, s.ID)
			}
		}
	}
	t.Logf("linked %v", kinds)
	if kinds["reused-scalar-subquery"] == 0 || kinds["scalar-subquery"] == 0 {
		t.Errorf("corpus lacks subquery kinds: %v", kinds)
	}
}

func TestSubqueryLinksQ9(t *testing.T) {
	p := importCorpusFile(t, "tpcds/q9.explain.txt")
	s2 := p.Subqueries[1]
	if s2.Kind != SubqueryScalar || s2.ExprID != 2 || s2.PlanID != 3 || s2.Root != nil || s2.Reuses != 1 {
		t.Fatalf("Subquery:2 = %+v", s2)
	}
	if got := len(p.ScalarSubqueries()); got != 5 {
		t.Errorf("%d scalar subqueries with plans, want 5", got)
	}
	q := roundTripPlan(t, p)
	if q.Subqueries[1].Reuses != 1 || q.SubqueryFor(&Expr{Kind: ExprCall, Name: "reused-scalar-subquery", ID: 2}) != q.Subqueries[0] {
		t.Errorf("links do not survive JSON")
	}
	if p.SubqueryFor(&Expr{Kind: ExprCall, Name: "scalar-subquery", ID: 999}) != nil || p.SubqueryFor(AttrRef(Attr{Name: "x", ID: 2})) != nil {
		t.Errorf("SubqueryFor resolves what it should not")
	}
}

func TestDecodeJSONSubqueryLinks(t *testing.T) {
	p := importCorpusFile(t, "tpcds/q9.explain.txt")
	b, _ := p.MarshalJSON()
	// A document written before the links existed is linked on decode.
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range doc["subqueries"].([]any) {
		for _, k := range []string{"kind", "exprId", "planId", "reuses"} {
			delete(s.(map[string]any), k)
		}
	}
	unlinked, _ := json.Marshal(doc)
	q, err := DecodeJSON(bytes.NewReader(unlinked))
	if err != nil {
		t.Fatal(err)
	}
	if s := q.Subqueries[1]; s.Kind != SubqueryScalar || s.Reuses != 1 {
		t.Errorf("unlinked document not linked on decode: %+v", s)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"reuses":1,`, `"reuses":4,`, "reuses block 4"},
		{`"kind":"scalar"`, `"kind":"vector"`, "unknown subquery kind"},
	} {
		bad := strings.Replace(string(b), c.from, c.to, 1)
		if _, err := DecodeJSON(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s→%s: %v", c.from, c.to, err)
		}
	}
}

const partitionedPlan = `== Physical Plan ==
* ColumnarToRow (2)
+- Scan parquet db.events (1)


(1) Scan parquet db.events
Output [4]: [id#1, day#2, region#3, year#4]
Batched: true
Location: InMemoryFileIndex []
PartitionFilters: [isnotnull(day#2), (day#2 >= 2020-01-01), region#3 IN (eu,us), (year#4 > 2019)]
ReadSchema: struct<id:bigint>

(2) ColumnarToRow [codegen id : 1]
Input [4]: [id#1, day#2, region#3, year#4]
`

// TestPartitionColumnTyping: partition columns outside ReadSchema are
// typed by the catalog first, then by their partition filters' literals.
func TestPartitionColumnTyping(t *testing.T) {
	types4 := func(o ImportOptions) []types.DataType {
		p, err := ImportSparkWith("events", strings.NewReader(partitionedPlan), o)
		if err != nil {
			t.Fatal(err)
		}
		var out []types.DataType
		for _, a := range p.Root.Output {
			out = append(out, a.Type)
		}
		return out
	}
	got := types4(ImportOptions{})
	want := []types.DataType{types.LongType, types.DateType, types.StringType, types.IntType}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("from literals: column %d is %v, want %v", i, got[i], want[i])
		}
	}
	cat := NewCatalog()
	cat.Add("other.events", "year", types.ShortType) // another database: not used
	cat.Add("db.events", "YEAR", types.LongType)
	if got := types4(ImportOptions{Catalog: cat}); got[3] != types.LongType {
		t.Errorf("from the catalog: year is %v, want bigint", got[3])
	}
}

func TestCatalog(t *testing.T) {
	c := NewCatalog()
	c.Add("spark_catalog.default.t", "a", types.IntType)
	c.Add("default.t", "a", types.LongType) // another copy of t: the short name conflicts
	c.Add("spark_catalog.default.t", "b", types.Unknown)
	c.Add("u", "z", types.DateType)
	for _, x := range []struct {
		table, col string
		want       types.DataType
		ok         bool
	}{
		{"spark_catalog.default.t", "a", types.IntType, true},
		{"SPARK_CATALOG.DEFAULT.T", "A", types.IntType, true},
		{"default.t", "a", types.LongType, true},
		{"t", "a", types.Unknown, false},
		{"x.t", "a", types.Unknown, false},
		{"spark_catalog.default.t", "b", types.Unknown, false},
		{"db.u", "z", types.DateType, true},
	} {
		got, ok := c.Lookup(x.table, x.col)
		if got != x.want || ok != x.ok {
			t.Errorf("Lookup(%s, %s) = %v %v, want %v %v", x.table, x.col, got, ok, x.want, x.ok)
		}
	}
	if ty, ok := c.LookupColumn("z"); !ok || ty != types.DateType {
		t.Errorf("LookupColumn(z) = %v %v", ty, ok)
	}
	if _, ok := c.LookupColumn("a"); ok {
		t.Errorf("LookupColumn(a) resolves a conflicting name")
	}
	if got := strings.Join(c.Tables(), ","); got != "t,u" {
		t.Errorf("Tables() = %s", got)
	}
	var nilCat *Catalog
	if _, ok := nilCat.Lookup("t", "a"); ok {
		t.Errorf("nil catalog resolves")
	}
}
