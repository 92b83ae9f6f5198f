package main

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestBenchRounds: merging rounds keeps each engine's least wall and CPU
// time per query, a failure or mismatch of any round wins over a
// success, and the report prints every round's geomean.
func TestBenchRounds(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	boom := errors.New("boom")
	h1 := map[int]hadosRun{1: {best: ms(200), bestCPU: ms(300), rows: 4}, 6: {best: ms(50), bestCPU: ms(50)}, 9: {best: ms(10), bestCPU: ms(10)}}
	h2 := map[int]hadosRun{1: {best: ms(150), bestCPU: ms(320), rows: 4}, 6: {best: ms(60), bestCPU: ms(40)}, 9: {err: boom}}
	d1 := &duckRun{version: "v1", maxRSS: 10, queries: map[int]duckLine{
		1: {BestMS: 100, BestCPUMS: 150, Compare: "match"}, 6: {BestMS: 100, BestCPUMS: 100, Compare: "match"}, 9: {BestMS: 5, BestCPUMS: 5, Compare: "match"}}}
	d2 := &duckRun{version: "v1", maxRSS: 20, queries: map[int]duckLine{
		1: {BestMS: 120, BestCPUMS: 140, Compare: "match"}, 6: {BestMS: 90, BestCPUMS: 110, Compare: "mismatch", Diff: "row 1"}, 9: {BestMS: 4, BestCPUMS: 4, Compare: "match"}}}
	qs := []int{1, 6, 9}
	r1, r2 := roundOf(2, 1, qs, h1, d1), roundOf(2, 2, qs, h2, d2)
	// round 1: Q1 2.0, Q6 0.5, Q9 2.0; round 2: Q1 1.25 alone (Q6 mismatched, Q9 failed)
	if r1.Round != 1 || math.Abs(r1.Ratio-math.Cbrt(2)) > 1e-9 || r2.Round != 2 || math.Abs(r2.Ratio-1.25) > 1e-9 {
		t.Errorf("rounds %+v %+v", r1, r2)
	}
	hs := mergeHados(mergeHados(nil, h1), h2)
	ds := mergeDuck(mergeDuck(nil, d1), d2)
	if h := hs[1]; h.best != ms(150) || h.bestCPU != ms(300) || h.rows != 4 {
		t.Errorf("hados Q1 merged %+v, want the least wall and CPU of the rounds", h)
	}
	if h := hs[6]; h.best != ms(50) || h.bestCPU != ms(40) {
		t.Errorf("hados Q6 merged %+v", h)
	}
	if hs[9].err != boom {
		t.Errorf("hados Q9 merged %+v, want the second round's error", hs[9])
	}
	if d := ds.queries[1]; d.BestMS != 100 || d.BestCPUMS != 140 {
		t.Errorf("DuckDB Q1 merged %+v", d)
	}
	if d := ds.queries[6]; d.Compare != "mismatch" || d.Diff != "row 1" {
		t.Errorf("DuckDB Q6 merged %+v, want the mismatch", d)
	}
	if ds.maxRSS != 20 {
		t.Errorf("DuckDB peak RSS %d, want the largest", ds.maxRSS)
	}
	rep := &benchReport{SF: 1, Runs: 3, RoundsRun: 2, Rounds: []roundGeomean{r1, r2}}
	rep.add(2, qs, hs, ds)
	rep.finish()
	if g := rep.Geomean[0]; g.Queries != 1 || math.Abs(g.Ratio-1.5) > 1e-9 {
		t.Errorf("geomean %+v, want Q1 alone at 150/100", g)
	}
	var b strings.Builder
	if err := rep.writeTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"best of 3 runs in each of 2 rounds", "threads 2: each round's geomean ratio: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if roundLabel(1, 1) != "" || roundLabel(2, 3) != ", round 2 of 3" {
		t.Errorf("round labels %q %q", roundLabel(1, 1), roundLabel(2, 3))
	}
}
