package diag

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (a DMA poller, a
// worker, a server) outlives them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
