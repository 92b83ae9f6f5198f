package operators

// SetJoinBatchRows sets the least rows per hash join output batch, for
// tests of bounded output; the returned function restores it.
func SetJoinBatchRows(n int) func() {
	old := joinBatchRows
	joinBatchRows = n
	return func() { joinBatchRows = old }
}

// SetGracePartitionLimit bounds the partitions of a grace hash join, for
// tests that need a partition to partition again; the returned function
// restores it.
func SetGracePartitionLimit(n int) func() {
	old := maxGracePartitions
	maxGracePartitions = n
	return func() { maxGracePartitions = old }
}

// SetMaxBuildParts bounds the parts a hash join's build is split into
// (1: one core), for benchmarks comparing them; the returned function
// restores it.
func SetMaxBuildParts(n int) func() {
	old := maxBuildParts
	maxBuildParts = n
	return func() { maxBuildParts = old }
}

// CondInProbe reports whether the join's probe tests its condition itself
// (device.ProbeCond) instead of returning every candidate pair.
func CondInProbe(j *HashJoin) bool { return j.condInProbe() }
