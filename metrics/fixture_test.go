package metrics

import (
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/internal/stats"
	"github.com/hados-io/hados/memory"
)

// latency builds a histogram snapshot from observations, through the real
// stats.Histogram so the bucket layout is the runtime's.
func latency(obs ...time.Duration) stats.HistogramSnapshot {
	var h stats.Histogram
	for _, d := range obs {
		h.Observe(d)
	}
	return h.Snapshot()
}

// fixtureSnapshot is the hand-built snapshot of the golden tests: a
// host-visible soft device and a discrete plugin device, task accounts (one
// unlimited), a host staging pool, and latency histograms spread over
// several buckets.
func fixtureSnapshot() Snapshot {
	host := memory.PoolStats{Name: "host", Backing: "pinned host", SlabBytes: 8 << 20, LargeBytes: 2 << 20,
		InUseBytes: 6 << 20, LiveBuffers: 12, Allocs: 40, Frees: 28, Limit: 64 << 20, Peak: 9 << 20}
	return Snapshot{
		Host: &host,
		Race: []RaceDecision{
			{Decision: "fallback", Operator: "Window", Reason: "unsupported-operator", Count: 3},
			{Decision: "offloaded", Operator: "Filter", Count: 12},
		},
		Devices: []DeviceSnapshot{
			{
				Info: device.Info{Address: "0", Name: "soft DPU", Driver: "soft", Version: "1.0.0",
					MemoryBytes: 1 << 30, Cores: 4, Mode: device.HostVisible, ModeName: "host-visible",
					SIMD: "avx2", HugePages: "transparent", MaxQueueDepth: 64, AllocAlign: 64},
				Telemetry: device.Telemetry{MemUsedBytes: 48 << 20, MemPeakBytes: 96 << 20, Allocs: 120, Frees: 100,
					AllocFailures: 1, BytesH2D: 3 << 20, BytesD2H: 1 << 20, ProgramsSubmitted: 57,
					ProgramsCompleted: 54, ProgramsFailed: 2, OpsExecuted: 912, Busy: 1500 * time.Millisecond,
					Uptime: 90 * time.Second, Health: device.Healthy, HealthName: "ok", QueuesOpen: 2, QueueDepth: 1},
				Pool: memory.PoolStats{Name: "device 0", Backing: "device 0 (soft, host-visible)", SlabBytes: 32 << 20,
					LargeBytes: 16 << 20, InUseBytes: 40 << 20, LiveBuffers: 300, Allocs: 1000, Frees: 700,
					Failures: 3, Limit: 1 << 30, Peak: 80 << 20},
				Accounts: []memory.AccountStats{
					{Name: "task-7", Limit: 256 << 20, InUse: 24 << 20, Peak: 30 << 20, Reservations: 400, Releases: 310, QuotaExceeded: 2},
					{Name: "task-8", InUse: 16 << 20, Peak: 16 << 20, Reservations: 90, Releases: 12},
				},
				DMA: dma.Stats{Device: "0", Codec: "none",
					H2D: dma.DirStats{Transfers: 5, Programs: 5, Bytes: 3 << 20, LinkBytes: 0, ElidedBytes: 3 << 20,
						Latency: latency(800*time.Nanosecond, 3*time.Microsecond, 3*time.Microsecond, 40*time.Microsecond, 2*time.Millisecond)},
					D2H:  dma.DirStats{Transfers: 2, Programs: 2, Bytes: 1 << 20, ElidedBytes: 1 << 20, Latency: latency(5*time.Microsecond, 9*time.Microsecond)},
					D2D:  dma.DirStats{Latency: latency()},
					Exec: dma.DirStats{Transfers: 56, Programs: 56, Errors: 2, Latency: latency(100*time.Microsecond, 150*time.Microsecond, time.Second)},
				},
				Spill: []SpillStats{
					{Operator: "HashAggregate", Runs: 16, Files: 32, Bytes: 3 << 20, Rows: 90000},
					{Operator: "Sort", Runs: 4, Files: 8, Bytes: 12 << 20, Rows: 400000},
					{Operator: "Sort", Runs: 1, Files: 2, Bytes: 1 << 20, Rows: 1000}, // same operator again: summed
				},
			},
			{
				Info: device.Info{Address: "1", Name: "vendor DPU", Driver: "plugin:/opt/dpu/libdpu.so", Version: "2.3",
					MemoryBytes: 16 << 30, Cores: 16, Mode: device.Discrete, SIMD: "avx512"},
				Telemetry: device.Telemetry{MemUsedBytes: 2 << 30, MemPeakBytes: 3 << 30, Allocs: 10, Frees: 4,
					BytesH2D: 900 << 20, BytesD2H: 300 << 20, BytesD2D: 64 << 20, ProgramsSubmitted: 700,
					ProgramsCompleted: 690, ProgramsFailed: 5, OpsExecuted: 20000, Busy: 42 * time.Second,
					Uptime: 3600 * time.Second, FaultsInjected: 3, Health: device.Degraded, HealthName: "degraded",
					QueuesOpen: 4, QueueDepth: 17},
				Pool: memory.PoolStats{Name: "device 1", SlabBytes: 64 << 20, LargeBytes: 1 << 30, InUseBytes: 1100 << 20,
					LiveBuffers: 50, Allocs: 5000, Frees: 4950, Limit: 16 << 30, Peak: 3 << 30},
				Accounts: []memory.AccountStats{
					{Name: "task-9", Limit: 4 << 30, InUse: 1 << 30, Peak: 2 << 30, Reservations: 60, Releases: 40, QuotaExceeded: 1},
				},
				DMA: dma.Stats{Device: "1", Codec: "lz4", InFlight: 3, Hangs: 1,
					H2D: dma.DirStats{Transfers: 300, Programs: 310, Bytes: 900 << 20, LinkBytes: 450 << 20, Retries: 10, Errors: 1,
						Latency: latency(50*time.Microsecond, 70*time.Microsecond, 300*time.Microsecond, 3*time.Millisecond, 40*time.Second)},
					D2H: dma.DirStats{Transfers: 100, Programs: 100, Bytes: 300 << 20, LinkBytes: 120 << 20,
						Latency: latency(20*time.Microsecond, 1200*time.Microsecond)},
					D2D:  dma.DirStats{Transfers: 4, Programs: 4, Bytes: 64 << 20, LinkBytes: 64 << 20, Latency: latency(10 * time.Microsecond)},
					Exec: dma.DirStats{Transfers: 690, Programs: 695, Errors: 5, CapacityRetries: 3, Latency: latency(time.Millisecond, 2*time.Millisecond)},
				},
			},
		},
	}
}

// fixed adapts a fixed snapshot to Source.
func fixed(s Snapshot) Source { return SourceFunc(func() Snapshot { return s }) }
