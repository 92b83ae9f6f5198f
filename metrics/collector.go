package metrics

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// collector is the prometheus.Collector over a Source.
type collector struct {
	src Source
}

// NewCollector returns a collector that reads src once per Collect and emits
// the hados_device_*, hados_memory_*, hados_dma_* and hados_spill_* families as const
// metrics (docs/metrics.md lists them). Describe sends every family's descriptor,
// so a registry checks each scrape against them.
//
// The collector holds no memory of its own between scrapes and keeps no
// reference to the snapshots it reads. src must not be nil (NewCollector
// panics); Register returns an error instead.
func NewCollector(src Source) prometheus.Collector {
	if src == nil {
		panic("metrics: NewCollector called with a nil Source")
	}
	return &collector{src: src}
}

// Register registers a collector over src on reg, which the caller owns (the
// runtime injects its registry; nothing is registered on the global
// prometheus.DefaultRegisterer). Registering twice on the same registry
// fails with a prometheus.AlreadyRegisteredError in the chain.
func Register(reg prometheus.Registerer, src Source) error {
	if reg == nil {
		return errors.New("metrics: Register called with a nil Registerer")
	}
	if src == nil {
		return errors.New("metrics: Register called with a nil Source")
	}
	if err := reg.Register(NewCollector(src)); err != nil {
		return fmt.Errorf("metrics: registering the hados collector: %w", err)
	}
	return nil
}

// Describe sends the descriptor of every family.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range catalog {
		ch <- f.desc
	}
}

// Collect takes one snapshot and emits it.
//
// Device addresses label every series, so they must be unique, and must not
// be HostDevice when the snapshot has a host pool: a device whose address
// was already seen is skipped and reported as an invalid metric (the
// registry's Gather returns that error; promhttp logs it and serves the
// rest).
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Snapshot()
	e := emitter{ch: ch}
	seen := make(map[string]bool, len(s.Devices)+1)
	if s.Host != nil {
		seen[HostDevice] = true
		collectPool(e, HostDevice, s.Host)
	}
	for i := range s.Devices {
		d := &s.Devices[i]
		addr := d.Info.Address
		if seen[addr] {
			e.invalid(deviceInfo, fmt.Errorf("device address %q appears twice in the snapshot (or clashes with the host pool); device %d (%q) skipped",
				addr, i, d.Info.Name))
			continue
		}
		seen[addr] = true
		collectDevice(e, d)
		collectPool(e, addr, &d.Pool)
		collectAccounts(e, addr, d.Accounts)
		collectDMA(e, addr, &d.DMA)
		collectSpill(e, addr, d.Spill)
	}
	for _, r := range s.Race {
		e.count(raceOperators, r.Count, r.Decision, r.Operator, r.Reason)
	}
}
