package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildLibrary builds libhados.so into a temporary directory.
func buildLibrary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds libhados.so: skipped with -short")
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(dir, "libhados.so"), ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building libhados.so: %v\n%s", err, out)
	}
	return dir
}

// TestCHost drives the library from a C program: lifecycle and misuse.
func TestCHost(t *testing.T) {
	dir := buildLibrary(t)
	exe := filepath.Join(dir, "abi_misuse")
	cc := exec.Command("gcc", "-Wall", "-Werror", "-Iinclude", "-o", exe, "testdata/abi_misuse.c",
		"-L"+dir, "-lhados", "-Wl,-rpath,"+dir)
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("compiling the C host: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("C host: %v\n%s", err, out)
	}
}
