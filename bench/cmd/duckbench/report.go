package main

import (
	"encoding/json"
	"io"
	"time"
)

// The JSON lines duckbench prints, one type per "kind".

type dataLine struct {
	Kind      string  `json:"kind"` // "data"
	Dir       string  `json:"dir"`
	SF        float64 `json:"sf"`
	Schema    string  `json:"schema"`
	Generated bool    `json:"generated"`
	MS        float64 `json:"ms"`
	// Queries is the parsed -queries list (with -prepare, for the caller).
	Queries []int `json:"queries,omitempty"`
}

type loadLine struct {
	Kind    string  `json:"kind"` // "load"
	Source  string  `json:"source"`
	DuckDB  string  `json:"duckdb"`
	Threads int     `json:"threads"`
	MS      float64 `json:"ms"`
}

type queryLine struct {
	Kind     string  `json:"kind"` // "query"
	Engine   string  `json:"engine"`
	Query    int     `json:"query"`
	SF       float64 `json:"sf"`
	Threads  int     `json:"threads"`
	Source   string  `json:"source"`
	Runs     int     `json:"runs"`
	BestMS   float64 `json:"best_ms"`
	MedianMS float64 `json:"median_ms"`
	// CPU time of the whole process over the same runs: steadier than
	// wall time when other work shares the machine.
	BestCPUMS   float64 `json:"best_cpu_ms"`
	MedianCPUMS float64 `json:"median_cpu_ms"`
	Rows        int     `json:"rows"`
	Error       string  `json:"error,omitempty"`
	// Compare is set with -compare: "match", "mismatch" (Diff says how:
	// the first differing rows) or "error" (Diff says why no comparison
	// was possible, e.g. hados left no result).
	Compare string `json:"compare,omitempty"`
	Diff    string `json:"diff,omitempty"`
}

// doneLine ends a run that timed queries.
type doneLine struct {
	Kind    string `json:"kind"` // "done"
	PeakRSS int64  `json:"peak_rss_bytes"`
}

// reporter writes one JSON object per line.
type reporter struct{ enc *json.Encoder }

func newReporter(w io.Writer) *reporter { return &reporter{enc: json.NewEncoder(w)} }

func (r *reporter) emit(v any) error { return r.enc.Encode(v) }

// ms converts a duration to milliseconds with microsecond resolution.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
