package dma

import (
	"fmt"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/memory"
)

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	// Queues is the number of hardware queues (default 1). Every core of
	// the software DPU takes programs from every queue, so one queue with
	// QueueDepth programs in flight keeps all of them busy, and its one
	// poller wakes one thread per batch of completions: with a queue per
	// core, the parts of a record that ran on two cores woke two pollers
	// and two threads (fused Q6 at 2 cores took 17-19 ms with two queues,
	// 11-12 ms with one). A driver whose queues each feed one core wants
	// one per core.
	Queues int
	// QueueDepth is the number of programs in flight per queue (default 16).
	QueueDepth int
	// ChunkSize is the most bytes one program moves (default 2 MiB). Large
	// transfers are split into chunks spread over the queues; small segments
	// are gathered into one program up to this size.
	ChunkSize uint64
	// Retries is how many times a program that failed with device.ErrIO is
	// resubmitted before the transfer fails (default 3; -1 for none).
	Retries int
	// Codec compresses host<->device transfers on the link (default none).
	// It needs Scratch, the device pool for the compressed bytes.
	Codec   device.Codec
	Scratch *memory.Pool
	// Watchdog is how long a program may stay incomplete before the device
	// is declared hung: its transfers fail with device.ErrHang (default 30s).
	Watchdog time.Duration
	// PollInterval bounds how long a poller blocks in the driver, and so how
	// late the watchdog and Close notice (default 20ms).
	PollInterval time.Duration
}

func (o *Options) setDefaults(info device.Info) error {
	if o.Queues == 0 {
		o.Queues = 1
	}
	if o.QueueDepth == 0 {
		o.QueueDepth = 16
	}
	if o.MaxDepth(info) < o.QueueDepth {
		o.QueueDepth = o.MaxDepth(info)
	}
	if o.ChunkSize == 0 {
		o.ChunkSize = 2 << 20
	}
	if o.Retries == 0 {
		o.Retries = 3
	} else if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Watchdog == 0 {
		o.Watchdog = 30 * time.Second
	}
	if o.PollInterval == 0 {
		o.PollInterval = 20 * time.Millisecond
	}
	switch {
	case o.Queues < 0 || o.Queues > 256:
		return fmt.Errorf("%w: dma: %d queues (want 1..256)", device.ErrInvalid, o.Queues)
	case o.QueueDepth < 1:
		return fmt.Errorf("%w: dma: queue depth %d", device.ErrInvalid, o.QueueDepth)
	case o.ChunkSize < 4096 || o.ChunkSize > 1<<30:
		return fmt.Errorf("%w: dma: chunk size %d (want 4 KiB..1 GiB)", device.ErrInvalid, o.ChunkSize)
	case o.Watchdog < 0 || o.PollInterval < 0:
		return fmt.Errorf("%w: dma: negative watchdog or poll interval", device.ErrInvalid)
	case o.Codec != device.CodecNone && o.Codec != device.CodecLZ4 && o.Codec != device.CodecSnappy:
		return fmt.Errorf("%w: dma: unknown codec %v", device.ErrInvalid, o.Codec)
	case o.Codec != device.CodecNone && o.Scratch == nil:
		return fmt.Errorf("%w: dma: link compression (%v) needs a scratch device pool", device.ErrInvalid, o.Codec)
	}
	return nil
}

// MaxDepth is the deepest queue the device allows (1024 if it does not say).
func (o *Options) MaxDepth(info device.Info) int {
	if info.MaxQueueDepth > 0 {
		return info.MaxQueueDepth
	}
	return 1024
}
