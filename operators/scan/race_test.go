//go:build race

package scan

// raceEnabled trims the predicate matrix under the race detector, which
// makes decoding about ten times slower.
const raceEnabled = true
