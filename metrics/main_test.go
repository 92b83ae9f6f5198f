package metrics

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test (a Server in particular) leaves a
// goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
