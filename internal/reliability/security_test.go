package reliability

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/internal/safepath"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/metrics"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/race/exec"
)

// TestMetricsLoopbackByDefault: with nothing configured, the metrics
// endpoint (`hados metrics serve` listens on Config.MetricsListen) binds a
// loopback address; configuring another address is possible.
func TestMetricsLoopbackByDefault(t *testing.T) {
	t.Setenv("HADOS_CONFIG", "")
	t.Setenv("HADOS_METRICS_LISTEN", "")
	os.Unsetenv("HADOS_METRICS_LISTEN")
	cfg, err := hados.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	host, _, err := net.SplitHostPort(cfg.MetricsListen)
	if err != nil {
		t.Fatalf("default metrics address %q: %v", cfg.MetricsListen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Fatalf("the metrics endpoint listens on %q by default, not a loopback address", cfg.MetricsListen)
	}
	// the address actually bound (port 0: any free port on that host)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bound := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- metrics.Serve(ctx, net.JoinHostPort(host, "0"), prometheus.NewRegistry(), func(addr string) { bound <- addr })
	}()
	select {
	case addr := <-bound:
		h, _, _ := net.SplitHostPort(addr)
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			t.Errorf("metrics bound %s, not a loopback address", addr)
		}
	case err := <-done:
		t.Fatalf("metrics.Serve: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := cfg.Set("spark.hados.metrics.listen", "0.0.0.0:9464"); err != nil || cfg.MetricsListen != "0.0.0.0:9464" {
		t.Fatalf("the metrics address cannot be configured: %v", err)
	}
}

// TestShuffleFilesPrivate: shuffle data, index and spill files are created
// mode 0600 whatever the umask, and only the committed outputs remain.
func TestShuffleFilesPrivate(t *testing.T) {
	old := syscall.Umask(0) // the most permissive umask: modes must come from the code
	defer syscall.Umask(old)
	dir := t.TempDir()
	part, err := exchange.NewRoundRobin(4, 0)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	w, err := exchange.NewShuffleWriter(part, exchange.WriterOptions{Dir: dir, ShuffleID: 1, MapID: 2, MemoryLimit: 1, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	spilled := false
	for i := range 5 {
		rec := sampleRecord(mem, i, 100)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			w.Abort()
			t.Fatal(err)
		}
		spilled = checkModes(t, dir) > 0 || spilled
	}
	if !spilled || w.Stats().Spills == 0 {
		t.Errorf("the writer did not spill (stats %+v): spill files were not checked", w.Stats())
	}
	out, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n := checkModes(t, dir); n != 2 {
		t.Errorf("%d files after Close, want the data and index files only", n)
	}
	for _, p := range []string{out.DataPath, out.IndexPath} {
		if filepath.Dir(p) != dir {
			t.Errorf("output %s outside the shuffle directory %s", p, dir)
		}
	}
}

// checkModes fails the test for any file under dir not of mode 0600, and
// returns how many files there are.
func checkModes(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("shuffle file %s has mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
	return len(ents)
}

func sampleRecord(mem memory.Allocator, seed, rows int) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(seed*rows + i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("secret row %d", seed*rows+i))
	}
	return b.NewRecordBatch()
}

// TestNoRowDataInLogs runs the workload with every log at debug level and
// checks that no result value and no text of the tables reaches the logs.
func TestNoRowDataInLogs(t *testing.T) {
	dir, sf := warehouse(t)
	queries := matrixQueries
	if raceEnabled {
		queries = raceQueries
	}
	w, err := NewWorkload(context.Background(), WorkloadOptions{Dir: dir, SF: sf, Existing: true, Queries: queries})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := hados.DefaultConfig()
	cfg.Devices = deviceSpec("")
	cfg.LogLevel = "debug"
	cfg.LockHost = false
	rt, err := hados.Open(cfg, hados.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	env := exec.Env{Runtime: rt, ShuffleDir: t.TempDir(), Logf: func(f string, a ...any) { log.Debug(fmt.Sprintf(f, a...)) }}
	if err := w.Reference(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for _, q := range w.Queries {
		for _, line := range strings.Split(q.want, "\n")[1:] { // the header is the schema: names may be logged
			for _, v := range strings.Split(line, "|") {
				if len(v) >= 6 { // shorter values (a flag, a small count) occur in any text
					secrets = append(secrets, v)
				}
			}
		}
	}
	secrets = append(secrets, tableText(t, sf)...)
	text := logs.String()
	if text == "" {
		t.Log("nothing was logged")
	}
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("row data %q appears in the logs:\n%s", s, text)
			break
		}
	}
}

// tableText returns some comment strings of the generated lineitem rows.
func tableText(t *testing.T, sf float64) []string {
	rr, err := tpchgen.NewTableReader("lineitem", tpchgen.Options{SF: sf})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []string
	col := rr.Schema().FieldIndices("l_comment")[0]
	if rr.Next() {
		c := rr.RecordBatch().Column(col).(*array.String)
		for i := 0; i < c.Len() && len(out) < 50; i += 7 {
			out = append(out, c.Value(i))
		}
	}
	return out
}

// TestPlanPathsConfined: a table directory that is a symbolic link out of
// the warehouse is refused, with an error naming the path and the root,
// before anything is read.
func TestPlanPathsConfined(t *testing.T) {
	dir, sf := warehouse(t)
	w, err := NewWorkload(context.Background(), WorkloadOptions{Dir: dir, SF: sf, Existing: true, Queries: []int{6}})
	if err != nil {
		t.Fatal(err)
	}
	wh := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "lineitem"), filepath.Join(wh, "lineitem")); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	rt := openRuntime(t, fault{name: "paths"})
	defer rt.Close()
	_, err = exec.Run(context.Background(), exec.Env{Runtime: rt, Warehouse: wh, ShuffleDir: t.TempDir()}, w.Queries[0].Plan)
	if !errors.Is(err, safepath.ErrEscape) || !strings.Contains(err.Error(), "lineitem") {
		t.Fatalf("a table linked out of the warehouse: %v, want an error wrapping safepath.ErrEscape naming lineitem", err)
	}
}
