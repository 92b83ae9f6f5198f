//go:build race

package reliability

// raceEnabled: the race detector slows queries several times; the matrix
// runs fewer of them.
const raceEnabled = true
