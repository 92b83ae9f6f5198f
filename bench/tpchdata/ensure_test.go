package tpchdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/internal/tpchgen"
)

func TestEnsureGeneratesOnceThenReuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tpch")
	spec := Spec{SF: 0.001, Schema: tpchgen.Standard, Seed: 3}
	if ok, err := Complete(dir); ok || err != nil {
		t.Fatalf("Complete(missing dir) = %v, %v, want false, nil", ok, err)
	}
	var calls int
	generated, err := Ensure(t.Context(), dir, spec, func(string, int64, int64) { calls++ })
	if err != nil || !generated {
		t.Fatalf("first Ensure = %v, %v, want generated", generated, err)
	}
	if calls == 0 {
		t.Error("progress was never called")
	}
	for _, table := range tpchgen.TableNames() {
		if files, _ := filepath.Glob(filepath.Join(dir, table, "*.parquet")); len(files) == 0 {
			t.Errorf("no Parquet file for %s", table)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFile)); err != nil {
		t.Errorf("marker not written: %v", err)
	}

	generated, err = Ensure(t.Context(), dir, spec, nil)
	if err != nil || generated {
		t.Fatalf("second Ensure = %v, %v, want reuse", generated, err)
	}

	other := spec
	other.SF = 0.002
	_, err = Ensure(t.Context(), dir, other, nil)
	if err == nil || !strings.Contains(err.Error(), "holds TPC-H SF 0.001 (schema standard, seed 3), not the requested SF 0.002") {
		t.Fatalf("Ensure(other SF) error = %v", err)
	}

	// A missing table is regenerated.
	if err := os.RemoveAll(filepath.Join(dir, "region")); err != nil {
		t.Fatal(err)
	}
	if generated, err = Ensure(t.Context(), dir, spec, nil); err != nil || !generated {
		t.Fatalf("Ensure after removing region = %v, %v, want generated", generated, err)
	}
}

func TestEnsureErrors(t *testing.T) {
	if _, err := Ensure(t.Context(), "", Spec{SF: 1}, nil); err == nil || !strings.Contains(err.Error(), "no data directory") {
		t.Errorf("Ensure(empty dir) error = %v", err)
	}
	dir := t.TempDir()
	if _, err := Ensure(t.Context(), dir, Spec{SF: -1}, nil); err == nil || !strings.Contains(err.Error(), "scale factor") {
		t.Errorf("Ensure(SF -1) error = %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, MarkerFile), []byte("{bad"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(t.Context(), dir, Spec{SF: 1}, nil); err == nil || !strings.Contains(err.Error(), MarkerFile) {
		t.Errorf("Ensure(bad marker) error = %v, want one naming the marker file", err)
	}
}

// TestEnsureAcceptsUnmarkedData: complete data without a marker (made by
// another tool) is used as it is.
func TestEnsureAcceptsUnmarkedData(t *testing.T) {
	dir := t.TempDir()
	for _, table := range tpchgen.TableNames() {
		if err := os.MkdirAll(filepath.Join(dir, table), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, table, "part-00000.parquet"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if generated, err := Ensure(t.Context(), dir, Spec{SF: 1}, nil); err != nil || generated {
		t.Fatalf("Ensure(unmarked complete dir) = %v, %v, want reuse", generated, err)
	}
}
