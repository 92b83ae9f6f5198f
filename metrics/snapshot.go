package metrics

import (
	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/memory"
)

// Snapshot is what the collectors read at scrape time: a copy of every
// layer's counters, taken by the runtime (package hados) without holding
// locks across the scrape.
type Snapshot struct {
	Devices []DeviceSnapshot
	Host    *memory.PoolStats // the pinned host staging pool, if any
	Race    []RaceDecision    // offload decisions of the planner, counted per operator
}

// RaceDecision counts operators the planner offloaded ("offloaded") or
// kept on the host ("fallback", with the reason code). The process that
// runs the planner fills it (race/rules.Stats).
type RaceDecision struct {
	Decision string
	Operator string
	Reason   string
	Count    uint64
}

// DeviceSnapshot is one device's counters.
type DeviceSnapshot struct {
	Info      device.Info
	Telemetry device.Telemetry
	Pool      memory.PoolStats      // the device memory pool (root account)
	Accounts  []memory.AccountStats // task accounts under the pool's root
	DMA       dma.Stats
	Spill     []SpillStats // what tasks on the device spilled to disk, per operator
}

// SpillStats counts the spill runs operators of one kind (Sort,
// HashAggregate, HashJoin…) wrote to local disk on a device because they
// outgrew their task's memory quota (operators/spill): runs, data and
// index files, on-disk bytes and rows.
type SpillStats struct {
	Operator string
	Runs     uint64
	Files    uint64
	Bytes    uint64
	Rows     uint64
}

// Source produces snapshots; the runtime implements it.
type Source interface {
	Snapshot() Snapshot
}

// SourceFunc adapts a function to Source.
type SourceFunc func() Snapshot

// Snapshot calls f.
func (f SourceFunc) Snapshot() Snapshot { return f() }
