package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hados-io/hados/memory"
)

// benchReport is the outcome of `hados bench tpch` (its --json form).
type benchReport struct {
	SF   float64 `json:"sf"`
	Data string  `json:"data"`
	Runs int     `json:"runs"`
	// RoundsRun is --rounds; Rounds each round's geomean when above 1.
	RoundsRun int            `json:"rounds_run"`
	Rounds    []roundGeomean `json:"rounds,omitempty"`
	Source    string         `json:"duckdb_source"`
	DuckDB    string         `json:"duckdb_version"`
	Started   time.Time      `json:"started"`
	Results   []benchResult  `json:"results"`
	// Geomean per thread count: the geometric mean of the wall-time ratios
	// hados/DuckDB over the queries both ran with matching answers.
	Geomean      []benchGeomean `json:"geomean"`
	HadosPeakRSS int64          `json:"hados_peak_rss_bytes"`
	DuckPeakRSS  int64          `json:"duckdb_peak_rss_bytes"`
}

// benchResult is one query at one thread count.
type benchResult struct {
	Threads     int     `json:"threads"`
	Query       int     `json:"query"`
	HadosMS     float64 `json:"hados_ms,omitempty"`
	HadosCPUMS  float64 `json:"hados_cpu_ms,omitempty"`
	DuckMS      float64 `json:"duckdb_ms,omitempty"`
	DuckCPUMS   float64 `json:"duckdb_cpu_ms,omitempty"`
	Ratio       float64 `json:"ratio,omitempty"`     // hados/DuckDB, best wall times
	CPURatio    float64 `json:"cpu_ratio,omitempty"` // hados/DuckDB, CPU times of the best runs
	Rows        int64   `json:"rows"`
	Check       string  `json:"check"` // match, mismatch, hados error, duckdb error
	HadosError  string  `json:"hados_error,omitempty"`
	DuckDBError string  `json:"duckdb_error,omitempty"`
	Diff        string  `json:"diff,omitempty"`
}

type benchGeomean struct {
	Threads  int     `json:"threads"`
	Queries  int     `json:"queries"` // how many queries the mean covers
	Of       int     `json:"of"`
	Ratio    float64 `json:"ratio"`
	CPURatio float64 `json:"cpu_ratio"`
	Slowest  float64 `json:"slowest_ratio"`
}

// The values of benchResult.Check.
const (
	checkMatch     = "match"
	checkMismatch  = "mismatch"
	checkHadosErr  = "hados error"
	checkDuckErr   = "duckdb error"
	checkUnchecked = "not checked"
)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// add records one thread count's runs.
func (r *benchReport) add(threads int, queries []int, hs map[int]hadosRun, ds *duckRun) {
	if ds.version != "" {
		r.DuckDB = ds.version
	}
	r.DuckPeakRSS = max(r.DuckPeakRSS, ds.maxRSS)
	for _, q := range queries {
		h, d := hs[q], ds.queries[q]
		res := benchResult{Threads: threads, Query: q, Rows: h.rows, DuckMS: d.BestMS, DuckCPUMS: d.BestCPUMS}
		switch {
		case h.err != nil:
			res.Check, res.HadosError = checkHadosErr, h.err.Error()
		case d.Error != "":
			res.Check, res.DuckDBError = checkDuckErr, d.Error
		case d.Compare == "match":
			res.Check = checkMatch
		case d.Compare == "mismatch":
			res.Check, res.Diff = checkMismatch, d.Diff
		default:
			res.Check, res.Diff = checkUnchecked, d.Diff
		}
		if h.err == nil {
			res.HadosMS, res.HadosCPUMS = ms(h.best), ms(h.bestCPU)
			if d.BestMS > 0 {
				res.Ratio = res.HadosMS / d.BestMS
			}
			if d.BestCPUMS > 0 {
				res.CPURatio = res.HadosCPUMS / d.BestCPUMS
			}
		}
		r.Results = append(r.Results, res)
	}
}

// finish computes the geometric means.
func (r *benchReport) finish() {
	by := map[int]*benchGeomean{}
	logs := map[int][2]float64{}
	for _, res := range r.Results {
		g := by[res.Threads]
		if g == nil {
			g = &benchGeomean{Threads: res.Threads}
			by[res.Threads] = g
		}
		g.Of++
		if res.Check != checkMatch || res.Ratio <= 0 || res.CPURatio <= 0 {
			continue
		}
		g.Queries++
		g.Slowest = max(g.Slowest, res.Ratio)
		l := logs[res.Threads]
		logs[res.Threads] = [2]float64{l[0] + math.Log(res.Ratio), l[1] + math.Log(res.CPURatio)}
	}
	r.Geomean = nil
	for t, g := range by {
		if g.Queries > 0 {
			g.Ratio = math.Exp(logs[t][0] / float64(g.Queries))
			g.CPURatio = math.Exp(logs[t][1] / float64(g.Queries))
		}
		r.Geomean = append(r.Geomean, *g)
	}
	sort.Slice(r.Geomean, func(i, j int) bool { return r.Geomean[i].Threads < r.Geomean[j].Threads })
}

// failures counts the results that did not run or did not match.
func (r *benchReport) failures() int {
	n := 0
	for _, res := range r.Results {
		if res.Check != checkMatch {
			n++
		}
	}
	return n
}

func (r *benchReport) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (r *benchReport) writeTable(w io.Writer) error {
	best := fmt.Sprintf("best of %d runs", r.Runs)
	if r.RoundsRun > 1 {
		best = fmt.Sprintf("best of %d runs in each of %d rounds", r.Runs, r.RoundsRun)
	}
	fmt.Fprintf(w, "TPC-H SF %g, hados vs DuckDB %s (%s), %s\n\n", r.SF, r.DuckDB, r.Source, best)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "THREADS\tQUERY\tHADOS ms\tDUCKDB ms\tRATIO\tHADOS cpu\tDUCKDB cpu\tCPU RATIO\tROWS\tCHECK\t")
	num := func(v float64) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", v)
	}
	ratio := func(v float64) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", v)
	}
	for _, res := range r.Results {
		fmt.Fprintf(tw, "%d\tQ%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t\n", res.Threads, res.Query, num(res.HadosMS), num(res.DuckMS),
			ratio(res.Ratio), num(res.HadosCPUMS), num(res.DuckCPUMS), ratio(res.CPURatio), res.Rows, res.Check)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, g := range r.Geomean {
		if g.Queries == 0 {
			fmt.Fprintf(w, "threads %d: no query ran and matched (of %d)\n", g.Threads, g.Of)
			continue
		}
		fmt.Fprintf(w, "threads %d: geomean ratio %.2f (CPU %.2f) over %d of %d queries; slowest %.2fx\n",
			g.Threads, g.Ratio, g.CPURatio, g.Queries, g.Of, g.Slowest)
	}
	for _, g := range r.Geomean {
		var per []string
		for _, x := range r.Rounds {
			if x.Threads == g.Threads {
				per = append(per, fmt.Sprintf("%.2f (CPU %.2f)", x.Ratio, x.CPURatio))
			}
		}
		if len(per) > 0 {
			fmt.Fprintf(w, "threads %d: each round's geomean ratio: %s\n", g.Threads, strings.Join(per, ", "))
		}
	}
	fmt.Fprintf(w, "peak RSS: hados %s, DuckDB %s\n", memory.FormatBytes(uint64(r.HadosPeakRSS)), memory.FormatBytes(uint64(r.DuckPeakRSS)))
	for _, res := range r.Results {
		switch {
		case res.HadosError != "":
			fmt.Fprintf(w, "\nthreads %d Q%d: hados: %s", res.Threads, res.Query, res.HadosError)
		case res.DuckDBError != "":
			fmt.Fprintf(w, "\nthreads %d Q%d: DuckDB: %s", res.Threads, res.Query, res.DuckDBError)
		case res.Diff != "":
			fmt.Fprintf(w, "\nthreads %d Q%d: %s", res.Threads, res.Query, res.Diff)
		}
	}
	if r.failures() > 0 {
		fmt.Fprintln(w)
	}
	return nil
}
