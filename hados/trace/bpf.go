package trace

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"github.com/cilium/ebpf/rlimit"

	"github.com/hados-io/hados/internal/probe"
)

// ErrNoPrivilege is wrapped when the kernel refuses eBPF: the process lacks
// CAP_BPF and CAP_PERFMON (or root), or the kernel has no uprobes.
var ErrNoPrivilege = errors.New("eBPF tracing is not permitted")

// Offsets of the argument registers of Go's internal ABI (RAX, RBX, RCX,
// RDI, RSI) in x86-64's struct pt_regs.
var argOffsets = [5]int16{80, 40, 88, 112, 104}

const eventSize = 56 // kind, timestamp, five arguments: u64 each

// program builds the uprobe program of one probe kind: it copies the five
// argument registers and a timestamp into the ring buffer.
func program(kind int, rb *ebpf.Map) (*ebpf.Program, error) {
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1), // pt_regs
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(asm.RFP, -48, asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R1, int32(kind)),
		asm.StoreMem(asm.RFP, -56, asm.R1, asm.DWord),
	}
	for j, off := range argOffsets {
		insns = append(insns,
			asm.LoadMem(asm.R1, asm.R6, off, asm.DWord),
			asm.StoreMem(asm.RFP, int16(-40+8*j), asm.R1, asm.DWord))
	}
	insns = append(insns,
		asm.LoadMapPtr(asm.R1, rb.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -eventSize),
		asm.Mov.Imm(asm.R3, eventSize),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	)
	return ebpf.NewProgram(&ebpf.ProgramSpec{Name: fmt.Sprintf("hados_probe_%d", kind), Type: ebpf.Kprobe,
		Instructions: insns, License: "Dual MIT/GPL"})
}

// Tracer holds the probes attached to one process. Close detaches them
// all; nothing stays attached after it returns.
type Tracer struct {
	rb       *ebpf.Map
	progs    []*ebpf.Program
	links    []link.Link
	reader   *ringbuf.Reader
	Attached []string // the probe symbols found and attached
	Missing  []string // probe symbols the executable does not have
}

func denied(err error) error {
	if errors.Is(err, os.ErrPermission) || errors.Is(err, ebpf.ErrNotSupported) {
		return fmt.Errorf("%w: needs root or CAP_BPF+CAP_PERFMON and a kernel with uprobes (%v)", ErrNoPrivilege, err)
	}
	return err
}

// Attach puts uprobes on every hados probe function of process pid (whose
// executable is exe, "/proc/PID/exe" when empty).
func Attach(pid int, exe string) (_ *Tracer, err error) {
	if exe == "" {
		exe = fmt.Sprintf("/proc/%d/exe", pid)
	}
	if _, err := os.Stat(exe); err != nil {
		return nil, fmt.Errorf("trace: process %d: %w", pid, err)
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, denied(fmt.Errorf("trace: memlock: %w", err))
	}
	t := &Tracer{}
	defer func() {
		if err != nil {
			t.Close()
		}
	}()
	if t.rb, err = ebpf.NewMap(&ebpf.MapSpec{Name: "hados_events", Type: ebpf.RingBuf, MaxEntries: 1 << 22}); err != nil {
		return nil, denied(fmt.Errorf("trace: ring buffer: %w", err))
	}
	ex, err := link.OpenExecutable(exe)
	if err != nil {
		return nil, fmt.Errorf("trace: %s: %w", exe, err)
	}
	var names []string
	for _, s := range probe.Symbols {
		names = append(names, s)
	}
	gooffs, _ := goOffsets(exe, names) // for stripped binaries; absent symbols stay absent
	for kind := probe.KindProgram; kind <= probe.KindLast; kind++ {
		sym := probe.Symbols[kind]
		prog, err := program(kind, t.rb)
		if err != nil {
			return nil, denied(fmt.Errorf("trace: load probe program: %w", err))
		}
		t.progs = append(t.progs, prog)
		opts := &link.UprobeOptions{PID: pid}
		l, err := ex.Uprobe(sym, prog, opts)
		if errors.Is(err, link.ErrNoSymbol) && gooffs[sym] != 0 {
			opts.Address = gooffs[sym]
			l, err = ex.Uprobe(sym, prog, opts)
		}
		if errors.Is(err, link.ErrNoSymbol) {
			t.Missing = append(t.Missing, sym)
			continue
		}
		if err != nil {
			return nil, denied(fmt.Errorf("trace: attach %s: %w", sym, err))
		}
		t.links = append(t.links, l)
		t.Attached = append(t.Attached, sym)
	}
	if len(t.links) == 0 {
		return nil, fmt.Errorf("trace: %s has none of hados's probe functions: is hados loaded in process %d?", exe, pid)
	}
	if t.reader, err = ringbuf.NewReader(t.rb); err != nil {
		return nil, fmt.Errorf("trace: ring buffer reader: %w", err)
	}
	return t, nil
}

// Close detaches every probe and frees the kernel objects. Idempotent.
func (t *Tracer) Close() error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, l := range t.links {
		errs = append(errs, l.Close())
	}
	t.links = nil
	if t.reader != nil {
		errs = append(errs, t.reader.Close())
		t.reader = nil
	}
	for _, p := range t.progs {
		errs = append(errs, p.Close())
	}
	t.progs = nil
	if t.rb != nil {
		errs = append(errs, t.rb.Close())
		t.rb = nil
	}
	return errors.Join(errs...)
}
