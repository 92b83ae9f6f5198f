package operators

// SetPartialFlushRows sets the input rows of a flushed segment of a
// partial aggregation; the returned function restores it.
func SetPartialFlushRows(n int64) func() {
	old := partialFlushRows
	partialFlushRows = n
	return func() { partialFlushRows = old }
}

// Flushes is how many segments the aggregation flushed in its last run.
func (h *HashAggregate) Flushes() int { return h.flush.flushes }
