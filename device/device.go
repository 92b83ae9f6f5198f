package device

import (
	"fmt"
	"time"
)

// Addr is a device memory address. Device addresses are not host pointers:
// the host reads or writes device memory only through DMA, or through Map on
// a host-visible device. The zero Addr is never a valid allocation.
type Addr uint64

// Mode is a device's memory mode.
type Mode uint8

const (
	// HostVisible devices let the host map device memory (Parquet pages
	// decode straight into it, results export zero-copy).
	HostVisible Mode = iota
	// Discrete devices keep their memory behind the link: every byte crosses
	// DMA, as on a PCIe card.
	Discrete
)

func (m Mode) String() string {
	switch m {
	case HostVisible:
		return "host-visible"
	case Discrete:
		return "discrete"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// Health is a device's health as its driver reports it.
type Health uint8

const (
	Healthy Health = iota
	Degraded
	Lost
)

func (h Health) String() string {
	switch h {
	case Healthy:
		return "ok"
	case Degraded:
		return "degraded"
	case Lost:
		return "lost"
	}
	return fmt.Sprintf("health(%d)", uint8(h))
}

// Info describes an opened device. It does not change while the device is
// open.
type Info struct {
	Address       string `json:"address"` // stable address "0", "1", … as Spark's resource scheduling uses them
	Name          string `json:"name"`
	Driver        string `json:"driver"` // "soft", or "plugin:/path.so"
	Version       string `json:"version"`
	MemoryBytes   uint64 `json:"memory_bytes"`
	Cores         int    `json:"cores"`
	Mode          Mode   `json:"-"`
	ModeName      string `json:"mode"`
	SIMD          string `json:"simd"`      // "avx512", "avx2" or "scalar"
	HugePages     string `json:"hugepages"` // "none", "transparent" or "hugetlb"
	Locked        bool   `json:"locked"`
	MaxQueueDepth int    `json:"max_queue_depth"`
	AllocAlign    uint64 `json:"alloc_align"`
}

// Telemetry is a snapshot of a device's counters, read at call time.
type Telemetry struct {
	MemUsedBytes      uint64        `json:"mem_used_bytes"`
	MemPeakBytes      uint64        `json:"mem_peak_bytes"`
	Allocs            uint64        `json:"allocs"`
	Frees             uint64        `json:"frees"`
	AllocFailures     uint64        `json:"alloc_failures"`
	BytesH2D          uint64        `json:"bytes_h2d"`
	BytesD2H          uint64        `json:"bytes_d2h"`
	BytesD2D          uint64        `json:"bytes_d2d"`
	ProgramsSubmitted uint64        `json:"programs_submitted"`
	ProgramsCompleted uint64        `json:"programs_completed"`
	ProgramsFailed    uint64        `json:"programs_failed"`
	OpsExecuted       uint64        `json:"ops_executed"`
	Busy              time.Duration `json:"busy_ns"`
	Uptime            time.Duration `json:"uptime_ns"`
	FaultsInjected    uint64        `json:"faults_injected"`
	Health            Health        `json:"-"`
	HealthName        string        `json:"health"`
	QueuesOpen        int           `json:"queues_open"`
	QueueDepth        int           `json:"queue_depth"`
}

// Device is an opened accelerator. All methods are safe for concurrent use.
//
// Memory from Alloc is owned by the caller until Free; Close releases every
// allocation and queue still open. After Close every method returns an
// error wrapping ErrClosed.
type Device interface {
	Info() Info
	Telemetry() (Telemetry, error)
	// Alloc allocates size bytes of device memory aligned to Info().AllocAlign.
	Alloc(size uint64) (Addr, error)
	// Free releases an allocation; freeing anything else is an error
	// wrapping ErrInvalid, never a crash.
	Free(addr Addr) error
	// Map returns host memory aliasing [addr, addr+size) on a HostVisible
	// device, and an error wrapping ErrNotSupported on a Discrete one. The
	// slice is valid until the allocation is freed or the device closed.
	Map(addr Addr, size uint64) ([]byte, error)
	// NewQueue opens a submission/completion queue admitting depth programs
	// whose completions have not been polled yet.
	NewQueue(depth int) (Queue, error)
	// SelfTest runs the driver's built-in self-test.
	SelfTest() (string, error)
	Close() error
}

// Queue is a submission/completion queue pair of a device. Submit and Poll
// may be called concurrently; Close waits for running programs, completes
// queued ones with ErrClosed and must be called exactly once (later calls
// return ErrClosed).
type Queue interface {
	// Submit hands a program to the device. The driver copies the ops; the
	// host memory they name (Op.Host) is pinned by the queue until the
	// program's completion is polled. ErrQueueFull when depth programs are
	// outstanding.
	Submit(p Program) error
	// Poll waits up to timeout for completions and writes at most len(dst)
	// of them; it returns 0 and no error when none arrived in time.
	Poll(dst []Completion, timeout time.Duration) (int, error)
	Close() error
}
