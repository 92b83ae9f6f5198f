package exec_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
)

// TestCancel cancels a query when its second stage starts: the run ends
// with the cancellation, every task's device memory is back and the
// shuffle files are gone.
func TestCancel(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=256MiB;soft:memory=256MiB,mode=discrete")
	shuffles := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	stages := 0
	env := exec.Env{Runtime: rt, Warehouse: dir, ShuffleDir: shuffles, Logf: func(f string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasSuffix(f, ": %d tasks") {
			if stages++; stages == 2 {
				cancel()
			}
		}
	}}
	_, err := exec.Run(ctx, env, convert(t, 14))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled run: %v", err)
	}
	for _, u := range rt.Units() {
		if s := u.Pool.Stats(); s.InUseBytes != 0 || s.LiveBuffers != 0 {
			t.Errorf("device %s holds %d bytes in %d buffers after the cancel", u.Device.Info().Address, s.InUseBytes, s.LiveBuffers)
		}
	}
	if left, _ := os.ReadDir(shuffles); len(left) != 0 {
		t.Errorf("shuffle files left: %v", left)
	}
}

// TestRetries injects DMA errors (the DMA layer does not retry them here):
// failed tasks are tried again, on the other device, and the answer does
// not change. Errors on every transfer fail the query, naming the stage,
// the partition and the cause.
func TestRetries(t *testing.T) {
	dir := warehouse(t)
	clean := run(t, exec.Env{Runtime: runtime(t, "soft:memory=256MiB"), Warehouse: dir}, 14)
	rt := openRuntime(t, "soft:memory=256MiB,mode=discrete,dma_error_rate=0.02,seed=7;soft:memory=256MiB,mode=discrete,seed=8", 0)
	out, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: dir, MaxFailures: 50}, convert(t, 14))
	if err != nil {
		t.Fatalf("with retries: %v", err)
	}
	got := rows(out)
	retried := 0
	for _, s := range out.Stages {
		retried += s.Attempts - s.Tasks
	}
	out.Release()
	if !sameRows(got, clean) {
		t.Fatalf("with retries %v, without faults %v", got, clean)
	}
	t.Logf("%d task attempts retried", retried)

	bad := openRuntime(t, "soft:memory=256MiB,mode=discrete,dma_error_rate=1", 0)
	_, err = exec.Run(context.Background(), exec.Env{Runtime: bad, Warehouse: dir, MaxFailures: 2}, convert(t, 14))
	if err == nil || !strings.Contains(err.Error(), "partition") || !strings.Contains(err.Error(), "stage") ||
		!strings.Contains(err.Error(), "2 attempt") {
		t.Fatalf("every transfer failing: %v", err)
	}
}

// scalarPlan is SELECT n_nationkey, (SELECT n_regionkey FROM nation
// WHERE cond) AS v FROM nation, as Spark would plan it.
func scalarPlan(cond func(key plan.Attr) *plan.Expr) *plan.Plan {
	long := types.LongType
	attrs := func(base int64) []plan.Attr {
		return []plan.Attr{{Name: "n_nationkey", ID: base, Type: long, Nullable: true},
			{Name: "n_regionkey", ID: base + 1, Type: long, Nullable: true}}
	}
	scan := func(id int, as []plan.Attr) *plan.Node {
		return &plan.Node{ID: id, Op: plan.OpScan, OpName: "Scan parquet", Output: as,
			Scan: &plan.ScanInfo{Format: "parquet", Table: "spark_catalog.default.nation", ReadSchema: as}}
	}
	sub := &plan.Expr{Kind: plan.ExprCall, Name: "scalar-subquery", ID: 900, Type: long}
	main := attrs(1)
	v := plan.Attr{Name: "v", ID: 901, Type: long, Nullable: true}
	root := &plan.Node{ID: 2, Op: plan.OpProject, OpName: "Project", Output: []plan.Attr{main[0], v},
		Project:  &plan.ProjectInfo{List: []*plan.Expr{plan.AttrRef(main[0]), {Kind: plan.ExprAlias, Name: "v", ID: 901, Type: long, Args: []*plan.Expr{sub}}}},
		Children: []*plan.Node{scan(1, main)}}
	in := attrs(11)
	filter := &plan.Node{ID: 12, Op: plan.OpFilter, OpName: "Filter", Output: in, Filter: &plan.FilterInfo{Condition: cond(in[0])},
		Children: []*plan.Node{scan(11, in)}}
	sq := &plan.Node{ID: 13, Op: plan.OpProject, OpName: "Project", Output: in[1:], Project: &plan.ProjectInfo{List: []*plan.Expr{plan.AttrRef(in[1])}},
		Children: []*plan.Node{filter}}
	return &plan.Plan{Version: plan.Version, Name: "scalar", Root: root,
		Subqueries: []*plan.Subquery{{ID: 1, HostID: 2, HostExpr: sub, Root: sq}}}
}

func keyCmp(op string, k int64) func(plan.Attr) *plan.Expr {
	return func(key plan.Attr) *plan.Expr {
		return &plan.Expr{Kind: plan.ExprCall, Name: op, Type: types.BooleanType,
			Args: []*plan.Expr{plan.AttrRef(key), {Kind: plan.ExprLiteral, Type: types.LongType, Lit: &plan.Literal{Int: k}}}}
	}
}

// TestScalarSubquery binds a scalar subquery's value into its consumer:
// null for no row, the value for one row, an error naming the subquery
// for two.
func TestScalarSubquery(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=64MiB")
	want := map[int64]string{}
	n := load(t, "nation")
	for i := 0; i < n.rows(); i++ {
		want[n.i64("n_nationkey", i)] = fmt.Sprint(n.i64("n_regionkey", i))
	}
	for _, tc := range []struct {
		name string
		cond func(plan.Attr) *plan.Expr
		v    string
		err  string
	}{
		{"no row", keyCmp("=", -1), "NULL", ""},
		{"one row", keyCmp("=", 3), want[3], ""},
		{"two rows", keyCmp("<", 2), "", "scalar-subquery#900"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := executable(t, scalarPlan(tc.cond))
			out, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: dir}, res)
			if tc.err != "" {
				if !errors.Is(err, exec.ErrScalarSubquery) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want an error naming %s: %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			rs := rows(out)
			if len(rs) != n.rows() {
				t.Fatalf("%d rows, want %d", len(rs), n.rows())
			}
			for _, r := range rs {
				if _, v, _ := strings.Cut(r, "|"); v != tc.v {
					t.Fatalf("row %q: v = %s, want %s", r, v, tc.v)
				}
			}
		})
	}
}
