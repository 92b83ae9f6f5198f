package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (a DMA poller, a
// worker, a server) outlives them, then removes what the C host tests
// built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		removeTestFiles()
		os.Exit(code)
	}))
}
