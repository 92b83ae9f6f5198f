package exec

// SetScanDicts switches the scans' dictionary output of string columns
// (scanDicts) and returns a function restoring it. Tests only; not
// concurrent-safe.
func SetScanDicts(on bool) (restore func()) {
	old := scanDicts
	scanDicts = on
	return func() { scanDicts = old }
}

// ScanDictScans is how many scans were opened with a dictionary column.
func ScanDictScans() int64 { return scanDictScans.Load() }
