package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestPrometheusScrape runs a real Prometheus server (Debian's package,
// installed by .ci/run or `make prometheus`) against `hados metrics serve
// --exercise` on loopback and checks through Prometheus's HTTP API that the
// series exist and DMA traffic shows up as a positive rate.
func TestPrometheusScrape(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary: install Debian's package with `make prometheus` (CI does)")
	}
	if testing.Short() {
		t.Skip("starts a Prometheus server: skipped with -short")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := serveMetrics(t, ctx)

	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: hados\n    static_configs:\n      - targets: ['%s']\n", addr)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	prom := exec.CommandContext(ctx, bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address=127.0.0.1:"+strconv.Itoa(port))
	prom.Stdout, prom.Stderr = io.Discard, io.Discard
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); prom.Wait() }()
	api := fmt.Sprintf("http://127.0.0.1:%d/api/v1/query?query=", port)

	checks := []struct{ query, what string }{
		{`up{job="hados"}`, "the target is up"},
		{`hados_device_info`, "device info"},
		{`hados_memory_pool_limit_bytes`, "pool limits"},
		{`sum(rate(hados_dma_bytes_total{direction="h2d"}[5s]))`, "a positive H2D DMA rate"},
		{`histogram_quantile(0.5, sum by (le) (rate(hados_dma_transfer_duration_seconds_bucket[5s])))`, "a DMA latency median"},
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, c := range checks {
		for {
			v, err := promValue(api + url.QueryEscape(c.query))
			if err == nil && v > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("Prometheus never reported %s (%s): last value %v, error %v", c.what, c.query, v, err)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
}

// serveMetrics starts `hados metrics serve --exercise` in-process and
// returns its address.
func serveMetrics(t *testing.T, ctx context.Context) string {
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"metrics", "serve", "--exercise", "--listen", "127.0.0.1:0", "--devices", "soft:memory=64MiB"}, io.Discard, pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		if code := <-done; code != 0 {
			t.Errorf("metrics serve exited %d", code)
		}
	})
	buf := make([]byte, 4096)
	for {
		n, err := pr.Read(buf)
		if m := regexp.MustCompile(`http://([0-9.:]+)/metrics`).FindSubmatch(buf[:n]); m != nil {
			go io.Copy(io.Discard, pr)
			return string(m[1])
		}
		if err != nil {
			t.Fatal("metrics serve did not start")
		}
	}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// promValue returns the first sample of an instant query.
func promValue(u string) (float64, error) {
	resp, err := http.Get(u)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, err
	}
	if r.Status != "success" || len(r.Data.Result) == 0 {
		return 0, fmt.Errorf("status %s, %d results", r.Status, len(r.Data.Result))
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}
