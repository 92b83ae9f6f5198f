package main

import "fmt"

// Rounds. A benchmark pass runs every query through hados, then every
// query through DuckDB, so a slow minute of the machine (this is a VM
// whose host's load we do not see) lands on one engine only: on the
// 2-vCPU development VM, passes of the same binaries measured hados's
// geomean between 98 and 127 ms and DuckDB's between 100 and 111 ms,
// each engine's slow stretches independent of the other's. --rounds R
// repeats the pass R times, alternating the engines, and reports per
// query each engine's best over every round (and the CPU time least over
// them), so drift reaches both engines alike; each round's own geomean is
// reported too, so the spread stays visible.

// roundGeomean is one round's geometric mean at one thread count.
type roundGeomean struct {
	Threads  int     `json:"threads"`
	Round    int     `json:"round"`
	Ratio    float64 `json:"ratio"`
	CPURatio float64 `json:"cpu_ratio"`
}

// mergeHados folds round r into best: per query the least wall and CPU
// times over the rounds; a query that failed in any round keeps the
// first error.
func mergeHados(best, r map[int]hadosRun) map[int]hadosRun {
	if best == nil {
		return r
	}
	for q, x := range r {
		b, ok := best[q]
		switch {
		case !ok:
			best[q] = x
		case b.err != nil:
		case x.err != nil:
			best[q] = x
		default:
			b.best, b.bestCPU = min(b.best, x.best), min(b.bestCPU, x.bestCPU)
			best[q] = b
		}
	}
	return best
}

// mergeDuck folds DuckDB's round r into best likewise; a query whose
// answer failed or did not match in any round keeps that line.
func mergeDuck(best, r *duckRun) *duckRun {
	if best == nil {
		return r
	}
	best.maxRSS = max(best.maxRSS, r.maxRSS)
	if best.version == "" {
		best.version = r.version
	}
	for q, x := range r.queries {
		b, ok := best.queries[q]
		switch {
		case !ok:
			best.queries[q] = x
		case b.Error != "" || b.Compare != "match":
		case x.Error != "" || x.Compare != "match":
			best.queries[q] = x
		default:
			b.BestMS, b.BestCPUMS = min(b.BestMS, x.BestMS), min(b.BestCPUMS, x.BestCPUMS)
			best.queries[q] = b
		}
	}
	return best
}

// roundOf is the geometric mean of one round's runs.
func roundOf(threads, round int, queries []int, hs map[int]hadosRun, ds *duckRun) roundGeomean {
	rr := &benchReport{}
	rr.add(threads, queries, hs, ds)
	rr.finish()
	g := roundGeomean{Threads: threads, Round: round}
	if len(rr.Geomean) == 1 {
		g.Ratio, g.CPURatio = rr.Geomean[0].Ratio, rr.Geomean[0].CPURatio
	}
	return g
}

// roundLabel names round of rounds in progress lines ("" for one round).
func roundLabel(round, rounds int) string {
	if rounds == 1 {
		return ""
	}
	return fmt.Sprintf(", round %d of %d", round, rounds)
}
