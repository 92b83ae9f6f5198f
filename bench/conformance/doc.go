// Package conformance checks that hados answers TPC-H exactly as an
// independent engine does, and holds the comparison rules `hados bench
// tpch` (through duckbench) applies to every benchmark run.
//
// # Two suites
//
// TestBuilderPlans runs the 22 plans of race/planbuilder (the TPC-H queries
// written as Spark-shaped hados plans over the standard types) through
// RACE (race/rules) and the executor (race/exec) on the software DPU over
// TPC-H SF 0.01 Parquet files, and compares each answer with DuckDB's for
// the standard TPC-H SQL (bench/duckdb) over the same files.
//
// TestSparkPlans imports Spark's own 22 approved plans from
// ../shared/spark-plans/tpch (plan.ImportSparkWith, typing what the text
// leaves untyped — Q6's EmptyRelation — from the warehouse's files with
// exec.WarehouseCatalog), converts and executes them over data generated
// with Spark's test schema (every decimal is decimal(10,0)), and compares with DuckDB running Spark's SQL text for the
// same query. Where the corpus's plans were made with other substitution
// parameters than its SQL texts (Q16, Q17, Q19), the reference uses the
// plan's. The suite skips, saying why, when ../shared is absent.
//
// Data are generated once per schema into the repository's build/conformance
// (or $HADOS_CONFORMANCE_DATA) and reused; tpchdata's marker makes a
// directory holding other data an error, never a silent reuse.
//
// A query hados cannot run fails its test with the reason. The one
// exception is the table knownGaps (known_test.go, empty today): queries
// that cannot run yet, or answer wrongly, each with its reason; the table
// fails the suite as soon as an entry goes stale.
//
// # Comparison rules
//
// Both results become a Table of plain values (FromArrow for hados's Arrow
// records, FromDuckDB/QueryDuckDB for DuckDB's rows; ReadIPC for a result
// file). ValueEqual compares integers, strings, dates and booleans
// exactly; decimals at the coarser of the two scales (DuckDB's sum of a
// decimal(15,2) is decimal(38,2), Spark's decimal(25,2)); doubles within
// 1e-9 relative; and a decimal against a double (Spark's avg is a decimal,
// DuckDB's a double) at the decimal's scale. Compare enforces row order
// only on the query's ORDER BY columns (TPCHOrder): rows that tie on them
// may come in any order, and a query without ORDER BY compares as a
// multiset. A difference is a *Mismatch whose message shows the first
// differing rows of both engines.
//
// Everything here is plain Go data: Tables, Decimals and Mismatches own no
// resources. FromArrow reads records without taking them over.
package conformance
