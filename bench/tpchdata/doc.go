// Package tpchdata makes sure a directory holds TPC-H tables as Parquet
// before a benchmark or a comparison test uses them, generating them with
// hados's generator (internal/tpchgen) when they are missing.
//
// A directory DIR is complete when each of the eight tables has at least one
// file DIR/<table>/*.parquet. After generating, Ensure writes a small marker,
// DIR/.hados-tpch.json, recording the scale factor, schema and seed, so a
// later run that asks for different data fails with a clear error instead of
// timing the wrong scale factor. A complete directory without a marker (made
// by `hados gen tpch`, say) is used as it is: its provenance is the caller's
// business.
//
// Ensure writes only under DIR; the files belong to the caller, who may
// delete the directory at any time when no run is using it.
package tpchdata
