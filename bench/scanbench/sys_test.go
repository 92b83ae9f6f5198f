package scanbench

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// loadAvg reads /proc/loadavg (zeros where it is missing).
func loadAvg() (one, five, fifteen float64) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, 0, 0
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0, 0, 0
	}
	one, _ = strconv.ParseFloat(f[0], 64)
	five, _ = strconv.ParseFloat(f[1], 64)
	fifteen, _ = strconv.ParseFloat(f[2], 64)
	return one, five, fifteen
}

func numCPU() int { return runtime.NumCPU() }
