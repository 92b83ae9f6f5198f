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
	for _, d := range []string{libDir, tpchWarehouse.dir, sparkWarehouse.dir} {
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

// compileHost compiles a C host program against the library, with
// LeakSanitizer when the compiler has it: the host then fails at exit on
// any malloc'd block nobody freed (a string, stream, array or schema hados
// handed out and did not take back, or one the host forgot), so every C
// test is a leak test. Go's own memory is not malloc'd and not checked.
func compileHost(t *testing.T, lib string, src ...string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src[0]), ".c"))
	args := append([]string{"-Wall", "-Werror", "-g", "-Iinclude", "-I../examples/executor", "-o", exe}, src...)
	args = append(args, "-L"+lib, "-lhados", "-Wl,-rpath,"+lib, "-lpthread")
	out, err := exec.Command(cc(), append([]string{"-fsanitize=leak"}, args...)...).CombinedOutput()
	if err != nil {
		t.Logf("compiling %v without LeakSanitizer (%v: %s)", src, err, out)
		out, err = exec.Command(cc(), args...).CombinedOutput()
	}
	if err != nil {
		t.Fatalf("compiling %v: %v\n%s", src, err, out)
	}
	return exe
}

// runHost runs a compiled host; it must exit 0 (LeakSanitizer exits 23 on
// a leak, printing where the block was allocated) and print "ok".
func runHost(t *testing.T, exe string, args ...string) string {
	t.Helper()
	out, err := exec.Command(exe, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(exe), args, err, out)
	}
	return string(out)
}

// generated is a TPC-H warehouse generated once per test binary (TestMain
// removes it).
type generated struct {
	once sync.Once
	dir  string
	err  error
	opts tpchgen.Options
}

var (
	// lineitem at SF 0.01 (60k rows)
	tpchWarehouse = &generated{opts: tpchgen.Options{SF: 0.01, Tables: []string{"lineitem"}}}
	// Q3's tables at SF 0.01 with Spark's test schema (the types Spark's
	// approved plans were made over); lineitem in two files, so that a
	// stage has two scan partitions
	sparkWarehouse = &generated{opts: tpchgen.Options{SF: 0.01, Schema: tpchgen.SparkTest, RowGroupRows: 16384,
		Tables: []string{"customer", "orders", "lineitem"}}}
)

func (g *generated) path(t *testing.T) string {
	t.Helper()
	g.once.Do(func() {
		if g.dir, g.err = os.MkdirTemp("", "hados-cabi-tpch-"); g.err == nil {
			o := g.opts
			o.Out = g.dir
			_, g.err = tpchgen.Generate(context.Background(), o)
		}
	})
	if g.err != nil {
		t.Fatal(g.err)
	}
	return g.dir
}

func warehouse(t *testing.T) string { return tpchWarehouse.path(t) }

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

const (
	// sparkQ3 is Spark's own plan for TPC-H Q3 (a copy of
	// shared/spark-plans/tpch/q3.explain.txt), and sparkQ3Rows its result
	// at SF 0.01 as the example prints it (the rows `hados run` prints for
	// that plan, which bench/conformance checks against DuckDB).
	sparkQ3     = "../examples/executor/tpch-q3.explain.txt"
	sparkQ3Rows = "../examples/executor/tpch-q3.expected"
)

// TestExecutorExample builds and runs examples/executor: Spark's Q3 plan
// stage by stage and as one task, then Q6 over host rows.
func TestExecutorExample(t *testing.T) {
	lib := buildLibrary(t)
	exe := compileHost(t, lib, "../examples/executor/executor.c")
	out := runHost(t, exe, sparkWarehouse.path(t), sparkQ3, sparkQ3Rows, hostRowsPlan)
	for _, want := range []string{"by stages: 5 stages", "9398.3838"} {
		if !strings.Contains(out, want) {
			t.Errorf("the example did not print %q:\n%s", want, out)
		}
	}
}
