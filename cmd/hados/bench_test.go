package main

import (
	"encoding/xml"
	"math"
	"strings"
	"testing"
	"time"
)

func sampleReport() *benchReport {
	r := &benchReport{SF: 1, DuckDB: "v1.4.5", Runs: 2, Source: "parquet"}
	hs := map[int]hadosRun{
		1: {best: 200 * time.Millisecond, bestCPU: 200 * time.Millisecond, rows: 4},
		6: {best: 50 * time.Millisecond, bestCPU: 50 * time.Millisecond, rows: 1},
		9: {err: errNoDuckbench},
	}
	ds := &duckRun{version: "v1.4.5", maxRSS: 1 << 30, queries: map[int]duckLine{
		1: {BestMS: 100, BestCPUMS: 100, Compare: "match"},
		6: {BestMS: 100, BestCPUMS: 50, Compare: "match"},
		9: {BestMS: 300, BestCPUMS: 300, Compare: "error", Diff: "no hados result"},
	}}
	r.add(1, []int{1, 6, 9}, hs, ds)
	r.finish()
	return r
}

func TestBenchReport(t *testing.T) {
	r := sampleReport()
	if len(r.Results) != 3 || r.Results[0].Ratio != 2 || r.Results[1].Ratio != 0.5 || r.Results[2].Check != checkHadosErr {
		t.Fatalf("results %+v", r.Results)
	}
	g := r.Geomean[0]
	if g.Queries != 2 || g.Of != 3 || math.Abs(g.Ratio-1) > 1e-12 || math.Abs(g.CPURatio-math.Sqrt(2)) > 1e-12 || g.Slowest != 2 {
		t.Fatalf("geomean %+v", g)
	}
	if r.failures() != 1 {
		t.Errorf("failures %d", r.failures())
	}
	var b strings.Builder
	if err := r.writeTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"geomean ratio 1.00 (CPU 1.41) over 2 of 3 queries; slowest 2.00x", "Q9: hados: the DuckDB side", "DuckDB 1.0 GiB"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRatioChart: the chart is well-formed SVG with a bar per matching
// query and "n/a" for the one that did not run.
func TestRatioChart(t *testing.T) {
	svg := ratioChart(sampleReport())
	dec := xml.NewDecoder(strings.NewReader(svg))
	rects, na := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed: %v\n%s", err, svg)
			}
			break
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if x.Name.Local == "rect" {
				rects++
			}
		case xml.CharData:
			if strings.TrimSpace(string(x)) == "n/a" {
				na++
			}
		}
	}
	// background + 2 bars + 1 legend swatch
	if rects != 4 || na != 1 {
		t.Errorf("%d rects, %d n/a\n%s", rects, na, svg)
	}
}

func TestParseDuckLines(t *testing.T) {
	lines, err := parseDuckLines(strings.NewReader(`{"kind":"load","duckdb":"v1.4.5"}` + "\n\n" + `{"kind":"query","query":6,"best_ms":1.5,"compare":"match"}` + "\n"))
	if err != nil || len(lines) != 2 || lines[1].Query != 6 || lines[1].Compare != "match" || lines[0].DuckDB != "v1.4.5" {
		t.Fatalf("%+v %v", lines, err)
	}
	if _, err := parseDuckLines(strings.NewReader("{\"kind\":\"data\"}\nduckbench: oops\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
}

func TestBenchOptions(t *testing.T) {
	for _, tt := range []struct {
		o       benchOptions
		wantErr string
	}{
		{benchOptions{sf: 0, threads: []int{1}, runs: 1, source: "parquet"}, "--sf must be > 0"},
		{benchOptions{sf: 1, runs: 1, source: "parquet"}, "at least one thread count"},
		{benchOptions{sf: 1, threads: []int{0}, runs: 1, source: "parquet"}, "--threads must be >= 1"},
		{benchOptions{sf: 1, threads: []int{1}, runs: 0, source: "parquet"}, "--runs must be >= 1"},
		{benchOptions{sf: 1, threads: []int{1}, runs: 1, source: "csv"}, "--duckdb-source"},
		{benchOptions{sf: 1, threads: []int{1}, runs: 1, rounds: -1, source: "parquet"}, "--rounds must be >= 1"},
	} {
		if err := tt.o.validate(); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%+v: %v, want %q", tt.o, err, tt.wantErr)
		}
	}
	o := benchOptions{sf: 0.5, threads: []int{1}, runs: 1, source: "tables"}
	if err := o.validate(); err != nil || o.data != "build/tpch-sf0.5" || o.rounds != 1 {
		t.Errorf("defaults: %v %q, %d rounds", err, o.data, o.rounds)
	}
	if got := benchDevices(2, 1); got != "soft:cores=2,memory=8GiB" {
		t.Errorf("benchDevices = %q", got)
	}
}

func TestBenchWithoutDuckbench(t *testing.T) {
	code, _, errs := cli(t, t.Context(), "bench", "tpch", "--sf", "0.01", "--duckbench", "/nonexistent/duckbench")
	if code == 0 || !strings.Contains(errs, "DuckDB side of the benchmark is unavailable") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
