package operators

import (
	"testing"

	"github.com/hados-io/hados/device"
)

// coresDevice is a device of a given core count (only Info is used).
type coresDevice struct {
	device.Device
	n int
}

func (d coresDevice) Info() device.Info { return device.Info{Cores: d.n} }

// TestTargetCores: an operator spreads its work over the device's cores,
// capped by CoreShare when set, asked each time (it changes as the other
// tasks of a stage finish); 0 means all of the device's cores.
func TestTargetCores(t *testing.T) {
	share := 1
	fixed := func(n int) func() int { return func() int { return n } }
	for _, c := range []struct {
		name  string
		dev   int
		share func() int
		want  int
	}{
		{"all", 4, nil, 4},
		{"capped", 4, fixed(2), 2},
		{"cap above the device", 2, fixed(8), 2},
		{"a device without cores", 0, nil, 1},
		{"share", 4, fixed(3), 3},
		{"share of all", 4, fixed(0), 4},
		{"share changes", 4, func() int { return share }, 1},
	} {
		tg := &Target{Device: coresDevice{n: c.dev}, CoreShare: c.share}
		if got := tg.cores(); got != c.want {
			t.Errorf("%s: %d cores, want %d", c.name, got, c.want)
		}
	}
	tg := &Target{Device: coresDevice{n: 4}, CoreShare: func() int { return share }}
	for _, s := range []int{1, 2, 4, 8} {
		share = s
		if got, want := tg.cores(), min(s, 4); got != want {
			t.Errorf("share %d: %d cores, want %d", s, got, want)
		}
		if got := len(tg.parts(1 << 20)); got != min(s, 4) {
			t.Errorf("share %d: %d parts of 1Mi rows, want %d", s, got, min(s, 4))
		}
	}
}
