package operators

// SetPassBatches switches FilterProject's pass-through of batches its
// condition cannot narrow; it returns the restore function.
func SetPassBatches(on bool) func() {
	old := passBatches
	passBatches = on
	return func() { passBatches = old }
}
