// Package scanbench measures hados's Parquet scan (operators/scan) decoding
// TPC-H lineitem into device memory against DuckDB's read_parquet over the
// same files, with the same thread count, in the same run: Q6's four
// columns and all sixteen, then Q6's predicate on a copy of lineitem sorted
// by l_shipdate (written by operators/write, with statistics and the page
// index) to count what pruning skips.
//
// It is a measurement, not a test: it runs only when HADOS_SCANBENCH=1
// (HADOS_BENCH_SF sets the scale factor, default 1; HADOS_SCANBENCH_THREADS
// a list of thread counts, default "1,2"; HADOS_SCANBENCH_ONLY=q6 only Q6's
// columns against DuckDB's materialisation and whole Q6, for quick A/B
// runs; HADOS_SCANBENCH_RUNS the runs each best time is taken from, default
// 3), and logs a table:
//
//	HADOS_SCANBENCH=1 go test -v -run TestScanBench -timeout 30m ./scanbench
//
// DuckDB materialises what it reads into a temporary table (CREATE TEMP
// TABLE … AS SELECT … FROM read_parquet), the closest analogue of decoding
// into device memory; hados's records come from the soft device's
// allocator and are released as they arrive. Times are the best of the runs
// in wall-clock and process CPU time: on a shared machine the CPU time is
// the fairer figure.
//
// BenchmarkHadosScanQ6Columns (into Go memory) and
// BenchmarkHadosScanQ6ColumnsDevice (into the software DPU's memory, as
// TestScanBench) scan Q6's columns of the SF1 files TestScanBench made,
// with Parallelism = GOMAXPROCS, for profiling:
//
//	go test -run '^$' -bench HadosScan -cpu 1,2 -cpuprofile cpu.prof ./scanbench
package scanbench
