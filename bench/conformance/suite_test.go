package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/hados/hadostest"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/planbuilder"
)

// query is one query of a suite: how to get hados's plan and DuckDB's SQL.
type query struct {
	n    int
	plan func() (*plan.Plan, error)
	sql  func() (string, error)
}

// TestBuilderPlans: the 22 builder plans over the standard schema,
// executed by hados, equal DuckDB running the standard TPC-H SQL over the
// same Parquet files.
// The joins are planned by size for SF 1 (the benchmark's plans).
func TestBuilderPlans(t *testing.T) {
	runSuite(t, suiteBuilder, dataDir(t, tpchgen.Standard), builderQueries(planbuilder.Options{Schema: tpchgen.Standard}))
}

// TestBuilderPlanShapes: the same answers whatever the join strategies —
// the joins as Spark's approved plans have them (every one broadcast),
// every join planned by size shuffled (threshold below every side), and
// the smaller side of every join broadcast (no threshold).
func TestBuilderPlanShapes(t *testing.T) {
	dir := dataDir(t, tpchgen.Standard)
	for _, c := range []struct {
		name string
		opts planbuilder.Options
	}{
		{"as-written", planbuilder.Options{Schema: tpchgen.Standard, Joins: planbuilder.JoinsAsWritten}},
		{"shuffled", planbuilder.Options{Schema: tpchgen.Standard, BroadcastThreshold: -1}},
		{"broadcast", planbuilder.Options{Schema: tpchgen.Standard, BroadcastThreshold: 1 << 40}},
	} {
		t.Run(c.name, func(t *testing.T) { runSuite(t, suiteBuilder, dir, builderQueries(c.opts)) })
	}
}

func builderQueries(opts planbuilder.Options) []query {
	var qs []query
	for n := 1; n <= planbuilder.TPCHQueries; n++ {
		qs = append(qs, query{
			n:    n,
			plan: func() (*plan.Plan, error) { return planbuilder.TPCH(n, opts) },
			sql:  func() (string, error) { return duckdbh.TPCHQuery(n), nil },
		})
	}
	return qs
}

// TestSparkPlans: Spark's own 22 TPC-H plans, imported and converted,
// executed over data of Spark's test schema, equal DuckDB running Spark's
// SQL text over the same files.
func TestSparkPlans(t *testing.T) {
	corpus := filepath.Join(sharedDir(t, filepath.Join("spark-plans", "tpch")), "spark-plans", "tpch")
	dir := dataDir(t, tpchgen.SparkTest)
	// Spark typed every column from its catalog; the text leaves some
	// untyped (Q6's EmptyRelation), which the warehouse's files type.
	cat, err := exec.WarehouseCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	var qs []query
	for n := 1; n <= 22; n++ {
		qs = append(qs, query{
			n: n,
			plan: func() (*plan.Plan, error) {
				path := filepath.Join(corpus, fmt.Sprintf("q%d.explain.txt", n))
				f, err := os.Open(path)
				if err != nil {
					return nil, err
				}
				defer f.Close()
				return plan.ImportSparkWith(path, f, plan.ImportOptions{Catalog: cat})
			},
			sql: func() (string, error) { return sparkSQL(filepath.Join(corpus, fmt.Sprintf("q%d.sql", n)), n) },
		})
	}
	runSuite(t, suiteSpark, dir, qs)
}

// runSuite runs each query through hados and DuckDB over dir and compares.
func runSuite(t *testing.T, suite, dir string, qs []query) {
	db := openDuckDB(t, dir)
	rt := hadostest.OpenDevices(t, suiteDevices)
	for _, q := range qs {
		t.Run(fmt.Sprintf("q%d", q.n), func(t *testing.T) {
			gap, known := knownGaps[gapKey{suite, q.n}]
			want, err := reference(t.Context(), db, q)
			if err != nil {
				t.Fatalf("DuckDB: %v", err)
			}
			p, err := q.plan()
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			// Even a query hados cannot run yet checks the plan's shape.
			if p.Root == nil || len(p.Root.Output) != len(want.Names) {
				t.Fatalf("the plan's output does not have DuckDB's %d columns (%v)", len(want.Names), want.Names)
			}
			got, err := runHados(t.Context(), rt, dir, p)
			switch {
			case err != nil && known && !gap.wrong && strings.Contains(err.Error(), gap.want):
				t.Logf("known gap: %s: %v", gap.reason, err)
				return
			case err != nil && known:
				t.Fatalf("hados cannot run it, but not for the known reason (%s; want an error containing %q): update knownGaps: %v",
					gap.reason, gap.want, err)
			case err != nil:
				t.Fatalf("hados cannot run it: %v", err)
			}
			order, err := TPCHOrder(q.n)
			if err != nil {
				t.Fatal(err)
			}
			if err := Compare(got, want, order); err != nil {
				if known && gap.wrong {
					t.Logf("known wrong answer (%s): %v", gap.reason, err)
					return
				}
				t.Fatalf("q%d: %v", q.n, err)
			}
			if known {
				t.Errorf("q%d now runs and matches DuckDB: remove it from knownGaps (%q)", q.n, gap.reason)
			}
		})
	}
}

func reference(ctx context.Context, db *duckdbh.DB, q query) (*Table, error) {
	sql, err := q.sql()
	if err != nil {
		return nil, err
	}
	return QueryDuckDB(ctx, db, sql)
}

// planParameters maps, per query, a substitution parameter of Spark's SQL
// text to the value the corpus's plan was made with: the corpus copied
// plans and texts from different Spark versions, whose TPC-H parameters
// differ for these three queries (compare the plans' literals). The
// reference must answer the plan's question.
var planParameters = map[int][]string{
	16: {"'Brand#45'", "'Brand#9'"},
	17: {"'Brand#23'", "'Brand#7'"},
	19: {"'Brand#12'", "'Brand#11'", "'Brand#23'", "'Brand#12'", "'Brand#34'", "'Brand#13'"},
}

// sparkSQL reads Spark's text of query q for DuckDB, with the plan's
// parameters (planParameters); a parameter missing from the text is an
// error, so the table cannot go stale.
func sparkSQL(path string, q int) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	text, subs := string(b), planParameters[q]
	for i := 0; i < len(subs); i += 2 {
		if !strings.Contains(text, subs[i]) {
			return "", fmt.Errorf("%s: parameter %s not found (planParameters is stale)", path, subs[i])
		}
	}
	// one pass: Brand#12 → Brand#11 must not then become Brand#11 twice
	return strings.NewReplacer(subs...).Replace(text), nil
}
