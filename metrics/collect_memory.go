package metrics

import "github.com/hados-io/hados/memory"

// Memory families: a pool (a device's, or the host staging pool) and the
// task accounts under a device pool's root.

func collectPool(e emitter, dev string, p *memory.PoolStats) {
	e.count(poolInUse, p.InUseBytes, dev)
	if p.Limit != 0 { // 0 is unlimited: no series rather than a misleading 0
		e.count(poolLimit, p.Limit, dev)
	}
	e.count(poolPeak, p.Peak, dev)
	e.count(poolSlab, p.SlabBytes, dev)
	e.count(poolLarge, p.LargeBytes, dev)
	e.value(poolBuffers, float64(p.LiveBuffers), dev)
	e.count(poolAllocs, p.Allocs, dev)
	e.count(poolFrees, p.Frees, dev)
	e.count(poolFailures, p.Failures, dev)
}

func collectAccounts(e emitter, dev string, accounts []memory.AccountStats) {
	for _, a := range mergeAccounts(accounts) {
		e.count(accountInUse, a.InUse, dev, a.Name)
		if a.Limit != 0 {
			e.count(accountLimit, a.Limit, dev, a.Name)
		}
		e.count(accountPeak, a.Peak, dev, a.Name)
		e.count(accountReservations, a.Reservations, dev, a.Name)
		e.count(accountReleases, a.Releases, dev, a.Name)
		e.count(accountQuotaExceeded, a.QuotaExceeded, dev, a.Name)
	}
}

// mergeAccounts folds accounts that share a name into one, so that each
// (device, account) series appears once: usage, counters and limits add up
// (a merged limit is unlimited if any part is), and the peak is the sum of
// the peaks, an upper bound of their joint peak. Order is first appearance;
// the input is not modified.
func mergeAccounts(accounts []memory.AccountStats) []memory.AccountStats {
	out := make([]memory.AccountStats, 0, len(accounts))
	index := make(map[string]int, len(accounts))
	for _, a := range accounts {
		i, ok := index[a.Name]
		if !ok {
			index[a.Name] = len(out)
			out = append(out, a)
			continue
		}
		m := &out[i]
		if m.Limit == 0 || a.Limit == 0 {
			m.Limit = 0
		} else {
			m.Limit += a.Limit
		}
		m.InUse += a.InUse
		m.Peak += a.Peak
		m.Reservations += a.Reservations
		m.Releases += a.Releases
		m.QuotaExceeded += a.QuotaExceeded
	}
	return out
}
