package duckdbh

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hados-io/hados/bench/internal/measure"
)

// Measurement is what Measure reports about one query.
type Measurement struct {
	// Best and Median are wall times over the runs.
	Best, Median time.Duration
	// BestCPU and MedianCPU are the process's CPU time (user + system, all
	// threads) over the same runs; on a busy machine they move much less
	// than wall time. Zero where the platform cannot report CPU time.
	BestCPU, MedianCPU time.Duration
	// Wall lists every run's wall time in run order.
	Wall []time.Duration
	// Rows are the last run's rows, normalised (see Normalize); Columns
	// are their names.
	Rows    [][]any
	Columns []string
}

// Time runs query runs times one after another and returns the best and the
// median wall time, and the last run's rows, normalised (see Normalize).
//
// Each timing covers executing the query and reading every result row
// through database/sql; normalising the rows is done once, after the last
// run, outside the timings. With an even number of runs the median is the
// mean of the two middle timings. runs must be at least 1.
func (db *DB) Time(query string, runs int) (best, median time.Duration, rows [][]any, err error) {
	m, err := db.Measure(context.Background(), query, runs)
	if err != nil {
		return 0, 0, nil, err
	}
	return m.Best, m.Median, m.Rows, nil
}

// Measure is Time with a context, reporting CPU time and every run as well.
func (db *DB) Measure(ctx context.Context, query string, runs int) (Measurement, error) {
	if runs < 1 {
		return Measurement{}, fmt.Errorf("duckdbh: runs must be >= 1, got %d", runs)
	}
	wall := make([]time.Duration, 0, runs)
	cpu := make([]time.Duration, 0, runs)
	var last *rawResult
	for range runs {
		cpu0, start := measure.ProcessCPU(), time.Now()
		res, err := db.fetch(ctx, query)
		if err != nil {
			return Measurement{}, err
		}
		wall = append(wall, time.Since(start))
		cpu = append(cpu, measure.ProcessCPU()-cpu0)
		last = res
	}
	rows, err := last.normalize()
	if err != nil {
		return Measurement{}, fmt.Errorf("duckdbh: query %s: %w", abbreviate(query), err)
	}
	m := Measurement{Wall: slices.Clone(wall), Rows: rows, Columns: last.names}
	m.Best, m.Median = measure.BestAndMedian(wall)
	m.BestCPU, m.MedianCPU = measure.BestAndMedian(cpu)
	return m, nil
}
