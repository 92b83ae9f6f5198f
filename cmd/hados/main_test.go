package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// cli runs the CLI in-process and returns its exit code, stdout, stderr.
func cli(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDevices(t *testing.T) {
	code, out, errs := cli(t, context.Background(), "devices", "--devices", "soft:memory=64MiB;soft:memory=64MiB,mode=discrete,cores=3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !regexp.MustCompile(`(?m)^1\s+soft\s+discrete\s+64\.0 MiB\s+3\s+\w+`).MatchString(out) {
		t.Fatalf("table:\n%s", out)
	}
	code, out, _ = cli(t, context.Background(), "devices", "--spark-discovery", "--devices", "soft:count=3,memory=16MiB")
	if code != 0 || out != `{"name":"dpu","addresses":["0","1","2"]}`+"\n" {
		t.Fatalf("spark discovery: %d %q", code, out)
	}
	code, out, _ = cli(t, context.Background(), "devices", "--json", "--devices", "soft:memory=16MiB")
	var rows []map[string]map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || rows[0]["info"]["mode"] != "host-visible" {
		t.Fatalf("json: %d %s", code, out)
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"devices", "--devices", "soft:count=zero"}, "count=zero"},
		{[]string{"devices", "--devices", "warp-drive"}, `unknown device driver "warp-drive"`},
		{[]string{"devices", "--devices", "plugin:/nonexistent/libdpu.so"}, "no such file"},
		{[]string{"devices", "--devices", "soft:memory=0"}, "memory=0"},
		{[]string{"diag", "--devices", "soft:memory=16MiB", "--device", "7"}, `device address "7" out of range (have 0..0)`},
		{[]string{"devices", "--config", "/nonexistent/hados.conf"}, "configuration file"},
		{[]string{"nosuchcommand"}, "unknown command"},
		{[]string{"devices", "--log-level", "loud"}, "spark.hados.log.level"},
	} {
		code, _, errs := cli(t, context.Background(), tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

func TestDiag(t *testing.T) {
	code, out, errs := cli(t, context.Background(), "diag", "--quick", "--json", "--devices", "soft:memory=96MiB,mode=discrete")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var reps []struct {
		Pass      bool
		Bandwidth []struct{ Direction string }
	}
	if err := json.Unmarshal([]byte(out), &reps); err != nil || len(reps) != 1 || !reps[0].Pass || len(reps[0].Bandwidth) != 9 {
		t.Fatalf("json report: %v %s", err, out)
	}
	if !strings.Contains(errs, "[5/5] queue latency") {
		t.Fatalf("no progress on stderr: %s", errs)
	}
	code, out, errs = cli(t, context.Background(), "diag", "--quick", "--devices", "soft:memory=64MiB,dma_error_rate=1")
	if code != 2 || !strings.Contains(out, "FAIL") || !strings.Contains(errs, "diagnostic FAILED") {
		t.Fatalf("failing device: exit %d\n%s\n%s", code, out, errs)
	}
}

func TestMetricsServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		code := run(ctx, []string{"metrics", "serve", "--listen", "127.0.0.1:0", "--devices", "soft:memory=16MiB"}, io.Discard, pw)
		pw.Close()
		done <- code
	}()
	var addr string
	buf := make([]byte, 4096)
	deadline := time.Now().Add(10 * time.Second)
	for addr == "" && time.Now().Before(deadline) {
		n, err := pr.Read(buf)
		if m := regexp.MustCompile(`http://([0-9.:]+)/metrics`).FindSubmatch(buf[:n]); m != nil {
			addr = string(m[1])
		}
		if err != nil {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if addr == "" {
		t.Fatal("server did not say where it listens")
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`hados_device_info{device="0"`, "hados_memory_pool_in_use_bytes", "go_goroutines"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d after cancel", code)
	}
}

func TestGenTPCH(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := cli(t, context.Background(), "gen", "tpch", "--sf", "0.01", "--out", dir, "--quiet", "--tables", "nation,region")
	if code != 0 || !strings.Contains(out, "nation  25") || !strings.Contains(out, "region  5") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = cli(t, context.Background(), "gen", "tpch", "--sf", "-1", "--out", dir)
	if code != 1 || !strings.Contains(errs, "scale factor") {
		t.Fatalf("bad sf: %d %s", code, errs)
	}
	code, _, errs = cli(t, context.Background(), "gen", "tpch", "--out", dir, "--schema", "oracle")
	if code != 1 || !strings.Contains(errs, "oracle") {
		t.Fatalf("bad schema: %d %s", code, errs)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := cli(t, context.Background(), "gen", "tpch", "--sf", "0.01", "--out", dir, "--quiet", "--tables", "lineitem"); code != 0 {
		t.Fatal(errs)
	}
	plan := "../../race/planbuilder/testdata/tpch/q6.json"
	code, out, errs := cli(t, context.Background(), "run", plan, "--warehouse", dir, "--devices", "soft:memory=128MiB")
	if code != 0 || !strings.HasPrefix(out, "revenue\n") || !strings.Contains(out, "DpuFilter+(4) DpuProject") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = cli(t, context.Background(), "run", plan, "--warehouse", dir, "--format", "json", "--devices", "soft:memory=128MiB")
	if code != 0 || !strings.HasPrefix(out, `{"revenue":"`) {
		t.Fatalf("json: %d %s", code, out)
	}
	code, out, errs = cli(t, context.Background(), "run", "../../race/planbuilder/testdata/tpch/q1.json", "--warehouse", dir, "--devices", "soft:memory=128MiB")
	if code != 0 || !strings.Contains(out, "l_returnflag") || !strings.Contains(out, "DpuSort") {
		t.Fatalf("Q1 (sort, range exchange): exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = cli(t, context.Background(), "run", plan, "--warehouse", t.TempDir(), "--devices", "soft:memory=128MiB")
	if code != 1 || !strings.Contains(errs, "lineitem") {
		t.Fatalf("missing table: %d %s", code, errs)
	}
}
