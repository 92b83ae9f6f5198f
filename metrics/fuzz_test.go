package metrics

import (
	"testing"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/memory"
	"github.com/prometheus/client_golang/prometheus"
)

// FuzzCollect builds snapshots from arbitrary label values (device
// addresses, names, account names, codecs): Collect must never panic, and a
// Gather either succeeds or reports an error, never a malformed exposition.
func FuzzCollect(f *testing.F) {
	f.Add("0", "1", "soft", "task-1", "task-1", "none")
	f.Add("0", "0", "", "", "", "")
	f.Add("host", "\xff", "plugin:/x.so", "a\"b", "a\nb", "lz4")
	f.Fuzz(func(t *testing.T, addr0, addr1, driver, acc0, acc1, codec string) {
		dev := func(addr string) DeviceSnapshot {
			d := DeviceSnapshot{Info: device.Info{Address: addr, Driver: driver, Name: acc1},
				Pool:     memory.PoolStats{Limit: 1},
				Accounts: []memory.AccountStats{{Name: acc0, Limit: 1}, {Name: acc1, Limit: 2}}}
			d.DMA.Codec = codec
			d.Spill = []SpillStats{{Operator: acc0, Runs: 1}, {Operator: acc1, Files: 2}}
			return d
		}
		snap := Snapshot{Devices: []DeviceSnapshot{dev(addr0), dev(addr1)}, Host: &memory.PoolStats{Limit: 1},
			Race: []RaceDecision{{Decision: "fallback", Operator: acc0, Reason: acc1, Count: 1}}}
		reg := prometheus.NewPedanticRegistry()
		if err := Register(reg, fixed(snap)); err != nil {
			t.Fatal(err)
		}
		mfs, err := reg.Gather()
		if err == nil && len(mfs) != len(catalog) {
			t.Fatalf("a clean Gather returned %d families, want %d", len(mfs), len(catalog))
		}
	})
}
