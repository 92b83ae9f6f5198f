// Package sortbench compares hados's device Sort (operators.Sort on the
// software DPU) with DuckDB's ORDER BY on the same data, in the same run
// (issue 3: "Sort 16M bigint and 16M (string, bigint) rows … compared in
// the same run with DuckDB").
//
// The data is generated once (a fixed seed) into device memory, written
// to a Parquet file that DuckDB loads into its own table, and sorted by
// both: hados collects the sorted output batches (in device memory);
// DuckDB materialises `CREATE TEMP TABLE … AS SELECT * FROM t ORDER BY …`
// (insertion order is preserved, so the sort happens). Both sides use two
// threads / two engine cores. Wall and process CPU times are reported: on
// a machine shared with other work the CPU times move less.
//
// The benchmark is not part of the default tests: run it with
//
//	go test ./sortbench -run XXX -bench . -benchtime 1x
//
// HADOS_SORTBENCH_ROWS sets the row count (default 16Mi).
// BenchmarkSortHadosOnly (with HADOS_SORTBENCH_HADOSONLY=1) runs the hados
// (string, bigint) sort alone five times in one device, logging each run's
// CPU, system time and page faults: for profiles.
package sortbench
