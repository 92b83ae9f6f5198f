package reliability

import (
	"context"
	"testing"

	"github.com/hados-io/hados/race/exec"
)

// TestTinyScale runs every TPC-H query on tables so small that some stages
// get no rows at all (SF 0.001: 6 thousand lineitem rows, 1 nation-filtered
// supplier or none): an empty input is no reason to fail.
func TestTinyScale(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("every query once more: not in -short or under the race detector")
	}
	dir := t.TempDir()
	w, err := NewWorkload(context.Background(), WorkloadOptions{Dir: dir, SF: 0.001})
	if err != nil {
		t.Fatal(err)
	}
	rt := openRuntime(t, fault{name: "tiny"})
	defer rt.Close()
	env := exec.Env{Runtime: rt, ShuffleDir: t.TempDir()}
	for _, q := range w.Queries {
		one := &Workload{Dir: w.Dir, SF: w.SF, Queries: []*Query{q}, Skipped: map[int]error{}}
		if err := one.Reference(context.Background(), env); err != nil {
			t.Errorf("%v", err)
		}
	}
}
