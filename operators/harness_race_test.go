//go:build race

package operators_test

// raceEnabled: the race detector slows the device's kernels tenfold, so
// the harness runs its 65536-row batches only without it.
const raceEnabled = true
