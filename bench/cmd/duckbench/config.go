package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	duckdbh "github.com/hados-io/hados/bench/duckdb"
	"github.com/hados-io/hados/bench/tpchdata"
	"github.com/hados-io/hados/internal/tpchgen"
)

// errUsage is wrapped by every error about the command line.
var errUsage = errors.New("usage")

// Sources of the tables DuckDB queries.
const (
	sourceTables  = "tables"  // DuckDB's own tables, copied from Parquet
	sourceParquet = "parquet" // views over read_parquet
)

// config is the parsed command line.
type config struct {
	dir     string
	spec    tpchdata.Spec
	threads int
	queries []int
	runs    int
	source  string
	quiet   bool
	// prepare only makes sure the data exist, then exits.
	prepare bool
	// compare, when set, is a directory of hados results (qN.arrow, Arrow
	// IPC streams) each query's answer is checked against.
	compare string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var (
		cfg             config
		schema, queries string
	)
	fs := flag.NewFlagSet("duckbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.dir, "data", "", "data directory DIR/<table>/*.parquet, generated when missing (required)")
	fs.Float64Var(&cfg.spec.SF, "sf", 1, "TPC-H scale factor of the data")
	fs.StringVar(&schema, "schema", "standard", "column types of generated data: standard or spark-test")
	fs.Uint64Var(&cfg.spec.Seed, "seed", 0, "generator seed")
	fs.IntVar(&cfg.threads, "threads", 1, "DuckDB worker threads (0 = one per core)")
	fs.StringVar(&queries, "queries", "all", `queries to run: "1,6", "1-5,22" or "all"`)
	fs.IntVar(&cfg.runs, "runs", 3, "runs per query; best and median are reported")
	fs.StringVar(&cfg.source, "source", sourceTables, "tables (DuckDB's own storage) or parquet (views over read_parquet)")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no generation progress on stderr")
	fs.BoolVar(&cfg.prepare, "prepare", false, "only generate the data when missing, print the data line and exit")
	fs.StringVar(&cfg.compare, "compare", "", "directory of hados results DIR/qN.arrow to check each answer against")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if cfg.dir == "" {
		return cfg, fmt.Errorf("%w: -data DIR is required", errUsage)
	}
	if !(cfg.spec.SF > 0) {
		return cfg, fmt.Errorf("%w: -sf must be > 0, got %v", errUsage, cfg.spec.SF)
	}
	s, err := tpchgen.ParseSchema(schema)
	if err != nil {
		return cfg, fmt.Errorf("%w: -schema: %v", errUsage, err)
	}
	cfg.spec.Schema = s
	if cfg.threads < 0 {
		return cfg, fmt.Errorf("%w: -threads must be >= 0, got %d", errUsage, cfg.threads)
	}
	if cfg.runs < 1 {
		return cfg, fmt.Errorf("%w: -runs must be >= 1, got %d", errUsage, cfg.runs)
	}
	if cfg.source != sourceTables && cfg.source != sourceParquet {
		return cfg, fmt.Errorf("%w: -source must be %s or %s, got %q", errUsage, sourceTables, sourceParquet, cfg.source)
	}
	if cfg.queries, err = duckdbh.ParseQueryList(queries); err != nil {
		return cfg, fmt.Errorf("%w: -queries: %v", errUsage, err)
	}
	return cfg, nil
}
