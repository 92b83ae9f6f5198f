// Package interop checks that hados's Parquet files and DuckDB's agree, in
// both directions, on every column type hados supports: files DuckDB
// writes with COPY … (FORMAT parquet) read through operators/scan give the
// values DuckDB holds, and files operators/write writes read through
// DuckDB's read_parquet give the values hados wrote.
//
// The values come from one deterministic table of rows (edge values,
// nulls, non-ASCII text, binary with zero bytes, dates before 1970, NaN and
// -0.0) and are compared in a canonical text form per type, so a
// difference names the row, the column and both values.
package interop
