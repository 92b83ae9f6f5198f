// Package reliability checks hados's promise under faults: whatever the
// device does, a query returns the same rows as it does on a healthy device
// or fails with an error naming the cause, and nothing leaks — no device
// memory, no goroutine, no file.
//
// # The workload
//
// A Workload is a TPC-H warehouse generated at a small scale factor and the
// TPC-H plans of race/planbuilder converted by RACE. Reference runs each
// query once on a healthy runtime and keeps its rows, canonicalised (every
// row printed, the rows sorted, so that the order a parallel executor
// produces them in does not matter); queries the executor cannot run yet
// (exec.ErrNotExecutable) are set aside, so the list grows by itself as the
// executor learns joins and sorts. Run executes one query and compares.
//
// # Causes
//
// Classify maps an error to the Cause a host engine would act on: a device
// fault (DMA error after retries, hang, lost device, device memory or the
// task's quota exhausted, an operator the device cannot run) means the
// stage goes back to the host — a fallback, with Cause as its reason; a
// cancellation is the caller's own doing; anything else is a failure, a bug
// in hados, because it does not say what went wrong.
//
// # Checks
//
// CheckIdle says whether a runtime holds device memory or DMA programs
// after every query ended; CheckNoFiles whether scratch directories are
// empty. Goroutine leaks are found with go.uber.org/goleak.
//
// The fault matrix (matrix_test.go) and `hados stress` are built on these
// pieces; docs/RELIABILITY.md describes the fault model and the results.
//
// Everything here is safe for concurrent use once built: a Workload is
// read-only after Reference.
package reliability
