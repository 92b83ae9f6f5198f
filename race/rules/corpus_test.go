package rules

import (
	"github.com/hados-io/hados/internal/testkit"

	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/race/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func sharedDir(t testing.TB) string { return testkit.SharedDir(t, "spark-plans") }

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

func golden(t *testing.T, name, got string) {
	testkit.Golden(t, filepath.Join("testdata", name), got, *update)
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
