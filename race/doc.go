// Package race is hados's planner layer, named after the RACE design it
// follows: Spark hands a query's physical plan to hados, which imports it
// (race/plan), checks and converts what the device supports (race/rules,
// with race/convert translating expressions into the operators' IR), and
// reports what would offload over many plans (race/qualify).
//
// The layer is pure planning: it owns no device, memory or goroutines.
// Everything it returns is plain data the executor (package hados, via the
// C ABI under Spark) consumes.
package race
