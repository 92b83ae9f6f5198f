package operators

// SetSpillPartitions sets how many runs a spilling aggregation splits its
// groups into, for tests that need a partition too big to merge; the
// returned function restores it.
func SetSpillPartitions(n int) func() {
	old := spillPartitions
	spillPartitions = n
	return func() { spillPartitions = old }
}
