package exec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

// Small Spark text plans (testdata/*.explain.txt, in EXPLAIN FORMATTED's
// shape) run through the importer, RACE and the executor: the shapes
// Spark's own TPC-H plans take that the builder plans do not.

// sparkText imports testdata/name with the warehouse's column types and
// converts it; the plan must be executable.
func sparkText(t *testing.T, name, dir string) *rules.Result {
	t.Helper()
	cat, err := exec.WarehouseCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := plan.ImportSparkWith(name, f, plan.ImportOptions{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	return executable(t, p)
}

// runBoth runs res as one task (coalescing nothing) and as many (small
// shuffle partitions coalesced), and
// returns the rows sorted after checking both agree.
func runBoth(t *testing.T, res *rules.Result, dir string) []string {
	t.Helper()
	rt := runtime(t, "soft:memory=256MiB;soft:memory=256MiB,mode=discrete")
	var got [][]string
	for _, env := range []exec.Env{
		{Runtime: rt, Warehouse: dir, Device: "0", Parallelism: 1, AdvisoryPartitionBytes: -1},
		{Runtime: rt, Warehouse: dir, Parallelism: 4, AdvisoryPartitionBytes: 2 << 10},
	} {
		out, err := exec.Run(context.Background(), env, res)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, sorted(rows(out)))
		out.Release()
	}
	if !sameRows(got[0], got[1]) {
		t.Fatalf("one task %v, many %v", got[0], got[1])
	}
	return got[0]
}

// TestFinalCountOfLiteral: Spark prints a Final count(1) like a Complete
// one (no mode prefix, no attribute argument). Read as Complete, the
// final aggregation counted its input rows — the partial buffers, one per
// map task and group — so Spark's TPC-H Q4 gave 1 per priority, Q13 lost
// its count 0 customers and Q21 other numwait. The buffer column the
// final aggregate reads (count#3) makes it Final.
func TestFinalCountOfLiteral(t *testing.T) {
	dir := warehouse(t)
	got := runBoth(t, sparkText(t, "count-final.explain.txt", dir), dir)
	o := load(t, "orders")
	counts := map[string]int{}
	for i := 0; i < o.rows(); i++ {
		counts[o.str("o_orderpriority", i)]++
	}
	var want []string
	for p, n := range counts {
		want = append(want, fmt.Sprintf("%s|%d", p, n))
	}
	if want = sorted(want); !sameRows(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestAvgOfLong: Spark's avg over a bigint (avg(UnscaledValue(d)) in its
// TPC-H plans over decimal(10,0)) keeps a double sum buffer; the device
// sums the input cast to double. count(1) beside a Final avg is Final.
func TestAvgOfLong(t *testing.T) {
	dir := warehouse(t)
	got := runBoth(t, sparkText(t, "avg-long.explain.txt", dir), dir)
	o := load(t, "orders")
	sums, counts := map[string]float64{}, map[string]int{}
	for i := 0; i < o.rows(); i++ {
		p := o.str("o_orderpriority", i)
		sums[p] += float64(o.i64("o_custkey", i))
		counts[p]++
	}
	var want []string
	for p, n := range counts {
		want = append(want, fmt.Sprintf("%s|%.6g|%d", p, sums[p]/float64(n), n))
	}
	if want = sorted(want); !sameRows(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestEmptyRelation: Spark's optimizer folds a scan it proves empty (TPC-H
// Q6 over decimal(10,0)) into an EmptyRelation. It stays a host leaf that
// counts as neither offloaded nor fallen back, the executor reads it as an
// empty input, and the global aggregation above returns its one row.
func TestEmptyRelation(t *testing.T) {
	dir := warehouse(t)
	res := sparkText(t, "empty-relation.explain.txt", dir)
	var b strings.Builder
	res.WriteText(&b)
	if !strings.Contains(b.String(), "EmptyRelation (1) [empty input]") {
		t.Errorf("explain does not show the empty input:\n%s", b.String())
	}
	if c := res.Count(); c.Operators != 3 || c.OnDevice != 3 {
		t.Errorf("counts %+v: want the two aggregations and the exchange on the device, the empty leaf not counted", c)
	}
	if got := runBoth(t, res, dir); !sameRows(got, []string{"0|NULL"}) {
		t.Fatalf("got %v, want one row 0|NULL", got)
	}
}
