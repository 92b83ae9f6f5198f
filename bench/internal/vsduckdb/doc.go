// Package vsduckdb holds what the same-run comparisons of hados with DuckDB
// (the joinbench, pipelines and sortbench benchmarks) share on the hados
// side: a hados runtime with one task on the software DPU, whose target
// the benchmark runs operators on, and the metrics each comparison reports.
//
// Each benchmark opens an [Engine] per configuration (engine cores, device
// memory), runs hados and DuckDB over the same data a few times, and
// reports the medians with [ReportWall]: hados's and DuckDB's wall times in
// milliseconds and their ratio hados/DuckDB, so `go test -bench` prints
// them beside each other and benchstat can compare runs.
package vsduckdb
