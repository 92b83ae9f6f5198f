package dma

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/internal/probe"
	"github.com/hados-io/hados/internal/stats"
)

type dirStats struct {
	transfers, programs, bytes, link, elided, retries, errors, capacity atomic.Uint64
	latency                                                             stats.Histogram
}

type engineStats struct {
	h2d, d2h, d2d dirStats
	exec          dirStats
	hangs         atomic.Uint64
}

func (s *engineStats) dir(d Direction) *dirStats {
	switch d {
	case D2H:
		return &s.d2h
	case D2D:
		return &s.d2d
	}
	return &s.h2d
}

func (s *engineStats) of(f *Future) *dirStats {
	if f.exec {
		return &s.exec
	}
	return s.dir(f.dir)
}

// record accounts a finished future; f.mu is held.
func (s *engineStats) record(f *Future) {
	ds := s.of(f)
	ds.transfers.Add(1)
	ds.bytes.Add(f.bytes)
	ds.link.Add(f.link)
	ds.elided.Add(f.elided)
	switch {
	case f.err == nil:
	case capacityShortfall(f):
		ds.capacity.Add(1)
	default:
		ds.errors.Add(1)
	}
	dur := time.Since(f.start)
	ds.latency.Observe(dur)
	dir, failed := uint64(f.dir), uint64(0)
	if f.exec {
		dir = 3
	}
	if f.err != nil {
		failed = 1
	}
	probe.TransferDone(f.e.num, dir, f.bytes, uint64(dur), failed)
}

// capacityShortfall reports an Exec program that completed with E_NOMEM:
// the kernel ran and found its output (or state) bigger than the capacity
// it was given, and reported the size it needs. The caller retries with
// that size (a string GATHER or projection outgrowing its first guess) or
// spills; it is the ordinary sizing protocol, not a fault of the device
// or the link, so it is counted apart from the errors.
func capacityShortfall(f *Future) bool {
	return f.exec && errors.Is(f.err, device.ErrNoMemory)
}

// DirStats is a snapshot of one direction's counters.
type DirStats struct {
	Transfers   uint64 `json:"transfers"`
	Programs    uint64 `json:"programs"`
	Bytes       uint64 `json:"bytes"`        // logical bytes moved
	LinkBytes   uint64 `json:"link_bytes"`   // bytes that crossed the link (after compression)
	ElidedBytes uint64 `json:"elided_bytes"` // zero-copy: no transfer needed
	Retries     uint64 `json:"retries"`
	Errors      uint64 `json:"errors"`
	// CapacityRetries counts Exec programs that ended with E_NOMEM because
	// their output outgrew the capacity they were given (the caller
	// retries with the size the device reports, or spills); they are not
	// in Errors. Always 0 for the copy directions.
	CapacityRetries uint64                  `json:"capacity_retries"`
	Latency         stats.HistogramSnapshot `json:"latency"`
}

// Stats is a snapshot of an engine.
type Stats struct {
	Device   string   `json:"device"`
	Codec    string   `json:"codec"`
	H2D      DirStats `json:"h2d"`
	D2H      DirStats `json:"d2h"`
	D2D      DirStats `json:"d2d"`
	Exec     DirStats `json:"exec"` // programs run with Exec
	InFlight int64    `json:"in_flight"`
	Hangs    uint64   `json:"hangs"`
}

func (d *dirStats) snapshot() DirStats {
	return DirStats{Transfers: d.transfers.Load(), Programs: d.programs.Load(), Bytes: d.bytes.Load(),
		LinkBytes: d.link.Load(), ElidedBytes: d.elided.Load(), Retries: d.retries.Load(),
		Errors: d.errors.Load(), CapacityRetries: d.capacity.Load(), Latency: d.latency.Snapshot()}
}

// Stats returns a snapshot of the engine's counters.
func (e *Engine) Stats() Stats {
	return Stats{
		Device:   e.info.Address,
		Codec:    e.opts.Codec.String(),
		H2D:      e.stats.h2d.snapshot(),
		D2H:      e.stats.d2h.snapshot(),
		D2D:      e.stats.d2d.snapshot(),
		Exec:     e.stats.exec.snapshot(),
		InFlight: e.inflight.Load(),
		Hangs:    e.stats.hangs.Load(),
	}
}
