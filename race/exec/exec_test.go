package exec_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/hados/hadostest"
	"github.com/hados-io/hados/internal/linediff"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

// The tests' scale: small by default, so that `go test` stays within
// seconds on two shared cores while every query still returns rows and
// every scan and shuffle has several partitions; HADOS_EXEC_BIG=1 runs
// ten times the data with Spark's 200 shuffle partitions.
var (
	// sf is the TPC-H scale factor of the generated warehouse.
	sf = 0.01
	// rowGroupRows makes the generator split every big table into several
	// files, so that scans have several splits (tasks).
	rowGroupRows = 4096
	// partitions is the builder plans' shuffle width.
	partitions = 8
	// bigRun reports HADOS_EXEC_BIG.
	bigRun = os.Getenv("HADOS_EXEC_BIG") != ""
)

func init() {
	if bigRun {
		sf, rowGroupRows, partitions = 0.1, 32768, planbuilder.DefaultPartitions
	}
}

var (
	whOnce sync.Once
	whDir  string
	whErr  error
)

// warehouse generates the eight TPC-H tables once per test binary.
func warehouse(t *testing.T) string {
	t.Helper()
	whOnce.Do(func() {
		whDir, whErr = os.MkdirTemp("", "hados-exec-test-")
		if whErr == nil {
			_, whErr = tpchgen.Generate(context.Background(), tpchgen.Options{SF: sf, Out: whDir, RowGroupRows: rowGroupRows})
		}
	})
	if whErr != nil {
		t.Fatal(whErr)
	}
	return whDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if whDir != "" {
		os.RemoveAll(whDir)
	}
	os.Exit(code)
}

func openRuntime(t *testing.T, devices string, dmaRetries int) *hados.Runtime {
	t.Helper()
	cfg := hados.DefaultConfig()
	cfg.Devices = devices
	cfg.Retries = dmaRetries
	return hadostest.Open(t, cfg)
}

func runtime(t *testing.T, devices string) *hados.Runtime { return openRuntime(t, devices, 3) }

func convert(t *testing.T, q int) *rules.Result {
	t.Helper()
	p, err := planbuilder.TPCH(q, planbuilder.Options{Partitions: partitions})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rules.Run(p, rules.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// executable converts p with the default options; the plan must run on
// the device today (the failure prints RACE's explain text).
func executable(t *testing.T, p *plan.Plan) *rules.Result {
	t.Helper()
	res, err := rules.Run(p, rules.DefaultOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ExecutableToday() {
		var b strings.Builder
		res.WriteText(&b)
		t.Fatalf("%s is not executable:\n%s", p.Name, b.String())
	}
	return res
}

// rows prints every result row as text: decimals at their scale, dates
// as dates.
func rows(out *exec.Result) []string {
	var rs []string
	for _, r := range out.Records {
		for i := 0; i < int(r.NumRows()); i++ {
			cells := make([]string, r.NumCols())
			for j := range cells {
				cells[j] = cell(expr.ValueAt(r.Column(j), i), r.Schema().Field(j).Type)
			}
			rs = append(rs, strings.Join(cells, "|"))
		}
	}
	return rs
}

func cell(v any, dt arrow.DataType) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case *big.Int:
		if d, ok := dt.(arrow.DecimalType); ok {
			return expr.FormatDecimal(x, int(d.GetScale()))
		}
	case int32:
		if dt.ID() == arrow.DATE32 {
			return expr.FormatDate(x)
		}
	case float64:
		return fmt.Sprintf("%.6g", x)
	}
	return fmt.Sprint(v)
}

// notReady skips a test whose plan needs operators package operators
// does not have yet.
func notReady(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, exec.ErrNotExecutable) && strings.Contains(err.Error(), "not built yet") {
		t.Skipf("needs a relational operator: %v", err)
	}
}

func run(t *testing.T, env exec.Env, q int) []string {
	t.Helper()
	out, err := exec.Run(context.Background(), env, convert(t, q))
	if err != nil {
		notReady(t, err)
		t.Fatalf("Q%d: %v", q, err)
	}
	defer out.Release()
	if len(out.Stats) == 0 || len(out.Stages) == 0 {
		t.Errorf("Q%d: no operator or stage statistics", q)
	}
	return rows(out)
}

// TestTPCH runs the 22 builder plans twice: as one task at a time on one
// device with no shuffle coalescing, and as parallel tasks spread over two
// devices (one of them discrete) with small partitions coalesced. Both
// must give the same rows; the ordered queries in the same order.
func TestTPCH(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB;soft:memory=512MiB,mode=discrete")
	spill := t.TempDir()
	for q := 1; q <= 22; q++ {
		t.Run(fmt.Sprintf("q%d", q), func(t *testing.T) {
			one := run(t, exec.Env{Runtime: rt, Warehouse: dir, Device: "0", Parallelism: 1, AdvisoryPartitionBytes: -1}, q)
			many := run(t, exec.Env{Runtime: rt, Warehouse: dir, Parallelism: 4, AdvisoryPartitionBytes: 2 << 10, SpillDir: spill}, q)
			if len(one) == 0 {
				t.Errorf("Q%d returned no rows", q)
			}
			if !sameRows(one, many) {
				t.Fatalf("Q%d: one task gives %d rows, many %d:\n%s", q, len(one), len(many), firstDiff(one, many))
			}
			if ref := references[q]; ref != nil {
				want := ref(t, dir)
				if !sameRows(want, one) {
					t.Fatalf("Q%d differs from the Go reference (%d rows, %d expected):\n%s", q, len(one), len(want), firstDiff(want, one))
				}
			}
		})
	}
}

func sameRows(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func firstDiff(a, b []string) string {
	if i, x, y, differ := linediff.First(a, b); differ {
		return fmt.Sprintf("row %d: %q vs %q", i, x, y)
	}
	return "(same)"
}

func sorted(rs []string) []string {
	out := append([]string(nil), rs...)
	sort.Strings(out)
	return out
}

// TestTPCHQ6EndToEnd runs the Spark-shaped Q6 plan from Parquet files
// on both memory modes and checks the answer against an exact reference.
func TestTPCHQ6EndToEnd(t *testing.T) {
	dir := warehouse(t)
	want := q6(t, dir)
	for _, devices := range []string{"soft:memory=256MiB", "soft:memory=256MiB,mode=discrete"} {
		t.Run(devices, func(t *testing.T) {
			rt := runtime(t, devices)
			got := run(t, exec.Env{Runtime: rt, Warehouse: dir}, 6)
			if !sameRows(got, want) {
				t.Fatalf("Q6 %v, reference %v", got, want)
			}
		})
	}
}

func TestMissingTable(t *testing.T) {
	rt := runtime(t, "soft:memory=64MiB")
	_, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: t.TempDir()}, convert(t, 6))
	if err == nil || !strings.Contains(err.Error(), "lineitem") {
		t.Fatalf("a missing table: %v", err)
	}
	_, err = exec.Run(context.Background(), exec.Env{Runtime: rt}, convert(t, 6))
	if err == nil || !strings.Contains(err.Error(), "warehouse") {
		t.Fatalf("no warehouse: %v", err)
	}
}

// TestRowGroupSplits: with splits smaller than a file, a scan's files are
// cut between row groups into several tasks (the test's files hold up to
// two row groups each), and every query gives the rows it gives with one
// task per file.
func TestRowGroupSplits(t *testing.T) {
	dir := warehouse(t)
	rt := runtime(t, "soft:memory=512MiB,cores=2")
	for _, q := range []int{1, 3, 13, 18, 21} {
		whole := run(t, exec.Env{Runtime: rt, Warehouse: dir, Parallelism: 2}, q)
		restore := exec.SetSplitBytes(1)
		out, err := exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: dir, Parallelism: 2}, convert(t, q))
		restore()
		if err != nil {
			t.Fatalf("Q%d: %v", q, err)
		}
		split := rows(out)
		scanTasks := 0
		for _, st := range out.Stages {
			scanTasks = max(scanTasks, st.Tasks)
		}
		out.Release()
		if !sameRows(whole, split) {
			t.Fatalf("Q%d: whole files give %d rows, row-group splits %d:\n%s", q, len(whole), len(split), firstDiff(whole, split))
		}
		if files := len(mustFiles(t, filepath.Join(dir, "lineitem"))); q == 1 && scanTasks <= files {
			t.Errorf("Q1: at most %d tasks in a stage over %d files of lineitem; want a task per row group", scanTasks, files)
		}
	}
}

func mustFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no Parquet files in %s: %v", dir, err)
	}
	return m
}
