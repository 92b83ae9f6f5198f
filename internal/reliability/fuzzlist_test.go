package reliability

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// moduleRoot walks up from the test's directory to the go.mod of the hados
// module.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/hados-io/hados\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("the hados module root is not above the test directory")
		}
		dir = parent
	}
}

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)

// TestFuzzTargetsCovered: every fuzz target of the repository (bench
// module included) is in the Makefile's FUZZ list, which `make fuzz` and
// CI's `make fuzz-ci` run, and has a checked-in seed corpus under its
// package's testdata/fuzz/<Target>.
func TestFuzzTargetsCovered(t *testing.T) {
	root := moduleRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var targets int
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "build" || n == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			targets++
			name := "./" + filepath.ToSlash(rel) + ":" + m[1]
			if !regexp.MustCompile(`(?m)(^|\s)` + regexp.QuoteMeta(name) + `(\s|$)`).Match(mk) {
				t.Errorf("%s (%s) is not in the Makefile's FUZZ list", name, path)
			}
			corpus := filepath.Join(filepath.Dir(path), "testdata", "fuzz", m[1])
			if ents, err := os.ReadDir(corpus); err != nil || len(ents) == 0 {
				t.Errorf("%s has no seed corpus in %s (run it with go test -fuzz and copy a few entries from $(go env GOCACHE)/fuzz)", name, corpus)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if targets == 0 {
		t.Fatal("found no fuzz targets")
	}
	t.Logf("%d fuzz targets", targets)
}
