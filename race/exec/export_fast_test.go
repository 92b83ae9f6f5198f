package exec

// SetKeepBudget sets how many bytes of a shuffle's map outputs stay in
// memory (keepBudget; 0 writes every output to files) and returns a
// function restoring the previous value. Tests only; not concurrent-safe.
func SetKeepBudget(n int64) (restore func()) {
	old := keepBudget
	keepBudget = n
	return func() { keepBudget = old }
}
