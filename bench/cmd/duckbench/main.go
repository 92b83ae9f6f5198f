// Command duckbench times TPC-H queries on DuckDB over hados's generated
// data, for comparison with hados in the same run.
//
//	duckbench -data DIR -sf 1 -threads 1 -queries 1,6 [-runs 3] [-source tables|parquet]
//	          [-prepare] [-compare DIR]
//
// It generates the tables into DIR with hados's generator when they are
// missing, loads them into DuckDB (-source tables: CREATE TABLE ... AS
// SELECT * FROM read_parquet(...), DuckDB's own storage; -source parquet:
// views over read_parquet, so each query decodes the files again), runs
// each query -runs times and prints one JSON object per line on stdout:
//
//	{"kind":"data","dir":"DIR","sf":1,"generated":false,"ms":0.4}
//	{"kind":"load","source":"tables","duckdb":"v1.4.5","threads":1,"ms":5123.1}
//	{"kind":"query","engine":"duckdb","query":6,"sf":1,"threads":1,"source":"tables","runs":3,"best_ms":27.9,"median_ms":28.3,"best_cpu_ms":27.8,"median_cpu_ms":28.1,"rows":1}
//	{"kind":"done","peak_rss_bytes":1234567890}
//
// The done line gives the process's peak resident set (VmHWM).
//
// -prepare only makes sure the data exist (printing the data line). With
// -compare DIR each query line also says whether DuckDB's answer equals
// hados's result DIR/qN.arrow (an Arrow IPC stream, written by `hados bench
// tpch`) under the rules of package conformance: "compare":"match",
// "mismatch" with the first differing rows in "diff", or "error". A mismatch does not change the exit status.
//
// A failing query prints a "query" line with an "error" field, the other
// queries still run, and the exit status is 1. Bad flags exit with 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "duckbench:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "duckbench:", err)
		os.Exit(1)
	}
}

// run is the whole command; it writes JSON lines to stdout and progress and
// diagnostics to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	return bench(ctx, cfg, newReporter(stdout), stderr)
}
