// Package hadostest holds what tests of the packages above the runtime
// share: opening a hados.Runtime for one test and closing it, checked, when
// the test ends. Only tests import it.
package hadostest

import (
	"testing"

	"github.com/hados-io/hados/hados"
)

// Open opens a runtime with cfg (default options) and closes it when the
// test and its subtests end, failing the test if the close reports an
// error (a leaked buffer, a device fault). The test owns the runtime: it
// must not close it itself. An open error fails the test at once.
func Open(t testing.TB, cfg hados.Config) *hados.Runtime {
	t.Helper()
	rt, err := hados.Open(cfg, hados.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rt.Close(); err != nil {
			t.Errorf("runtime close: %v", err)
		}
	})
	return rt
}

// OpenDevices opens a runtime with the default configuration on the given
// devices (spark.hados.devices syntax, e.g. "soft:memory=64MiB"), as Open.
func OpenDevices(t testing.TB, devices string) *hados.Runtime {
	t.Helper()
	cfg := hados.DefaultConfig()
	cfg.Devices = devices
	return Open(t, cfg)
}
