package metrics

import "github.com/prometheus/client_golang/prometheus"

// kind is a metric family's Prometheus type.
type kind uint8

const (
	counter kind = iota
	gauge
	histogram
)

func (k kind) String() string {
	switch k {
	case counter:
		return "counter"
	case gauge:
		return "gauge"
	}
	return "histogram"
}

// valueType maps a counter or gauge to its Prometheus value type.
func (k kind) valueType() prometheus.ValueType {
	if k == counter {
		return prometheus.CounterValue
	}
	return prometheus.GaugeValue
}

// family is one exported metric family: its name, type, variable labels and
// help text, and the descriptor built from them. Families are immutable and
// shared by every collector.
type family struct {
	name   string
	kind   kind
	labels []string
	help   string
	desc   *prometheus.Desc
}

func newFamily(name string, k kind, help string, labels ...string) *family {
	return &family{name: name, kind: k, labels: labels, help: help,
		desc: prometheus.NewDesc(name, help, labels, nil)}
}

// Label names and the fixed label values the collector emits.
const (
	labelDevice    = "device"
	labelDirection = "direction"
	labelAccount   = "account"
	labelStatus    = "status"
	labelOperator  = "operator"

	// HostDevice is the device label value of the pinned host staging pool
	// (Snapshot.Host) in the hados_memory_pool_* families.
	HostDevice = "host"
)

// The families, by layer. The catalog below lists them in the order
// docs/metrics.md documents them; Describe sends every one.
var (
	// Device: the driver's own view (device.Info, device.Telemetry).
	deviceInfo = newFamily("hados_device_info", gauge,
		"Static description of an open device; the value is always 1.",
		labelDevice, "driver", "mode", "name", "simd", "version")
	deviceMemory = newFamily("hados_device_memory_bytes", gauge,
		"Memory capacity of the device, in bytes.", labelDevice)
	deviceMemoryUsed = newFamily("hados_device_memory_used_bytes", gauge,
		"Device memory currently allocated through the driver, in bytes.", labelDevice)
	deviceMemoryPeak = newFamily("hados_device_memory_peak_bytes", gauge,
		"Highest device memory allocated through the driver since the device was opened, in bytes.", labelDevice)
	deviceAllocs = newFamily("hados_device_allocations_total", counter,
		"Device memory allocations the driver granted.", labelDevice)
	deviceFrees = newFamily("hados_device_frees_total", counter,
		"Device memory allocations the driver released.", labelDevice)
	deviceAllocFailures = newFamily("hados_device_allocation_failures_total", counter,
		"Device memory allocations the driver refused.", labelDevice)
	deviceProgramsSubmitted = newFamily("hados_device_programs_submitted_total", counter,
		"Programs submitted to the device's queues.", labelDevice)
	devicePrograms = newFamily("hados_device_programs_total", counter,
		"Programs the device finished, by status (completed or failed; failed, as the driver reports it, includes the capacity shortfalls of hados_dma_capacity_retries_total).", labelDevice, labelStatus)
	deviceOps = newFamily("hados_device_ops_total", counter,
		"Program operations the device executed.", labelDevice)
	deviceBusy = newFamily("hados_device_busy_seconds_total", counter,
		"Time the device spent executing programs, in seconds.", labelDevice)
	deviceUptime = newFamily("hados_device_uptime_seconds", gauge,
		"Time since the device was opened, in seconds.", labelDevice)
	deviceFaults = newFamily("hados_device_faults_injected_total", counter,
		"Faults injected into the device by its fault-injection hooks (tests and chaos runs).", labelDevice)
	deviceHealth = newFamily("hados_device_health", gauge,
		"Device health as the driver reports it: 0 ok, 1 degraded, 2 lost.", labelDevice)
	deviceQueues = newFamily("hados_device_queues", gauge,
		"Submission/completion queues open on the device.", labelDevice)
	deviceQueueDepth = newFamily("hados_device_queue_depth", gauge,
		"Programs waiting or running on the device, over all its queues.", labelDevice)
	deviceDMABytes = newFamily("hados_device_dma_bytes_total", counter,
		"Bytes the driver moved by DMA, by direction (h2d, d2h, d2d), in bytes.", labelDevice, labelDirection)

	// Memory: pools (per device, and the host staging pool) and the task
	// accounts under a device pool's root.
	poolInUse = newFamily("hados_memory_pool_in_use_bytes", gauge,
		"Memory charged to the pool's accounts, in bytes (device=\"host\" is the pinned host staging pool).", labelDevice)
	poolLimit = newFamily("hados_memory_pool_limit_bytes", gauge,
		"Quota of the pool's root account, in bytes; absent when unlimited.", labelDevice)
	poolPeak = newFamily("hados_memory_pool_peak_bytes", gauge,
		"Highest memory charged to the pool's accounts, in bytes.", labelDevice)
	poolSlab = newFamily("hados_memory_pool_slab_bytes", gauge,
		"Memory the pool took from its backing as slabs for small blocks, in bytes.", labelDevice)
	poolLarge = newFamily("hados_memory_pool_large_bytes", gauge,
		"Memory in live blocks above the pool's largest size class, taken from the backing directly, in bytes.", labelDevice)
	poolBuffers = newFamily("hados_memory_pool_buffers", gauge,
		"Buffers handed out by the pool and not yet freed.", labelDevice)
	poolAllocs = newFamily("hados_memory_pool_allocations_total", counter,
		"Buffers the pool handed out.", labelDevice)
	poolFrees = newFamily("hados_memory_pool_frees_total", counter,
		"Buffers returned to the pool.", labelDevice)
	poolFailures = newFamily("hados_memory_pool_failures_total", counter,
		"Pool allocations that failed (quota exceeded or backing out of memory).", labelDevice)
	accountInUse = newFamily("hados_memory_account_in_use_bytes", gauge,
		"Memory a task account holds, in bytes.", labelDevice, labelAccount)
	accountLimit = newFamily("hados_memory_account_limit_bytes", gauge,
		"Quota of a task account, in bytes; absent when unlimited.", labelDevice, labelAccount)
	accountPeak = newFamily("hados_memory_account_peak_bytes", gauge,
		"Highest memory a task account held, in bytes.", labelDevice, labelAccount)
	accountReservations = newFamily("hados_memory_account_reservations_total", counter,
		"Reservations charged to a task account.", labelDevice, labelAccount)
	accountReleases = newFamily("hados_memory_account_releases_total", counter,
		"Releases of memory reserved by a task account.", labelDevice, labelAccount)
	accountQuotaExceeded = newFamily("hados_memory_quota_exceeded_total", counter,
		"Reservations of a task account refused because they would exceed a quota (the account's or an ancestor's).",
		labelDevice, labelAccount)

	// DMA: the engine moving data between host and device (dma.Stats).
	dmaInfo = newFamily("hados_dma_codec_info", gauge,
		"Link compression codec of a device's DMA engine; the value is always 1.", labelDevice, "codec")
	dmaBytes = newFamily("hados_dma_bytes_total", counter,
		"Logical bytes the DMA engine moved (before link compression), by direction (h2d, d2h, d2d, exec), in bytes.",
		labelDevice, labelDirection)
	dmaLinkBytes = newFamily("hados_dma_link_bytes_total", counter,
		"Bytes that crossed the link (after compression), by direction, in bytes.", labelDevice, labelDirection)
	dmaElidedBytes = newFamily("hados_dma_elided_bytes_total", counter,
		"Bytes that needed no transfer because the device shares memory with the host (zero-copy), by direction, in bytes.",
		labelDevice, labelDirection)
	dmaTransfers = newFamily("hados_dma_transfers_total", counter,
		"Transfers (or Exec programs) the DMA engine finished, successful or not, by direction.",
		labelDevice, labelDirection)
	dmaPrograms = newFamily("hados_dma_programs_total", counter,
		"Device programs the DMA engine submitted, by direction.", labelDevice, labelDirection)
	dmaRetries = newFamily("hados_dma_retries_total", counter,
		"Device programs the DMA engine resubmitted after a transient I/O error, by direction.", labelDevice, labelDirection)
	dmaErrors = newFamily("hados_dma_errors_total", counter,
		"Transfers that finished with an error, by direction (not counting capacity retries).", labelDevice, labelDirection)
	dmaCapacityRetries = newFamily("hados_dma_capacity_retries_total", counter,
		"Exec programs that ended with E_NOMEM because their output outgrew the capacity they were given (a string gather or projection retried with the size the device reported, or an aggregation that spills): the normal sizing protocol, not a fault; direction is always exec.",
		labelDevice, labelDirection)
	dmaDuration = newFamily("hados_dma_transfer_duration_seconds", histogram,
		"Time from submitting a transfer to its completion, by direction, in seconds.", labelDevice, labelDirection)
	dmaInFlight = newFamily("hados_dma_in_flight", gauge,
		"Device programs the DMA engine submitted whose completions have not arrived yet.", labelDevice)
	dmaHangs = newFamily("hados_dma_hangs_total", counter,
		"Times the DMA engine's watchdog declared the device hung (a program did not complete within the watchdog time).", labelDevice)

	// Spill: operators that outgrew their task's memory quota and wrote
	// runs to local disk (operators/spill).
	spillRuns = newFamily("hados_spill_runs_total", counter,
		"Spill runs operators wrote to local disk because they outgrew their task's memory quota, by operator.",
		labelDevice, labelOperator)
	spillFiles = newFamily("hados_spill_files_total", counter,
		"Spill files (data and index) operators wrote to local disk, by operator.", labelDevice, labelOperator)
	spillBytes = newFamily("hados_spill_bytes_total", counter,
		"Bytes of spill files operators wrote to local disk (compressed, as stored), by operator, in bytes.",
		labelDevice, labelOperator)
	spillRows = newFamily("hados_spill_rows_total", counter,
		"Rows operators spilled to local disk, by operator.", labelDevice, labelOperator)

	// RACE: the planner's offload decisions.
	raceOperators = newFamily("hados_race_operators_total", counter,
		"Operators the planner offloaded to the device (decision=offloaded) or kept on the host (decision=fallback, with the reason code).",
		"decision", "operator", "reason")
)

// catalog lists every family exactly once, in documentation order.
var catalog = []*family{
	deviceInfo, deviceMemory, deviceMemoryUsed, deviceMemoryPeak,
	deviceAllocs, deviceFrees, deviceAllocFailures,
	deviceProgramsSubmitted, devicePrograms, deviceOps, deviceBusy, deviceUptime,
	deviceFaults, deviceHealth, deviceQueues, deviceQueueDepth, deviceDMABytes,

	poolInUse, poolLimit, poolPeak, poolSlab, poolLarge, poolBuffers,
	poolAllocs, poolFrees, poolFailures,
	accountInUse, accountLimit, accountPeak, accountReservations, accountReleases, accountQuotaExceeded,

	dmaInfo, dmaBytes, dmaLinkBytes, dmaElidedBytes, dmaTransfers, dmaPrograms,
	dmaRetries, dmaErrors, dmaCapacityRetries, dmaDuration, dmaInFlight, dmaHangs,

	spillRuns, spillFiles, spillBytes, spillRows,

	raceOperators,
}
