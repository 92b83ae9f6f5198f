package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// duckbench is the DuckDB side of `hados bench`: the bench module's
// cmd/duckbench run as a child process, so that DuckDB never links into
// hados. It speaks JSON lines on stdout (see that command's documentation).
type duckbench struct {
	path   string
	stderr io.Writer
}

// duckLine is the subset of duckbench's JSON lines hados reads.
type duckLine struct {
	Kind      string  `json:"kind"`
	Query     int     `json:"query"`
	Threads   int     `json:"threads"`
	DuckDB    string  `json:"duckdb"`
	BestMS    float64 `json:"best_ms"`
	BestCPUMS float64 `json:"best_cpu_ms"`
	Rows      int     `json:"rows"`
	Error     string  `json:"error"`
	Compare   string  `json:"compare"`
	Diff      string  `json:"diff"`
	Queries   []int   `json:"queries"`
	PeakRSS   int64   `json:"peak_rss_bytes"`
}

// duckRun is what one duckbench run reported.
type duckRun struct {
	version string
	queries map[int]duckLine
	maxRSS  int64 // bytes, duckbench's peak resident set
}

// errNoDuckbench says why the DuckDB side is unavailable.
var errNoDuckbench = errors.New("the DuckDB side of the benchmark is unavailable")

// findDuckbench returns the duckbench to use: path when given, else one
// built with `go build` from the bench module (bench/ in the repository
// holding the working directory) into the repository's build/.
func findDuckbench(ctx context.Context, path string, stderr io.Writer) (*duckbench, error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%w: --duckbench: %v", errNoDuckbench, err)
		}
		return &duckbench{path: path, stderr: stderr}, nil
	}
	repo, err := benchRepo()
	if err != nil {
		return nil, err
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("%w: building duckbench needs the Go toolchain (%v); or pass --duckbench PATH", errNoDuckbench, err)
	}
	out := filepath.Join(repo, "build", "duckbench")
	fmt.Fprintf(stderr, "building duckbench (DuckDB) from %s…\n", filepath.Join(repo, "bench"))
	build := exec.CommandContext(ctx, goTool, "build", "-o", out, "./cmd/duckbench")
	build.Dir = filepath.Join(repo, "bench")
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("%w: go build ./cmd/duckbench in %s: %v", errNoDuckbench, build.Dir, err)
	}
	return &duckbench{path: out, stderr: stderr}, nil
}

// benchRepo finds the repository root above the working directory: the
// directory holding go.mod and bench/go.mod.
func benchRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "bench", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%w: no bench module (bench/go.mod) above the working directory: run from the hados repository or pass --duckbench PATH", errNoDuckbench)
		}
		dir = parent
	}
}

// prepare makes sure the data exist and returns the parsed query list.
func (d *duckbench) prepare(ctx context.Context, o benchOptions) ([]int, error) {
	lines, err := d.run(ctx, "-data", o.data, "-sf", fmt.Sprint(o.sf), "-queries", o.queries, "-prepare")
	if err != nil {
		return nil, fmt.Errorf("prepare the data: %w", err)
	}
	for _, l := range lines {
		if l.Kind == "data" && len(l.Queries) > 0 {
			return l.Queries, nil
		}
	}
	return nil, fmt.Errorf("prepare the data: duckbench printed no query list")
}

// bench times the queries on DuckDB with threads threads and checks each
// answer against hados's result in dir.
func (d *duckbench) bench(ctx context.Context, o benchOptions, threads int, queries []int, dir string) (*duckRun, error) {
	list := make([]string, len(queries))
	for i, q := range queries {
		list[i] = strconv.Itoa(q)
	}
	lines, err := d.run(ctx, "-data", o.data, "-sf", fmt.Sprint(o.sf), "-threads", strconv.Itoa(threads),
		"-queries", strings.Join(list, ","), "-runs", strconv.Itoa(o.runs), "-source", o.source, "-compare", dir, "-quiet")
	r := &duckRun{queries: map[int]duckLine{}}
	for _, l := range lines {
		switch l.Kind {
		case "load":
			r.version = l.DuckDB
		case "query":
			r.queries[l.Query] = l
		case "done":
			r.maxRSS = l.PeakRSS
		}
	}
	// A failing DuckDB query exits 1 with its error in its line: keep
	// going as long as every query reported.
	if err != nil && len(r.queries) < len(queries) {
		return nil, fmt.Errorf("duckbench: %w", err)
	}
	return r, nil
}

// run runs duckbench with args, passing its stderr through, and returns
// its JSON lines. (Its peak RSS comes in its done line: the child's
// ru_maxrss would count the parent's RSS at fork.)
func (d *duckbench) run(ctx context.Context, args ...string) ([]duckLine, error) {
	cmd := exec.CommandContext(ctx, d.path, args...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, d.stderr
	runErr := cmd.Run()
	lines, err := parseDuckLines(&stdout)
	if err != nil {
		return nil, err
	}
	if runErr != nil {
		return lines, fmt.Errorf("%s: %w", filepath.Base(d.path), runErr)
	}
	return lines, nil
}

// parseDuckLines decodes duckbench's JSON lines; a line that is not a JSON
// object is an error naming its number.
func parseDuckLines(r io.Reader) ([]duckLine, error) {
	var out []duckLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var l duckLine
		if err := json.Unmarshal(text, &l); err != nil {
			return nil, fmt.Errorf("duckbench output line %d: %v", n, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("duckbench output: %w", err)
	}
	return out, nil
}
