package exec

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/hados/hadostest"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

// TestScalarSubqueryOverlaps: TPC-H Q11's scalar subquery (the total
// value of German stock) runs beside the stage of the main tree that
// reads no subquery (the partial aggregation by part): the subquery's
// map stage is held until that stage starts, which it could not while
// subqueries ran before their tree was planned. The subquery's stages
// are sealed against the main tree's runtime filters, and every stage
// runs once.
func TestScalarSubqueryOverlaps(t *testing.T) {
	dir := t.TempDir()
	if _, err := tpchgen.Generate(context.Background(), tpchgen.Options{SF: 0.01, Out: dir, RowGroupRows: 4096}); err != nil {
		t.Fatal(err)
	}
	cfg := hados.DefaultConfig()
	cfg.Devices = "soft:memory=256MiB,cores=2"
	rt := hadostest.Open(t, cfg)
	p, err := planbuilder.TPCH(11, planbuilder.Options{Schema: tpchgen.Standard})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rules.Run(p, rules.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	free := make(chan struct{}) // closed when a main-tree map stage reading no subquery starts
	var once sync.Once
	var mu sync.Mutex
	starts := map[*stage]int{}
	stageStarting = func(q *query, s *stage) {
		mu.Lock()
		starts[s]++
		mu.Unlock()
		if s.kind != mapStage {
			return
		}
		if !s.sealed.Load() {
			if len(q.stageScalarIDs(s)) == 0 {
				once.Do(func() { close(free) })
			}
			return
		}
		select { // the subquery's own map stage
		case <-free:
		case <-time.After(30 * time.Second):
			t.Errorf("%s: no stage of the main tree ran beside the subquery", s.name())
		}
	}
	defer func() { stageStarting = nil }()
	out, err := Run(context.Background(), Env{Runtime: rt, Warehouse: dir, Parallelism: 2}, res)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	n := 0
	for _, r := range out.Records {
		n += int(r.NumRows())
	}
	if n == 0 {
		t.Error("Q11 returned no row")
	}
	for s, k := range starts {
		if k != 1 {
			t.Errorf("%s ran %d times", s.name(), k)
		}
	}
	select {
	case <-free:
	default:
		t.Error("no map stage of the main tree reads no subquery")
	}
}
