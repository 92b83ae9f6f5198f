package exec

// SetRuntimeFilters switches the runtime join filters (tests, A/B
// measurements) and returns a function restoring the previous setting.
func SetRuntimeFilters(on bool) (restore func()) {
	old := runtimeFilters
	runtimeFilters = on
	return func() { runtimeFilters = old }
}
