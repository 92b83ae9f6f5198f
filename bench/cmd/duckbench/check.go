package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hados-io/hados/bench/conformance"
	duckdbh "github.com/hados-io/hados/bench/duckdb"
)

// Values of queryLine.Compare.
const (
	compareMatch    = "match"
	compareMismatch = "mismatch"
	compareError    = "error"
)

// resultFile is the name of query q's hados result in a -compare
// directory: an Arrow IPC stream.
func resultFile(q int) string { return fmt.Sprintf("q%d.arrow", q) }

// check compares DuckDB's answer to query q (the last measured run) with
// hados's result in dir, under the conformance package's rules.
func check(ctx context.Context, db *duckdbh.DB, dir string, q int, m duckdbh.Measurement) (verdict, diff string) {
	got, err := conformance.ReadIPCFile(filepath.Join(dir, resultFile(q)))
	if err != nil {
		return compareError, fmt.Sprintf("no hados result: %v", err)
	}
	names, types, err := conformance.DescribeDuckDB(ctx, db, duckdbh.TPCHQuery(q))
	if err != nil {
		return compareError, err.Error()
	}
	want, err := conformance.FromDuckDB(names, types, m.Rows)
	if err != nil {
		return compareError, err.Error()
	}
	order, err := conformance.TPCHOrder(q)
	if err != nil {
		return compareError, err.Error()
	}
	err = conformance.Compare(got, want, order)
	var mm *conformance.Mismatch
	switch {
	case err == nil:
		return compareMatch, ""
	case errors.As(err, &mm):
		return compareMismatch, mm.Error()
	}
	return compareError, err.Error()
}
