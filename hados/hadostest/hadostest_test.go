package hadostest_test

import (
	"testing"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/hados/hadostest"
)

func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		open  func(t *testing.T) *hados.Runtime
		units int
	}{
		{"devices", func(t *testing.T) *hados.Runtime { return hadostest.OpenDevices(t, "soft:memory=8MiB") }, 1},
		{"config", func(t *testing.T) *hados.Runtime {
			cfg := hados.DefaultConfig()
			cfg.Devices = "soft:count=2,memory=8MiB"
			cfg.Retries = 0
			return hadostest.Open(t, cfg)
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(tc.open(t).Units()); got != tc.units {
				t.Errorf("%d units, want %d", got, tc.units)
			}
		})
	}
}
