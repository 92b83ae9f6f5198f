package planbuilder

import (
	"github.com/hados-io/hados/internal/testkit"

	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func buildAll(t *testing.T, opts Options) []*plan.Plan {
	t.Helper()
	plans := make([]*plan.Plan, TPCHQueries)
	for q := 1; q <= TPCHQueries; q++ {
		p, err := TPCH(q, opts)
		if err != nil {
			t.Fatalf("q%d: %v", q, err)
		}
		plans[q-1] = p
	}
	return plans
}

func TestTPCHBuilds(t *testing.T) {
	for _, schema := range []tpchgen.Schema{tpchgen.Standard, tpchgen.SparkTest} {
		for q, p := range buildAll(t, Options{Schema: schema}) {
			if p.Name != fmt.Sprintf("tpch-q%d", q+1) || p.Root == nil {
				t.Errorf("%s q%d: name %q root %v", schema, q+1, p.Name, p.Root)
			}
		}
	}
}

func TestTPCHRejectsUnknownQuery(t *testing.T) {
	for _, n := range []int{0, -1, 23} {
		if _, err := TPCH(n, Options{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("TPCH(%d): err = %v", n, err)
		}
	}
}

// marshalIndent is the golden form of a plan: its IR JSON, indented.
func marshalIndent(t *testing.T, p *plan.Plan) []byte {
	t.Helper()
	raw, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", " "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// TestTPCHGolden compares each plan with testdata/tpch/qN.json, the plans
// the demo ships (go test -run TestTPCHGolden -update rewrites them).
func TestTPCHGolden(t *testing.T) {
	for q, p := range buildAll(t, Options{}) {
		path := filepath.Join("testdata", "tpch", fmt.Sprintf("q%d.json", q+1))
		got := marshalIndent(t, p)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("q%d differs from %s (run with -update if the change is intended)", q+1, path)
		}
	}
}

// TestTPCHRoundTrip decodes every plan's JSON (and every golden file) with
// plan.DecodeJSON, which validates it, and checks nothing is lost.
func TestTPCHRoundTrip(t *testing.T) {
	for q, p := range buildAll(t, Options{}) {
		raw, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := plan.DecodeJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("q%d: decode: %v", q+1, err)
		}
		if !reflect.DeepEqual(p, back) {
			t.Errorf("q%d: decoded plan differs from the built one", q+1)
		}
		again, _ := back.MarshalJSON()
		if !bytes.Equal(raw, again) {
			t.Errorf("q%d: JSON changes after a round trip", q+1)
		}
		golden, err := os.ReadFile(filepath.Join("testdata", "tpch", fmt.Sprintf("q%d.json", q+1)))
		if err != nil {
			t.Skipf("golden files absent: %v", err)
		}
		if _, err := plan.DecodeJSON(bytes.NewReader(golden)); err != nil {
			t.Errorf("q%d golden: %v", q+1, err)
		}
	}
}

// TestTPCHStructure checks the invariants of Spark's plans: unique
// operator ids, unique attribute ids per definition, an Output on every
// operator, the payload matching the operator, references that resolve to
// a child's output, reused exchanges and subqueries linked.
func TestTPCHStructure(t *testing.T) {
	for q, p := range buildAll(t, Options{}) {
		name := fmt.Sprintf("q%d", q+1)
		ids := map[int]*plan.Node{}
		defined := map[int64]string{}
		_ = p.Walk(func(n *plan.Node) error {
			if ids[n.ID] != nil {
				t.Errorf("%s: operator id %d used twice", name, n.ID)
			}
			ids[n.ID] = n
			if len(n.Output) == 0 {
				t.Errorf("%s: (%d) %s has no Output", name, n.ID, n.Op)
			}
			checkPayload(t, name, n)
			for _, a := range definedAttrs(n) {
				if old, ok := defined[a.ID]; ok {
					t.Errorf("%s: attribute id %d defined twice (%s, %s)", name, a.ID, old, a.Name)
				}
				defined[a.ID] = a.Name
			}
			checkRefs(t, name, n)
			return nil
		})
		_ = p.Walk(func(n *plan.Node) error {
			if n.Reused != nil {
				if target := ids[n.Reused.ReusesID]; target == nil || (target.Op != plan.OpBroadcastExchange && target.Op != plan.OpExchange) {
					t.Errorf("%s: (%d) reuses %d, not an exchange", name, n.ID, n.Reused.ReusesID)
				}
			}
			return nil
		})
		for _, s := range p.Subqueries {
			if host := ids[s.HostID]; host == nil || s.Root == nil || s.HostExpr == nil {
				t.Errorf("%s: subquery %d not linked (host %d)", name, s.ID, s.HostID)
			}
		}
	}
}

// definedAttrs are the attributes an operator creates (not passes on).
func definedAttrs(n *plan.Node) []plan.Attr {
	switch {
	case n.Op == plan.OpScan, n.Op == plan.OpReusedExchange:
		return n.Output
	case n.Agg != nil:
		out := append([]plan.Attr(nil), n.Agg.AggAttrs...)
		for _, r := range n.Agg.Results {
			if r.Kind == plan.ExprAlias || (r.Kind == plan.ExprAttr && !inAttrs(n.Input, r.ID)) {
				out = append(out, plan.Attr{Name: r.Name, ID: r.ID})
			}
		}
		return out
	case n.Project != nil:
		var out []plan.Attr
		for _, x := range n.Project.List {
			if x.Kind == plan.ExprAlias {
				out = append(out, plan.Attr{Name: x.Name, ID: x.ID})
			}
		}
		return out
	}
	return nil
}

func inAttrs(as []plan.Attr, id int64) bool {
	for _, a := range as {
		if a.ID == id {
			return true
		}
	}
	return false
}

func checkPayload(t *testing.T, name string, n *plan.Node) {
	ok := true
	switch n.Op {
	case plan.OpScan:
		ok = n.Scan != nil && len(n.Scan.ReadSchema) == len(n.Output)
	case plan.OpFilter:
		ok = n.Filter != nil && n.Filter.Condition != nil
	case plan.OpProject:
		ok = n.Project != nil
	case plan.OpHashAggregate:
		ok = n.Agg != nil
	case plan.OpBroadcastHashJoin, plan.OpShuffledHashJoin, plan.OpSortMergeJoin:
		ok = n.Join != nil && len(n.Join.LeftKeys) == len(n.Join.RightKeys) && len(n.Children) == 2
	case plan.OpExchange:
		ok = n.Exchange != nil
	case plan.OpBroadcastExchange:
		ok = n.Broadcast != nil
	case plan.OpSort:
		ok = n.Sort != nil
	case plan.OpTakeOrderedAndProject:
		ok = n.TakeOrdered != nil
	}
	if !ok {
		t.Errorf("%s: (%d) %s has a missing or malformed payload", name, n.ID, n.Op)
	}
}

// checkRefs checks every attribute an operator's expressions read is
// produced by its children (or, for final aggregates, by its own
// aggregate attributes; for scans, by itself).
func checkRefs(t *testing.T, name string, n *plan.Node) {
	var scope []plan.Attr
	for _, c := range n.Children {
		scope = append(scope, c.Output...)
	}
	if n.Op == plan.OpScan {
		scope = n.Output
	}
	if n.Agg != nil {
		// A partial aggregate's results define its buffer attributes.
		scope = append(append(scope, n.Agg.AggAttrs...), n.Output...)
	}
	n.Exprs(func(e *plan.Expr) {
		_ = e.Walk(func(x *plan.Expr) error {
			// Aggregate calls name their original input columns.
			if x.Kind == plan.ExprCall && n.Agg != nil && isAggCall(x.Name) {
				return errSkip
			}
			if x.Kind == plan.ExprAttr && !inAttrs(scope, x.ID) {
				t.Errorf("%s: (%d) %s reads %s, not in its input", name, n.ID, n.Op, x.Name)
			}
			return nil
		})
	})
}

var errSkip = fmt.Errorf("skip")

func isAggCall(name string) bool {
	name = strings.TrimPrefix(name, "partial_")
	switch name {
	case "sum", "avg", "min", "max", "count":
		return true
	}
	return false
}

// TestTPCHTyping checks every expression and attribute is typed and every
// decimal arithmetic result is what types.Arithmetic gives its operands.
func TestTPCHTyping(t *testing.T) {
	for q, p := range buildAll(t, Options{}) {
		name := fmt.Sprintf("q%d", q+1)
		check := func(where string, e *plan.Expr) {
			_ = e.Walk(func(x *plan.Expr) error {
				if !x.Type.IsKnown() {
					t.Errorf("%s %s: %s has no type", name, where, x)
				}
				switch x.Name {
				case "+", "-", "*", "/":
					if x.Kind != plan.ExprCall {
						break
					}
					want, err := types.Arithmetic(x.Name, x.Args[0].Type, x.Args[1].Type)
					if err != nil || want != x.Type {
						t.Errorf("%s %s: %s is %s, types.Arithmetic says %s (%v)", name, where, x, x.Type, want, err)
					}
					if x.Type.Kind == types.Decimal && (x.Args[0].Type.Kind != types.Decimal || x.Args[1].Type.Kind != types.Decimal) {
						t.Errorf("%s %s: %s mixes decimal with %s/%s without a cast", name, where, x, x.Args[0].Type, x.Args[1].Type)
					}
				}
				return nil
			})
		}
		_ = p.Walk(func(n *plan.Node) error {
			where := fmt.Sprintf("(%d) %s", n.ID, n.Op)
			n.Exprs(func(e *plan.Expr) { check(where, e) })
			for _, list := range [][]plan.Attr{n.Output, n.Input} {
				for _, a := range list {
					if !a.Type.IsKnown() {
						t.Errorf("%s %s: attribute %s has no type", name, where, a)
					}
				}
			}
			if n.Agg != nil {
				for _, c := range n.Agg.Functions {
					want, err := types.Aggregate(c.Func, c.Expr.Args[0].Type)
					if err != nil || want != c.Type {
						t.Errorf("%s %s: %s typed %s, want %s", name, where, c.Expr, c.Type, want)
					}
				}
			}
			return nil
		})
		for _, s := range p.Subqueries {
			check("subquery host", s.HostExpr)
		}
	}
}

func sharedDir(t *testing.T) string { return testkit.SharedDir(t, "spark-plans") }

// opCounts is the multiset of operator kinds of a plan, subqueries
// included, without the row/columnar and codegen wrappers.
func opCounts(p *plan.Plan) map[string]int {
	m := map[string]int{}
	_ = p.Walk(func(n *plan.Node) error {
		switch n.Op {
		case plan.OpColumnarToRow, plan.OpInputAdapter, plan.OpWholeStageCodegen:
		default:
			name := n.Op.String()
			if n.Op == plan.OpUnknown {
				name = n.OpName
			}
			m[name]++
		}
		return nil
	})
	return m
}

// corpusDifferences lists, per query, where the built plan deliberately
// differs from Spark's approved plan over the decimal(10,0) test schema
// (operator kind → built count minus corpus count).
var corpusDifferences = map[int]map[string]int{
	// Over decimal(10,0) Spark proves "l_discount BETWEEN 0.05 AND 0.07"
	// empty and plans an EmptyRelation; over decimal(15,2) the query reads
	// lineitem.
	6: {"EmptyRelation": -1, "Scan": 1, "Filter": 1, "Project": 1},
}

func TestTPCHResemblesSparkCorpus(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "spark-plans", "tpch")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("Spark plan corpus not found at %s (set HADOS_SHARED): %v", dir, err)
	}
	for q, p := range buildAll(t, Options{Joins: JoinsAsWritten}) {
		path := filepath.Join(dir, fmt.Sprintf("q%d.explain.txt", q+1))
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		spark, err := plan.ImportSpark(path, f)
		f.Close()
		if err != nil {
			t.Fatalf("q%d: import corpus: %v", q+1, err)
		}
		got, want := opCounts(p), opCounts(spark)
		for op, d := range corpusDifferences[q+1] {
			want[op] += d
		}
		var diffs []string
		for _, op := range unionKeys(got, want) {
			if got[op] != want[op] {
				diffs = append(diffs, fmt.Sprintf("%s: built %d, Spark %d", op, got[op], want[op]))
			}
		}
		if len(diffs) > 0 {
			t.Errorf("q%d: operator kinds differ from Spark's plan: %s", q+1, strings.Join(diffs, "; "))
		}
		if len(p.Subqueries) != countScalar(spark) {
			t.Errorf("q%d: %d subqueries, Spark has %d scalar subqueries", q+1, len(p.Subqueries), countScalar(spark))
		}
	}
}

func countScalar(p *plan.Plan) int {
	n := 0
	for _, s := range p.Subqueries {
		if s.HostExpr != nil && s.HostExpr.Name == "scalar-subquery" && s.Root != nil {
			n++
		}
	}
	return n
}

func unionKeys(a, b map[string]int) []string {
	var keys []string
	for k, v := range a {
		if v != 0 || b[k] != 0 {
			keys = append(keys, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && b[k] != 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// shape prints an operator tree with join types and build sides, without
// ColumnarToRow.
func shape(n *plan.Node) string {
	var parts []string
	for _, c := range n.Children {
		parts = append(parts, shape(c))
	}
	name := n.Op.String()
	if n.Join != nil {
		name += "/" + n.Join.Type.String() + "/" + n.Join.BuildSide
	}
	switch {
	case n.Op == plan.OpColumnarToRow:
		return strings.Join(parts, ",")
	case len(parts) == 0:
		return name
	}
	return name + "(" + strings.Join(parts, ",") + ")"
}

func postOrder(n *plan.Node, out []*plan.Node) []*plan.Node {
	for _, c := range n.Children {
		out = postOrder(c, out)
	}
	return append(out, n)
}

func allNodes(p *plan.Plan) []*plan.Node {
	out := postOrder(p.Root, nil)
	for _, s := range p.Subqueries {
		if s.Root != nil {
			out = postOrder(s.Root, out)
		}
	}
	return out
}

// outputNameDifferences are the operators (by id) whose output names
// deliberately differ from the corpus: Spark names an aggregate by its
// printed expression, which differs with the schema's literal typing
// (q11) or carries an attribute id (q18, "sum(l_quantity#14)").
var outputNameDifferences = map[int][]int{11: {34}, 18: {11, 12}}

// TestTPCHMatchesSparkTrees compares each plan with its joins as written
// (JoinsAsWritten) with Spark's approved plan node by node: the same tree (operators, join types, build sides), the
// same operator ids, whole-stage codegen stages, printed arguments
// (exchange partitioning, broadcast modes, sort orders, limits) and output
// column names. Query 6 is left out (see corpusDifferences).
func TestTPCHMatchesSparkTrees(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "spark-plans", "tpch")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("Spark plan corpus not found at %s (set HADOS_SHARED): %v", dir, err)
	}
	// The corpus was made with 5 shuffle partitions, over tables so small
	// that Spark broadcast one side of every join: the shapes are the
	// queries' joins as written (TestTPCHJoinsBySize checks the plans by
	// size against these).
	for q, p := range buildAll(t, Options{Partitions: 5, Joins: JoinsAsWritten}) {
		if corpusDifferences[q+1] != nil {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("q%d.explain.txt", q+1))
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spark, err := plan.ParseSparkText(path, string(text))
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, s := range append([]*plan.Subquery{{Root: p.Root}}, p.Subqueries...) {
			got = append(got, shape(s.Root))
		}
		for _, s := range append([]*plan.Subquery{{Root: spark.Root}}, spark.Subqueries...) {
			if s.Root != nil {
				want = append(want, shape(s.Root))
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("q%d tree:\n built %v\n Spark %v", q+1, got, want)
			continue
		}
		skip := map[int]bool{}
		for _, id := range outputNameDifferences[q+1] {
			skip[id] = true
		}
		a, b := allNodes(p), allNodes(spark)
		for i := range a {
			if a[i].ID != b[i].ID {
				t.Errorf("q%d: operator %s has id %d, Spark's %d", q+1, a[i].Op, a[i].ID, b[i].ID)
			}
			if a[i].CodegenStage != b[i].CodegenStage {
				t.Errorf("q%d (%d) %s: codegen stage %d, Spark's %d", q+1, a[i].ID, a[i].Op, a[i].CodegenStage, b[i].CodegenStage)
			}
			if got, want := printedArguments(a[i].Arguments), printedArguments(b[i].Arguments); got != want {
				t.Errorf("q%d (%d) %s arguments:\n built %s\n Spark %s", q+1, a[i].ID, a[i].Op, got, want)
			}
			if !skip[a[i].ID] && stripIDs(attrNames(a[i].Output)) != stripIDs(attrNames(b[i].Output)) {
				t.Errorf("q%d (%d) %s output:\n built %s\n Spark %s", q+1, a[i].ID, a[i].Op,
					stripIDs(attrNames(a[i].Output)), stripIDs(attrNames(b[i].Output)))
			}
		}
	}
}

// stripIDs removes the "#id" suffixes of a printed attribute list.
func stripIDs(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
			continue
		}
		out.WriteByte(s[i])
	}
	return out.String()
}

var (
	rePlanIDs     = regexp.MustCompile(`, \[(plan_id=|id=#)[0-9]+\]`)
	reDecimal     = regexp.MustCompile(`decimal\([0-9]+,[0-9]+\)`)
	reOldNullFlag = regexp.MustCompile(`\),(true|false),(true|false)\)`)
)

// printedArguments normalises an Arguments text for comparison: no
// attribute ids, no exchange plan ids (older Spark printed [id=#N]), the
// older broadcast mode's extra flag dropped, decimal types (which differ
// by schema) unparameterised.
func printedArguments(s string) string {
	s = rePlanIDs.ReplaceAllString(s, "")
	s = reOldNullFlag.ReplaceAllString(s, "),$1)")
	return reDecimal.ReplaceAllString(stripIDs(s), "decimal")
}
