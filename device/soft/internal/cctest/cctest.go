// Package cctest finds the C compiler that the device tests build C with
// (ABI layout probes, the plugin shared object, the standalone codec
// check). It is for tests only: a machine without a C compiler skips
// those tests instead of failing them.
package cctest

import (
	"os"
	"os/exec"
	"testing"
)

// Compiler returns the C compiler to run: $CC when set, else def (such as
// "cc"). It skips tb when that compiler is not installed.
func Compiler(tb testing.TB, def string) string {
	tb.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = def
	}
	if _, err := exec.LookPath(cc); err != nil {
		tb.Skipf("no C compiler (%s): %v", cc, err)
	}
	return cc
}
