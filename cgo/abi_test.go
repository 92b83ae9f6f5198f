package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hados-io/hados/internal/tpchgen"
)

// The C programs under testdata drive libhados.so as a foreign host would.
// The library is built once per test run, without the race detector (a
// -race c-shared library cannot map ThreadSanitizer's shadow memory inside
// a C host here); tasks_test.go drives the same Go paths from many
// goroutines in-process under -race.

var (
	libOnce sync.Once
	libDir  string
	libErr  string
)

// buildLibrary builds libhados.so into a temporary directory (once).
func buildLibrary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds libhados.so: skipped with -short")
	}
	if _, err := exec.LookPath(cc()); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	libOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hados-cabi-")
		if err != nil {
			libErr = err.Error()
			return
		}
		args := []string{"build", "-buildmode=c-shared", "-o", filepath.Join(dir, "libhados.so"), "."}
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			libErr = "building libhados.so: " + err.Error() + "\n" + string(out)
		}
		libDir = dir
	})
	if libErr != "" {
		t.Fatal(libErr)
	}
	return libDir
}

// removeTestFiles removes the library and warehouse the tests built (once
// per run; TestMain calls it).
func removeTestFiles() {
	for _, d := range []string{libDir, whDir} {
		if d != "" {
			os.RemoveAll(d)
		}
	}
}

func cc() string {
	if c := os.Getenv("CC"); c != "" {
		return c
	}
	return "gcc"
}

// compileHost compiles a C host program against the library.
func compileHost(t *testing.T, lib string, src ...string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src[0]), ".c"))
	args := append([]string{"-Wall", "-Werror", "-g", "-Iinclude", "-I../examples/executor", "-o", exe}, src...)
	args = append(args, "-L"+lib, "-lhados", "-Wl,-rpath,"+lib, "-lpthread")
	if out, err := exec.Command(cc(), args...).CombinedOutput(); err != nil {
		t.Fatalf("compiling %v: %v\n%s", src, err, out)
	}
	return exe
}

// runHost runs a compiled host; it must exit 0 and print "ok".
func runHost(t *testing.T, exe string, args ...string) string {
	t.Helper()
	out, err := exec.Command(exe, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(exe), args, err, out)
	}
	return string(out)
}

var (
	whOnce sync.Once
	whDir  string
	whErr  error
)

// warehouse generates TPC-H lineitem at SF 0.01 (60k rows) once.
func warehouse(t *testing.T) string {
	t.Helper()
	whOnce.Do(func() {
		whDir, whErr = os.MkdirTemp("", "hados-cabi-tpch-")
		if whErr == nil {
			_, whErr = tpchgen.Generate(context.Background(), tpchgen.Options{SF: 0.01, Out: whDir, Tables: []string{"lineitem"}})
		}
	})
	if whErr != nil {
		t.Fatal(whErr)
	}
	return whDir
}

const (
	q6Plan       = "../race/planbuilder/testdata/tpch/q6.json"
	hostRowsPlan = "../examples/executor/q6-host-rows.json"
	q6Revenue    = "1131634.2086" // TPC-H Q6 at SF 0.01, seed 0 (as `hados run` prints it)
)

// TestCHostMisuse drives the lifecycle and every kind of misuse from C.
func TestCHostMisuse(t *testing.T) {
	lib := buildLibrary(t)
	exe := compileHost(t, lib, "testdata/abi_misuse.c")
	runHost(t, exe, warehouse(t), q6Plan, hostRowsPlan)
}

// TestCHostTasks runs tasks from many threads sharing two devices by
// fractional amounts, then shuts down with tasks running.
func TestCHostTasks(t *testing.T) {
	lib := buildLibrary(t)
	exe := compileHost(t, lib, "testdata/abi_tasks.c")
	runHost(t, exe, warehouse(t), q6Plan, q6Revenue)
}

// TestExecutorExample builds and runs examples/executor.
func TestExecutorExample(t *testing.T) {
	lib := buildLibrary(t)
	exe := compileHost(t, lib, "../examples/executor/executor.c")
	out := runHost(t, exe, warehouse(t), q6Plan, hostRowsPlan, q6Revenue)
	if !strings.Contains(out, q6Revenue) {
		t.Errorf("the example did not print Q6's revenue %s:\n%s", q6Revenue, out)
	}
}
