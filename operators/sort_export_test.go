package operators

// SetSortPartitionRows sets the rows from which a sort on several cores
// partitions the order instead of merging, whatever its keys, for tests;
// the returned function restores the default.
func SetSortPartitionRows(n int) func() {
	old, oldAny := sortPartitionRows, sortPartitionAnyKey
	sortPartitionRows, sortPartitionAnyKey = n, true
	return func() { sortPartitionRows, sortPartitionAnyKey = old, oldAny }
}
