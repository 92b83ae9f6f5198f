package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/bench/tpchdata"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// sf is the suites' scale factor: small enough for `make test` on two
// shared cores, large enough that every query returns rows.
const sf = 0.01

// suiteDevices is the software DPU the suites run on.
const suiteDevices = "soft:memory=512MiB,cores=2"

// repoRoot is the directory holding the main module's go.mod: the bench
// module's parent.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break // the bench module's root
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	return filepath.Dir(dir)
}

// sharedDir locates ../shared beside the repository ($HADOS_SHARED
// overrides) and skips the test, saying why, when sub is absent there.
func sharedDir(t testing.TB, sub string) string {
	t.Helper()
	shared := os.Getenv("HADOS_SHARED")
	if shared == "" {
		shared = filepath.Join(repoRoot(t), "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(shared, sub)); err != nil {
		t.Skipf("Spark's plans are not at %s (set HADOS_SHARED to the shared folder): %v", filepath.Join(shared, sub), err)
	}
	return shared
}

// warehouses caches one generated data set per schema for the process.
var warehouses sync.Map // tpchgen.Schema → *warehouse

type warehouse struct {
	once sync.Once
	dir  string
	err  error
}

// dataDir returns a directory holding TPC-H at sf with schema: cached
// under the repository's build/conformance (git-ignored; tpchdata's marker
// makes a stale cache an error rather than a silent reuse), or under
// $HADOS_CONFORMANCE_DATA when set.
func dataDir(t testing.TB, schema tpchgen.Schema) string {
	t.Helper()
	v, _ := warehouses.LoadOrStore(schema, &warehouse{})
	w := v.(*warehouse)
	w.once.Do(func() {
		base := os.Getenv("HADOS_CONFORMANCE_DATA")
		if base == "" {
			base = filepath.Join(repoRoot(t), "build", "conformance")
		}
		w.dir = filepath.Join(base, fmt.Sprintf("tpch-sf%g-%s", sf, schema))
		_, w.err = tpchdata.Ensure(context.Background(), w.dir, tpchdata.Spec{SF: sf, Schema: schema}, nil)
	})
	if w.err != nil {
		t.Fatalf("TPC-H SF %g (%s schema): %v", sf, schema, w.err)
	}
	return w.dir
}

// openDuckDB opens DuckDB with views over dir's Parquet files, closed at
// the end of the test.
func openDuckDB(t testing.TB, dir string) *duckdbh.DB {
	t.Helper()
	db, err := duckdbh.Open(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.AttachParquetViews(dir); err != nil {
		t.Fatal(err)
	}
	return db
}

// runHados converts p with RACE and executes it on rt over the tables in
// dir, returning its rows. A plan that stays on the host is an error.
func runHados(ctx context.Context, rt *hados.Runtime, dir string, p *plan.Plan) (*Table, error) {
	res, err := rules.Run(p, rules.DefaultOptions(), nil)
	if err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	if !res.Offloaded() {
		return nil, errors.New("RACE keeps the plan on the host (see hados explain)")
	}
	out, err := exec.Run(ctx, exec.Env{Runtime: rt, Warehouse: dir}, res)
	if err != nil {
		return nil, fmt.Errorf("execute: %w", err)
	}
	defer out.Release()
	return FromArrow(out.Schema, out.Records)
}
