package vsduckdb

import (
	"strings"
	"testing"
	"time"
)

func TestOpenRunsOnTheDevice(t *testing.T) {
	e, err := Open("soft:memory=64MiB,cores=1")
	if err != nil {
		t.Fatal(err)
	}
	if e.Target == nil || e.Target.OutputAllocator() == nil {
		t.Fatalf("no target or allocator: %+v", e)
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestOpenBadDevices(t *testing.T) {
	for _, devices := range []string{"nosuchdevice:memory=1GiB", "soft:memory=lots"} {
		t.Run(devices, func(t *testing.T) {
			e, err := Open(devices)
			if err == nil {
				e.Close()
				t.Fatalf("Open(%q): no error", devices)
			}
			if !strings.Contains(err.Error(), "vsduckdb: open hados on") {
				t.Errorf("Open(%q): error %q does not say what failed", devices, err)
			}
		})
	}
}

func TestReportWall(t *testing.T) {
	tests := []struct {
		prefix        string
		hados, duckdb time.Duration
		wantRatio     float64
	}{
		{"", 1500 * time.Microsecond, 3 * time.Millisecond, 0.5},
		{"q6-", 2 * time.Second, time.Second, 2},
	}
	for _, tt := range tests {
		var ratio float64
		res := testing.Benchmark(func(b *testing.B) { ratio = ReportWall(b, tt.prefix, tt.hados, tt.duckdb) })
		if ratio != tt.wantRatio {
			t.Errorf("%q: ratio %v, want %v", tt.prefix, ratio, tt.wantRatio)
		}
		want := map[string]float64{
			tt.prefix + "hados-ms":  float64(tt.hados.Microseconds()) / 1e3,
			tt.prefix + "duckdb-ms": float64(tt.duckdb.Microseconds()) / 1e3,
			tt.prefix + "ratio":     tt.wantRatio,
		}
		for k, v := range want {
			if res.Extra[k] != v {
				t.Errorf("%q: metric %s = %v, want %v (all: %v)", tt.prefix, k, res.Extra[k], v, res.Extra)
			}
		}
	}
}

func TestOpenPair(t *testing.T) {
	p, err := OpenPair(2, "64MiB")
	if err != nil {
		t.Fatal(err)
	}
	if p.DB.Threads() != 2 || p.Threads != 2 || p.Target == nil {
		t.Errorf("pair: DuckDB threads %d, Threads %d, target %v", p.DB.Threads(), p.Threads, p.Target)
	}
	if us := p.Runtime.Units(); len(us) != 1 || us[0].Device.Info().Cores != 2 {
		t.Errorf("hados units %v, want one device with 2 engine cores", us)
	}
	if err := p.DB.Exec("CREATE TABLE t AS SELECT 1 AS x"); err != nil {
		t.Errorf("DuckDB side: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := OpenPair(1, "lots"); err == nil {
		t.Error("OpenPair with a bad memory size: no error")
	}
}
