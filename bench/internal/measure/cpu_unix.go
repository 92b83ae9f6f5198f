//go:build unix

package measure

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time (user + system, all threads) the process
// has used so far; zero when the kernel does not answer.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
