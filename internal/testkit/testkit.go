// Package testkit holds the helpers every package's tests share: locating
// the ../shared folder (the Spark plan corpus) and golden files. Only tests
// import it.
package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedDir locates the shared folder beside the module root ($HADOS_SHARED
// overrides) and skips the test, saying why, when it or sub (e.g.
// "spark-plans") is absent: the core suite must not need it.
func SharedDir(t testing.TB, sub string) string {
	t.Helper()
	shared := os.Getenv("HADOS_SHARED")
	if shared == "" {
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
				t.Skip("no go.mod above the test directory; cannot locate ../shared")
			}
			dir = parent
		}
		shared = filepath.Join(dir, "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(shared, sub)); err != nil {
		t.Skipf("the shared folder is not at %s (set HADOS_SHARED): %v", shared, err)
	}
	return shared
}

// Golden compares got with the file at path, or rewrites the file when
// update is set (the tests' -update flag).
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run go test -update and review the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
