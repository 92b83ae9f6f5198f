package metrics

// Device families: the driver's view of one device (device.Info and
// device.Telemetry).

// Label values of hados_device_programs_total.
const (
	statusCompleted = "completed"
	statusFailed    = "failed"
)

func collectDevice(e emitter, d *DeviceSnapshot) {
	info, t, addr := &d.Info, &d.Telemetry, d.Info.Address
	mode := info.ModeName
	if mode == "" {
		mode = info.Mode.String()
	}
	e.value(deviceInfo, 1, addr, info.Driver, mode, info.Name, info.SIMD, info.Version)
	e.count(deviceMemory, info.MemoryBytes, addr)
	e.count(deviceMemoryUsed, t.MemUsedBytes, addr)
	e.count(deviceMemoryPeak, t.MemPeakBytes, addr)
	e.count(deviceAllocs, t.Allocs, addr)
	e.count(deviceFrees, t.Frees, addr)
	e.count(deviceAllocFailures, t.AllocFailures, addr)
	e.count(deviceProgramsSubmitted, t.ProgramsSubmitted, addr)
	e.count(devicePrograms, t.ProgramsCompleted, addr, statusCompleted)
	e.count(devicePrograms, t.ProgramsFailed, addr, statusFailed)
	e.count(deviceOps, t.OpsExecuted, addr)
	e.value(deviceBusy, t.Busy.Seconds(), addr)
	e.value(deviceUptime, t.Uptime.Seconds(), addr)
	e.count(deviceFaults, t.FaultsInjected, addr)
	e.count(deviceHealth, uint64(t.Health), addr)
	e.value(deviceQueues, float64(t.QueuesOpen), addr)
	e.value(deviceQueueDepth, float64(t.QueueDepth), addr)
	e.count(deviceDMABytes, t.BytesH2D, addr, dirH2D)
	e.count(deviceDMABytes, t.BytesD2H, addr, dirD2H)
	e.count(deviceDMABytes, t.BytesD2D, addr, dirD2D)
}
