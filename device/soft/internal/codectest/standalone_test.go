package codectest

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hados-io/hados/device/soft/internal/cctest"
)

// TestCStandalone builds testdata/standalone.c against the headers as
// strict, warning-free C99 (-Werror), with AddressSanitizer and
// UndefinedBehaviorSanitizer when the compiler has them, and runs it:
// round trips plus decoding of mutated blocks in exact-size malloc'd
// buffers. It is skipped when no C compiler is installed.
func TestCStandalone(t *testing.T) {
	cc := cctest.Compiler(t, "cc")
	csrc, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "standalone")
	base := []string{"-std=c99", "-pedantic", "-O3", "-Wall", "-Wextra", "-Werror", "-I", csrc, "-o", bin, filepath.Join("testdata", "standalone.c")}
	san := append([]string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g"}, base...)
	out, err := exec.Command(cc, san...).CombinedOutput()
	sanitized := err == nil
	if !sanitized {
		t.Logf("sanitizers unavailable, building without them: %s", out)
		if out, err := exec.Command(cc, base...).CombinedOutput(); err != nil {
			t.Fatalf("headers do not compile warning-free as C99: %v\n%s", err, out)
		}
	}
	iters := 20000
	if testing.Short() {
		iters = 2000
	}
	out, err = exec.Command(bin, strconv.Itoa(iters)).CombinedOutput()
	if err != nil {
		t.Fatalf("standalone C check failed (sanitized=%v): %v\n%s", sanitized, err, out)
	}
	t.Logf("sanitized=%v: %s", sanitized, out)
}
