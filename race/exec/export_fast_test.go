package exec

// SetKeepBudget sets how many bytes of a shuffle's map outputs stay in
// memory (keepBudget; 0 writes every output to files) and returns a
// function restoring the previous value. Tests only; not concurrent-safe.
func SetKeepBudget(n int64) (restore func()) {
	old := keepBudget
	keepBudget = n
	return func() { keepBudget = old }
}

// SetCoalesceRows sets how many rows of small shuffle records a reduce
// task concatenates into one batch (coalesceRows) and returns a function
// restoring the previous value. Tests only; not concurrent-safe.
func SetCoalesceRows(n int64) (restore func()) {
	old := coalesceRows
	coalesceRows = n
	return func() { coalesceRows = old }
}

// SetDropRequiredNotNull switches pruneNotNull for a test; the returned
// func restores it.
func SetDropRequiredNotNull(on bool) func() {
	old := dropRequiredNotNull
	dropRequiredNotNull = on
	return func() { dropRequiredNotNull = old }
}

// SetSplitBytes fixes the scan split size (fixedSplitBytes; 0: computed)
// and returns a function restoring it. Tests only; not concurrent-safe.
func SetSplitBytes(n int64) (restore func()) {
	old := fixedSplitBytes
	fixedSplitBytes = n
	return func() { fixedSplitBytes = old }
}

// SetFuseAggregates switches the fusion of a Filter/Project chain into
// the aggregation above it (fuseAggregates) and returns a function
// restoring it. Tests only; not concurrent-safe.
func SetFuseAggregates(on bool) (restore func()) {
	old := fuseAggregates
	fuseAggregates = on
	return func() { fuseAggregates = old }
}

// SetPassProjects switches pass-through projections (passProjects) and
// returns a function restoring it. Tests only; not concurrent-safe.
func SetPassProjects(on bool) (restore func()) {
	old := passProjects
	passProjects = on
	return func() { passProjects = old }
}

// PassProjectsBuilt is how many pass-through projections were built.
func PassProjectsBuilt() int64 { return passProjectsBuilt.Load() }
