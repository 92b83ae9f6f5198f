package hados

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/cdev" // the "plugin" driver
	_ "github.com/hados-io/hados/device/soft" // the "soft" driver, the default
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/hados/sched"
	"github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/metrics"
	"github.com/hados-io/hados/operators/spill"
)

// Unit is one opened device with the runtime's memory pool and DMA engine
// on it. The Runtime owns its units.
type Unit struct {
	Device device.Device
	Pool   *memory.Pool
	DMA    *dma.Engine
	Sched  *sched.Scheduler // hands the device's engine cores to tasks, FIFO or FAIR
	// Spilled adds up what the tasks on the device spilled to disk (their
	// spill managers report to it); it outlives them for the metrics.
	Spilled spill.Totals
}

// Runtime is an opened hados: the devices of its configuration, a memory
// pool and a DMA engine per device, and a pinned host pool for staging.
// Open it once per process (a Spark executor); Close releases everything.
// Safe for concurrent use.
type Runtime struct {
	cfg     Config
	log     *slog.Logger
	devices *device.Set
	units   []*Unit
	host    *memory.Pool

	mu     sync.Mutex
	closed bool
}

// Options are the runtime's non-configuration dependencies.
type Options struct {
	Logger *slog.Logger // default: discards
}

// Open opens the configured devices and starts a pool and a DMA engine on
// each. On failure nothing stays open.
func Open(cfg Config, opts Options) (*Runtime, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	set, err := device.OpenString(cfg.Devices)
	if err != nil {
		return nil, err
	}
	r := &Runtime{cfg: cfg, log: log, devices: set, host: memory.NewHostPool(memory.PoolOptions{}, cfg.LockHost)}
	for _, d := range set.Devices() {
		u := &Unit{Device: d, Pool: memory.NewDevicePool(d, memory.PoolOptions{})}
		r.units = append(r.units, u) // before New: Close cleans up a half-built unit
		if u.Sched, err = sched.New(cfg.SchedMode, max(1, d.Info().Cores), cfg.SchedPools...); err != nil {
			r.Close()
			return nil, err
		}
		dopts := dma.Options{Codec: cfg.Codec, ChunkSize: cfg.ChunkSize, QueueDepth: cfg.QueueDepth, Queues: cfg.Queues,
			Retries: cfg.Retries, Watchdog: cfg.Watchdog}
		if cfg.Retries == 0 {
			dopts.Retries = -1
		}
		if cfg.Codec != device.CodecNone {
			dopts.Scratch = u.Pool
		}
		if u.DMA, err = dma.New(d, dopts); err != nil {
			r.Close()
			return nil, err
		}
		info := d.Info()
		log.Debug("device opened", "address", info.Address, "driver", info.Driver, "mode", info.ModeName,
			"memory", memory.FormatBytes(info.MemoryBytes), "cores", info.Cores, "simd", info.SIMD)
	}
	return r, nil
}

// Config is the configuration the runtime was opened with.
func (r *Runtime) Config() Config { return r.cfg }

// Logger is the runtime's logger.
func (r *Runtime) Logger() *slog.Logger { return r.log }

// Units returns the units in device address order.
func (r *Runtime) Units() []*Unit { return r.units }

// Unit returns the unit of a device address, or an error naming the range.
func (r *Runtime) Unit(address string) (*Unit, error) {
	d, err := r.devices.Get(address)
	if err != nil {
		return nil, err
	}
	for _, u := range r.units {
		if u.Device == d {
			return u, nil
		}
	}
	return nil, fmt.Errorf("%w: device %s has no unit", device.ErrInvalid, address)
}

// HostPool is the pinned host staging pool.
func (r *Runtime) HostPool() *memory.Pool { return r.host }

// Snapshot implements metrics.Source.
func (r *Runtime) Snapshot() metrics.Snapshot {
	var s metrics.Snapshot
	for _, u := range r.units {
		ds := metrics.DeviceSnapshot{Info: u.Device.Info(), Pool: u.Pool.Stats(), Accounts: u.Pool.Account().Children()}
		ds.Telemetry, _ = u.Device.Telemetry()
		if u.DMA != nil {
			ds.DMA = u.DMA.Stats()
		}
		for _, o := range u.Spilled.Snapshot() {
			ds.Spill = append(ds.Spill, metrics.SpillStats{Operator: o.Operator, Runs: uint64(o.Runs),
				Files: uint64(o.Files), Bytes: uint64(o.Bytes), Rows: uint64(o.Rows)})
		}
		s.Devices = append(s.Devices, ds)
	}
	hs := r.host.Stats()
	s.Host = &hs
	return s
}

// Close stops the DMA engines, closes the pools (reporting leaks) and the
// devices. It is idempotent.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	for _, u := range r.units {
		if u.DMA != nil {
			errs = append(errs, u.DMA.Close())
		}
		errs = append(errs, u.Pool.Close())
	}
	errs = append(errs, r.host.Close(), r.devices.Close())
	return errors.Join(errs...)
}
