// Package measure holds the timing arithmetic every hados-against-DuckDB
// comparison in this module shares: the process's CPU time, and the best
// and median of a list of run times.
//
// Wall time on a machine shared with other work moves with the load; the
// process's CPU time (user + system, all threads) moves much less, so the
// comparisons report both. A comparison times a few runs of each side and
// reports the median (or the best, where the question is "how fast can it
// go"); with an odd number of runs the median is the middle run, with an
// even number the mean of the two middle runs.
//
// The package has no state and owns no memory.
package measure
