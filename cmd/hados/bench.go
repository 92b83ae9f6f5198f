package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
)

// benchOptions is the command line of `hados bench tpch`.
type benchOptions struct {
	sf        float64
	queries   string
	threads   []int
	runs      int
	rounds    int
	data      string
	duckbench string
	source    string
	asJSON    bool
	chart     string
	keep      string
	joins     string
	bcastMiB  float64
}

func benchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Benchmark hados against DuckDB"}
	var o benchOptions
	tpch := &cobra.Command{
		Use:   "tpch [--sf 1] [--queries 1,6] [--threads 1,2] [--json] [--chart out.svg] [--data DIR]",
		Short: "Run the 22 TPC-H queries through hados and DuckDB and compare",
		Long: `tpch generates (or reuses) TPC-H data with the standard types as Parquet in
--data, then for each thread count runs each query --runs times through hados
(the builder's Spark-shaped plan, converted by RACE and executed on the
software DPU from the Parquet files) and through DuckDB (the standard TPC-H
SQL over the same files), checks that the answers match, and prints the best
times, the ratio hados/DuckDB, their geometric mean, and the peak memory (RSS)
of both.

DuckDB is not part of hados: it runs as a separate process, duckbench, built
with the Go toolchain from the bench module beside the repository (or given by
--duckbench). Without it the command fails.

--rounds R repeats the whole comparison R times, alternating hados and DuckDB,
and reports each engine's best per query over all rounds, plus each round's
geomean: drift of a shared machine then reaches both engines alike.

--threads sets DuckDB's threads and, unless devices are configured
(--devices, HADOS_DEVICES), the software DPU's engine cores.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBench(cmd, a, o)
		},
	}
	f := tpch.Flags()
	f.Float64Var(&o.sf, "sf", 1, "scale factor")
	f.StringVar(&o.queries, "queries", "all", `queries: "1,6", "1-5,22" or "all"`)
	f.IntSliceVar(&o.threads, "threads", []int{1}, "thread counts to run, e.g. 1,2")
	f.IntVar(&o.runs, "runs", 3, "runs per query and engine; the best is reported")
	f.IntVar(&o.rounds, "rounds", 1, "passes over the queries, alternating the engines; the best over all is reported")
	f.StringVar(&o.data, "data", "", "data directory (default build/tpch-sfSF)")
	f.StringVar(&o.duckbench, "duckbench", "", "the duckbench binary (default: build it from the bench module)")
	f.StringVar(&o.source, "duckdb-source", "parquet", "DuckDB reads the Parquet files (parquet) or its own tables loaded from them (tables)")
	f.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
	f.StringVar(&o.chart, "chart", "", "write an SVG bar chart of the ratios to this file")
	f.StringVar(&o.keep, "results", "", "keep hados's results (qN.arrow per thread count) in this directory")
	f.Float64Var(&o.bcastMiB, "broadcast-mib", 0, "largest estimated join side broadcast, in MiB (0: the builder's default)")
	f.StringVar(&o.joins, "joins", "by-size", `join strategies: "by-size" (as Spark with AQE plans them at --sf) or "as-written" (the shapes of Spark's approved plans)`)
	cmd.AddCommand(tpch)
	return cmd
}

// validate checks the options and fills the defaults.
func (o *benchOptions) validate() error {
	if o.joins != "" && o.joins != "by-size" && o.joins != "as-written" {
		return fmt.Errorf("--joins must be by-size or as-written, got %q", o.joins)
	}
	if !(o.sf > 0) {
		return fmt.Errorf("--sf must be > 0, got %v", o.sf)
	}
	if len(o.threads) == 0 {
		return fmt.Errorf("--threads: give at least one thread count")
	}
	for _, n := range o.threads {
		if n < 1 {
			return fmt.Errorf("--threads must be >= 1, got %d", n)
		}
	}
	if o.runs < 1 {
		return fmt.Errorf("--runs must be >= 1, got %d", o.runs)
	}
	if o.rounds < 0 {
		return fmt.Errorf("--rounds must be >= 1, got %d", o.rounds)
	}
	o.rounds = max(1, o.rounds)
	if o.source != "parquet" && o.source != "tables" {
		return fmt.Errorf("--duckdb-source must be parquet or tables, got %q", o.source)
	}
	if o.data == "" {
		o.data = filepath.Join("build", fmt.Sprintf("tpch-sf%g", o.sf))
	}
	return nil
}

// runBench is the whole command: prepare the data, then per thread count
// run hados and DuckDB, then report.
func runBench(cmd *cobra.Command, a *app, o benchOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	ctx := cmd.Context()
	duck, err := findDuckbench(ctx, o.duckbench, a.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "TPC-H SF %g in %s\n", o.sf, o.data)
	// duckbench generates the data when missing (recording what it made,
	// so another scale factor in the same directory is an error) and parses
	// the query list.
	queries, err := duck.prepare(ctx, o)
	if err != nil {
		return err
	}
	results := o.keep
	if results == "" {
		if results, err = os.MkdirTemp("", "hados-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(results)
	}
	rep := &benchReport{SF: o.sf, Data: o.data, Runs: o.runs, RoundsRun: o.rounds, Source: o.source, Started: time.Now().UTC()}
	for _, threads := range o.threads {
		dir := filepath.Join(results, fmt.Sprintf("threads-%d", threads))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		var hs map[int]hadosRun
		var ds *duckRun
		for round := 1; round <= o.rounds; round++ {
			fmt.Fprintf(a.stderr, "threads %d%s: hados…\n", threads, roundLabel(round, o.rounds))
			h, err := benchHados(ctx, a, o, threads, queries, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "threads %d%s: DuckDB…\n", threads, roundLabel(round, o.rounds))
			d, err := duck.bench(ctx, o, threads, queries, dir)
			if err != nil {
				return err
			}
			if o.rounds > 1 {
				rep.Rounds = append(rep.Rounds, roundOf(threads, round, queries, h, d))
			}
			hs, ds = mergeHados(hs, h), mergeDuck(ds, d)
		}
		rep.add(threads, queries, hs, ds)
	}
	rep.HadosPeakRSS = peakRSS()
	rep.finish()
	if o.chart != "" {
		if err := os.WriteFile(o.chart, []byte(ratioChart(rep)), 0o644); err != nil {
			return err
		}
	}
	if o.asJSON {
		err = rep.writeJSON(cmd.OutOrStdout())
	} else {
		err = rep.writeTable(cmd.OutOrStdout())
	}
	if err != nil {
		return err
	}
	if n := rep.failures(); n > 0 {
		fmt.Fprintf(a.stderr, "hados bench: %d of %d query runs did not run or did not match DuckDB\n", n, len(rep.Results))
		return exitError{code: 1}
	}
	return nil
}
