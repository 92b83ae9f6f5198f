package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/bench/tpchdata"
	"github.com/hados-io/hados/internal/tpchgen"
)

// errQueriesFailed is returned when at least one query failed; the failures
// are in the JSON output.
var errQueriesFailed = errors.New("some queries failed")

// bench prepares the data, loads it into DuckDB and times the queries.
func bench(ctx context.Context, cfg config, out *reporter, stderr io.Writer) error {
	start := time.Now()
	var progress func(string, int64, int64)
	if !cfg.quiet {
		progress = tpchgen.ProgressBar(stderr)
	}
	generated, err := tpchdata.Ensure(ctx, cfg.dir, cfg.spec, progress)
	if err != nil {
		return err
	}
	data := dataLine{Kind: "data", Dir: cfg.dir, SF: cfg.spec.SF, Schema: cfg.spec.Schema.String(),
		Generated: generated, MS: ms(time.Since(start))}
	if cfg.prepare {
		data.Queries = cfg.queries
		return out.emit(data)
	}
	if err := out.emit(data); err != nil {
		return err
	}

	db, err := duckdbh.Open(cfg.threads)
	if err != nil {
		return err
	}
	defer db.Close()
	version, err := db.Version()
	if err != nil {
		return err
	}
	start = time.Now()
	if cfg.source == sourceParquet {
		err = db.AttachParquetViews(cfg.dir)
	} else {
		err = db.LoadParquetTables(cfg.dir)
	}
	if err != nil {
		return err
	}
	if err := out.emit(loadLine{Kind: "load", Source: cfg.source, DuckDB: version, Threads: db.Threads(),
		MS: ms(time.Since(start))}); err != nil {
		return err
	}

	failed := false
	for _, q := range cfg.queries {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := queryLine{Kind: "query", Engine: "duckdb", Query: q, SF: cfg.spec.SF, Threads: db.Threads(),
			Source: cfg.source, Runs: cfg.runs}
		m, err := db.Measure(ctx, duckdbh.TPCHQuery(q), cfg.runs)
		if err != nil {
			line.Error = err.Error()
			failed = true
		} else {
			line.BestMS, line.MedianMS = ms(m.Best), ms(m.Median)
			line.BestCPUMS, line.MedianCPUMS = ms(m.BestCPU), ms(m.MedianCPU)
			line.Rows = len(m.Rows)
			if cfg.compare != "" {
				line.Compare, line.Diff = check(ctx, db, cfg.compare, q, m)
			}
		}
		if err := out.emit(line); err != nil {
			return err
		}
	}
	if err := out.emit(doneLine{Kind: "done", PeakRSS: peakRSS()}); err != nil {
		return err
	}
	if failed {
		return fmt.Errorf("%w (see the JSON lines with an error field)", errQueriesFailed)
	}
	return nil
}
