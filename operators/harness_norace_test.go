//go:build !race

package operators_test

// raceEnabled: see harness_race_test.go.
const raceEnabled = false
