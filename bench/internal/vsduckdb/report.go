package vsduckdb

import (
	"testing"
	"time"
)

// ReportWall reports a comparison's median wall times as the benchmark
// metrics prefix+"hados-ms" and prefix+"duckdb-ms" (fractional
// milliseconds) and their ratio hados/DuckDB as prefix+"ratio", and returns
// the ratio. prefix tells several comparisons in one benchmark apart ("q1-");
// it may be empty.
func ReportWall(b *testing.B, prefix string, hados, duckdb time.Duration) (ratio float64) {
	ratio = hados.Seconds() / duckdb.Seconds()
	b.ReportMetric(float64(hados.Microseconds())/1e3, prefix+"hados-ms")
	b.ReportMetric(float64(duckdb.Microseconds())/1e3, prefix+"duckdb-ms")
	b.ReportMetric(ratio, prefix+"ratio")
	return ratio
}
