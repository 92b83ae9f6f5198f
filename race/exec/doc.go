// Package exec executes a converted plan (race/rules.Result) on a hados
// runtime: it builds device operators from the converted nodes — Parquet
// scans of the warehouse's tables, fused filters and projections, hash
// aggregations with Spark's partial/final buffers and result expressions —
// and drains the root.
//
// This first executor runs a query as one task on one device: an exchange
// is a pass-through, which keeps partial → final aggregation exact (the
// final aggregation sees every group), but not Spark's partition layout
// or parallelism across tasks; sorts, joins, limits and unions are not
// executable yet and are reported as such. The stage DAG with shuffle
// files, broadcast and tasks per partition replaces it.
package exec
