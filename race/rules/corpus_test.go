package rules

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/race/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sharedDir locates /work/shared beside the module root (HADOS_SHARED
// overrides) or skips the test.
func sharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("HADOS_SHARED"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "spark-plans")); err != nil {
		t.Skipf("the Spark plan corpus is not at %s (set HADOS_SHARED)", shared)
	}
	return shared
}

func importFile(t testing.TB, path string) *plan.Plan {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.ParseSparkText(filepath.Base(path), string(b))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run go test -update and review the diff)\n--- got\n%s", name, got)
	}
}

// TestExplainTPCH golden-tests explain over the whole TPC-H corpus.
func TestExplainTPCH(t *testing.T) {
	shared := sharedDir(t)
	files, _ := filepath.Glob(filepath.Join(shared, "spark-plans", "tpch", "*.explain.txt"))
	if len(files) == 0 {
		t.Skip("no TPC-H plans")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".explain.txt")
		t.Run(name, func(t *testing.T) {
			r, err := Run(importFile(t, f), DefaultOptions(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, "tpch-"+name+".explain.txt", b.String())
		})
	}
}

// TestCorpusSanity runs every strategy over both corpora: no error, no
// panic, and the sanity rule passes.
func TestCorpusSanity(t *testing.T) {
	shared := sharedDir(t)
	files, _ := filepath.Glob(filepath.Join(shared, "spark-plans", "*", "*.explain.txt"))
	for _, f := range files {
		p := importFile(t, f)
		for _, s := range []Strategy{AllOrNothing, Cost} {
			o := DefaultOptions()
			o.Strategy = s
			if _, err := Run(p, o, nil); err != nil {
				t.Errorf("%s %s: %v", f, s, err)
			}
		}
	}
}
