package exec

import (
	"testing"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/hados/hadostest"
	"github.com/hados-io/hados/race/rules"
)

// TestSplitCoresIndependentOfDevice checks that a query run on one device
// of a runtime cuts its scans by the cores of every device, as Stages
// counts them: RunStage tasks on devices with different core counts must
// all see the same split list, or rows would be read twice or never.
func TestSplitCoresIndependentOfDevice(t *testing.T) {
	cfg := hados.DefaultConfig()
	cfg.Devices = "soft:memory=64MiB,cores=1;soft:memory=64MiB,cores=3"
	rt := hadostest.Open(t, cfg)
	res := &rules.Result{Root: &rules.Node{}}
	var seen []int
	for _, dev := range []string{"", "0", "1"} {
		q, err := newQuery(Env{Runtime: rt, Device: dev}, res)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, q.cores)
		if want := map[string]int{"": 4, "0": 1, "1": 3}[dev]; q.slots.size() != want {
			t.Errorf("device %q: %d task slots, want %d (its own cores)", dev, q.slots.size(), want)
		}
	}
	if seen[0] != 4 || seen[1] != 4 || seen[2] != 4 {
		t.Fatalf("split cores by device (all, 0, 1) = %v, want 4 for each", seen)
	}
}
