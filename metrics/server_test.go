package metrics

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// serving is a Server running in the background of a test.
type serving struct {
	addr   string
	cancel context.CancelFunc
	done   chan error
}

// startServer runs s.Serve until the test stops it (stop) or ends.
func startServer(t *testing.T, s *Server) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	sv := &serving{cancel: cancel, done: make(chan error, 1)}
	go func() { sv.done <- s.Serve(ctx, func(addr string) { ready <- addr }) }()
	select {
	case sv.addr = <-ready:
	case err := <-sv.done:
		cancel()
		t.Fatalf("Serve failed to start: %v", err)
	}
	t.Cleanup(func() { _ = sv.stop(t) })
	return sv
}

// stop cancels the server's context and returns what Serve returned.
func (sv *serving) stop(t *testing.T) error {
	t.Helper()
	sv.cancel()
	select {
	case err, ok := <-sv.done:
		if ok {
			close(sv.done)
		}
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return within 10 s of its context being cancelled")
		return nil
	}
}

// get fetches a URL without keeping connections alive (so no client
// goroutine outlives the test).
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func fixtureRegistry(t *testing.T) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := Register(reg, fixed(fixtureSnapshot())); err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestServe(t *testing.T) {
	sv := startServer(t, &Server{Listen: "127.0.0.1:0", Gatherer: fixtureRegistry(t)})
	base := "http://" + sv.addr
	cases := []struct {
		path     string
		wantCode int
		want     string
	}{
		{"/metrics", http.StatusOK, `hados_device_info{device="0",driver="soft",mode="host-visible",name="soft DPU",simd="avx2",version="1.0.0"} 1`},
		{"/metrics", http.StatusOK, `hados_dma_transfer_duration_seconds_count{device="1",direction="h2d"} 5`},
		{"/", http.StatusOK, `<a href="/metrics">`},
		{"/nothing", http.StatusNotFound, ""},
	}
	for _, tc := range cases {
		code, body := get(t, base+tc.path)
		if code != tc.wantCode || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s = %d, body containing %q: %v; got:\n%.300s", tc.path, code, tc.want, strings.Contains(body, tc.want), body)
		}
	}
	if err := sv.stop(t); err != nil {
		t.Errorf("Serve returned %v after its context was cancelled, want nil", err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}
	if resp, err := client.Get(base + "/metrics"); err == nil {
		resp.Body.Close()
		t.Error("the server still answers after Serve returned")
	}
}

// TestServePortInUse starts a second server on the first one's port.
func TestServePortInUse(t *testing.T) {
	reg := prometheus.NewRegistry()
	first := startServer(t, &Server{Listen: "127.0.0.1:0", Gatherer: reg})
	// A timeout, so that a Serve that wrongly succeeds returns (nil) instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := Serve(ctx, first.addr, reg, func(string) { t.Error("ready called for a server that cannot listen") })
	var opErr *net.OpError
	if err == nil || !errors.As(err, &opErr) || !strings.Contains(err.Error(), first.addr) {
		t.Fatalf("second Serve on %s = %v, want a *net.OpError naming the address", first.addr, err)
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("second Serve = %v, want errors.Is(err, syscall.EADDRINUSE)", err)
	}
}

func TestServeBadConfig(t *testing.T) {
	reg := prometheus.NewRegistry()
	cases := []struct {
		name    string
		s       *Server
		wantErr string
	}{
		{"no gatherer", &Server{Listen: "127.0.0.1:0"}, "no Gatherer"},
		{"bad port", &Server{Listen: "127.0.0.1:notaport", Gatherer: reg}, "cannot serve on 127.0.0.1:notaport"},
		{"no port", &Server{Listen: "127.0.0.1", Gatherer: reg}, "cannot serve on 127.0.0.1:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Serve(context.Background(), nil)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Serve = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the logger and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeWarnsOffLoopback checks the warning for an explicit non-loopback
// address, and its absence on loopback.
func TestServeWarnsOffLoopback(t *testing.T) {
	for _, tc := range []struct {
		listen string
		warn   bool
	}{{"127.0.0.1:0", false}, {":0", true}} {
		var log syncBuffer
		sv := startServer(t, &Server{Listen: tc.listen, Gatherer: prometheus.NewRegistry(),
			Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err := sv.stop(t); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(log.String(), "non-loopback"); got != tc.warn {
			t.Errorf("listen %q: warned %v, want %v; log: %s", tc.listen, got, tc.warn, log.String())
		}
	}
}

// TestHandlerLogsGatherErrors checks that a scrape with an invalid metric
// still serves the rest and logs the error.
func TestHandlerLogsGatherErrors(t *testing.T) {
	reg := prometheus.NewRegistry()
	snap := fixtureSnapshot()
	snap.Devices = append(snap.Devices, snap.Devices[0]) // duplicate address "0"
	if err := Register(reg, fixed(snap)); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	sv := startServer(t, &Server{Listen: "127.0.0.1:0", Gatherer: reg, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	code, body := get(t, "http://"+sv.addr+"/metrics")
	if code != http.StatusOK || !strings.Contains(body, `hados_device_queues{device="1"} 4`) {
		t.Errorf("GET /metrics = %d; want 200 with the valid series, got:\n%.300s", code, body)
	}
	if !strings.Contains(log.String(), `appears twice`) {
		t.Errorf("the gather error was not logged; log: %s", log.String())
	}
}

func TestIsLoopback(t *testing.T) {
	cases := []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, true},
		{&net.TCPAddr{IP: net.IPv6loopback}, true},
		{&net.TCPAddr{IP: net.IPv4zero}, false},
		{&net.TCPAddr{IP: net.IPv6unspecified}, false},
		{&net.TCPAddr{IP: net.IPv4(10, 1, 2, 3)}, false},
		{&net.UnixAddr{Name: "/tmp/x"}, false},
	}
	for _, tc := range cases {
		if got := isLoopback(tc.addr); got != tc.want {
			t.Errorf("isLoopback(%v) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}
