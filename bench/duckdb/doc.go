// Package duckdbh is the DuckDB side of hados's comparison harness: it opens
// an embedded, in-memory DuckDB, loads the TPC-H tables hados's own generator
// wrote as Parquet, runs the 22 TPC-H queries, times them and hands back
// their answers as plain Go values that can be compared with hados's.
//
// # Why a separate module
//
// DuckDB is a reference, never a dependency of the product. This package
// lives in the nested module github.com/hados-io/hados/bench, which requires
// github.com/duckdb/duckdb-go/v2 (v2.5.6, DuckDB 1.4.5, linked statically
// from the prebuilt duckdb-go-bindings archives) and points back at the
// product with a replace directive. The root module's go.mod never mentions
// DuckDB, and `go test ./...` at the root does not descend into bench/.
//
// # Data
//
// DuckDB's tpch extension needs a network download, so the data come from
// hados's generator (internal/tpchgen; see package tpchdata beside this
// one), as Parquet files DIR/<table>/part-*.parquet. [DB.LoadParquetTables]
// copies them into DuckDB's own tables (CREATE TABLE ... AS SELECT * FROM
// read_parquet(...)), which is how the reference timings were measured;
// [DB.AttachParquetViews] instead defines views over read_parquet, so every
// query scans and decodes the Parquet files again.
//
// # Results
//
// [DB.QueryRows] and [DB.Time] return rows as [][]any holding a small set
// of normalised Go types, so answers compare with == or reflect.DeepEqual
// (see [Normalize] for the full mapping):
//
//	BOOLEAN                           bool
//	TINYINT .. BIGINT, UTINYINT ..    int64
//	HUGEINT, UHUGEINT (*big.Int)      int64 if it fits, else its decimal string
//	FLOAT, DOUBLE                     float64
//	DECIMAL(p,s) (duckdb.Decimal)     string with exactly s fraction digits, "-12.30"
//	VARCHAR, BLOB                     string
//	DATE                              string "yyyy-mm-dd"
//	TIMESTAMP*, TIME*                 time.Time (UTC)
//	NULL                              nil
//
// The driver returns DECIMAL as duckdb.Decimal{Width, Scale, Value *big.Int}
// whose own String method trims trailing zeros ("3" for 3.00); Normalize
// keeps the scale instead. SUM over BIGINT is HUGEINT in DuckDB and comes
// back as *big.Int; SUM over DECIMAL(15,2) is DECIMAL(38,2); AVG over a
// DECIMAL is DOUBLE. `date '1998-12-01' - interval 90 day` is a TIMESTAMP
// in DuckDB (a DATE in Spark), so the TPC-H texts cast it back to DATE; see
// [TPCHQuery].
//
// # Timing
//
// [DB.Time] and [DB.Measure] time execution plus reading every row through
// database/sql. Measure also reports the process's CPU time per run: with
// threads=1 it is close to the wall time of an idle machine and much less
// disturbed when other work shares the cores.
//
// # Lifetime and concurrency
//
// A [DB] owns the DuckDB database and its connection pool; the caller must
// Close it, which frees all of DuckDB's memory (tables included). A DB may be
// used from several goroutines (database/sql serialises per connection), but
// timings are only meaningful when one query runs at a time.
package duckdbh
