package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// peakRSS is this process's peak resident set in bytes: VmHWM from
// /proc/self/status, which (unlike getrusage's ru_maxrss) starts afresh at
// exec, so it is DuckDB's own peak and not the parent's at fork. 0 where
// /proc is unavailable.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			f := bytes.Fields(v) // "123456 kB"
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(string(f[0]), 10, 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}
