package operators

// States is how many per-core states the aggregation holds.
func (h *HashAggregate) States() int { return len(h.states) }
