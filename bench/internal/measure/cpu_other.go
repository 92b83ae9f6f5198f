//go:build !unix

package measure

import "time"

// ProcessCPU is not available on this platform: it always returns zero.
func ProcessCPU() time.Duration { return 0 }
