// Package probe holds hados's stable tracing points: tiny functions the
// runtime calls at device program completion, DMA transfer completion,
// allocation failure, offload fallback and spill. They do nothing; `hados
// trace` attaches eBPF uprobes to them in a running process (a Go binary or
// a host that loaded libhados.so) and reads their arguments from the
// registers of Go's internal ABI (integer arguments in RAX, RBX, RCX, RDI,
// RSI).
//
// Rules: each function is //go:noinline, takes only uint64 arguments, is
// called once per program or transfer (never per row), and keeps its name
// and argument order: they are an interface. A call costs a few
// nanoseconds when nobody traces; about 5 µs when a uprobe is attached.
package probe

// Event kinds, as hados trace reports them.
const (
	KindProgram       = 1
	KindDMA           = 2
	KindAllocErr      = 3
	KindFallback      = 4
	KindSpill         = 5
	KindProgramSubmit = 6
	KindDMASubmit     = 7
	KindLast          = KindDMASubmit
)

// Symbols are the probe functions' linker symbols, by kind.
var Symbols = map[int]string{
	KindProgram:       "github.com/hados-io/hados/internal/probe.ProgramDone",
	KindDMA:           "github.com/hados-io/hados/internal/probe.TransferDone",
	KindAllocErr:      "github.com/hados-io/hados/internal/probe.AllocFailed",
	KindFallback:      "github.com/hados-io/hados/internal/probe.Fallback",
	KindSpill:         "github.com/hados-io/hados/internal/probe.Spill",
	KindProgramSubmit: "github.com/hados-io/hados/internal/probe.ProgramSubmitted",
	KindDMASubmit:     "github.com/hados-io/hados/internal/probe.TransferSubmitted",
}

// ProgramSubmitted: a device program was submitted: device number, opcode
// of its first op, number of ops.
//
//go:noinline
func ProgramSubmitted(dev, opcode, ops, _, _ uint64) {}

// TransferSubmitted: a DMA transfer was submitted: device number,
// direction (as TransferDone), logical bytes.
//
//go:noinline
func TransferSubmitted(dev, dir, bytes, _, _ uint64) {}

// ProgramDone: a device program completed: device number, opcode of its
// first op, number of ops, status (0 ok), execution time in ns.
//
//go:noinline
func ProgramDone(dev, opcode, ops, status, execNs uint64) {}

// TransferDone: a DMA transfer completed: device number, direction (0 h2d,
// 1 d2h, 2 d2d, 3 exec), logical bytes, duration in ns, 1 if it failed.
//
//go:noinline
func TransferDone(dev, dir, bytes, durNs, failed uint64) {}

// AllocFailed: an allocation was refused: device number (or
// 1<<32 for host memory), bytes asked, 1 for a quota refusal, 2 for the
// device out of memory.
//
//go:noinline
func AllocFailed(dev, bytes, why, _, _ uint64) {}

// Fallback: the planner kept an operator on the host: operator code, reason
// code (stable enums of race/rules).
//
//go:noinline
func Fallback(op, reason, _, _, _ uint64) {}

// Spill: an operator spilled: device number, bytes, tier (1 host, 2 disk).
//
//go:noinline
func Spill(dev, bytes, tier, _, _ uint64) {}

// Reasons are the planner's fallback reason codes in the order the
// Fallback probe numbers them; the list only grows at the end.
var Reasons = []string{"", "unsupported-operator", "unsupported-expression", "unsupported-aggregate",
	"unsupported-data-type", "unsupported-argument-shape", "pipeline-limit", "unsupported-subquery",
	"unresolved-attribute", "disabled-by-configuration", "ansi-mode", "query-falls-back", "not-cost-effective"}

// ReasonCode numbers a reason for Fallback (0: not in the list).
func ReasonCode(reason string) uint64 {
	for i, r := range Reasons {
		if r == reason {
			return uint64(i)
		}
	}
	return 0
}
