package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cilium/ebpf/ringbuf"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/internal/probe"
)

// Event is one probe hit: its kind, the kernel's monotonic time in ns, and
// the probe function's five arguments.
type Event struct {
	Kind int
	Time uint64
	Args [5]uint64
}

// Next returns the next event, waiting until deadline; ok is false when the
// deadline passed first.
func (t *Tracer) Next(deadline time.Time) (e Event, ok bool, err error) {
	if t.reader == nil {
		return e, false, fmt.Errorf("trace: closed")
	}
	t.reader.SetDeadline(deadline)
	rec, err := t.reader.Read()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return e, false, nil
	}
	if errors.Is(err, ringbuf.ErrClosed) {
		return e, false, fmt.Errorf("trace: closed")
	}
	if err != nil {
		return e, false, err
	}
	if len(rec.RawSample) < eventSize {
		return e, false, fmt.Errorf("trace: short event of %d bytes", len(rec.RawSample))
	}
	b := rec.RawSample
	e.Kind = int(binary.LittleEndian.Uint64(b))
	e.Time = binary.LittleEndian.Uint64(b[8:])
	for i := range e.Args {
		e.Args[i] = binary.LittleEndian.Uint64(b[16+8*i:])
	}
	return e, true, nil
}

var dirNames = []string{"h2d", "d2h", "d2d", "exec"}

func dirName(d uint64) string {
	if d < uint64(len(dirNames)) {
		return dirNames[d]
	}
	return fmt.Sprintf("dir%d", d)
}

// Record is an event decoded for people and JSON.
type Record struct {
	Kind     string  `json:"kind"`
	Device   uint64  `json:"device"`
	What     string  `json:"what,omitempty"` // opcode, direction, reason
	Bytes    uint64  `json:"bytes,omitempty"`
	Ops      uint64  `json:"ops,omitempty"`
	Seconds  float64 `json:"seconds,omitempty"`
	Failed   bool    `json:"failed,omitempty"`
	TimeNano uint64  `json:"time_ns"`
}

// Decode turns an event into a Record.
func Decode(e Event) Record {
	a := e.Args
	r := Record{Device: a[0], TimeNano: e.Time}
	switch e.Kind {
	case probe.KindProgram:
		r.Kind, r.What, r.Ops, r.Failed = "program", device.Opcode(a[1]).String(), a[2], a[3] != 0
		r.Seconds = float64(a[4]) / 1e9
	case probe.KindDMA:
		r.Kind, r.What, r.Bytes, r.Failed = "dma", dirName(a[1]), a[2], a[4] != 0
		r.Seconds = float64(a[3]) / 1e9
	case probe.KindAllocErr:
		r.Kind, r.Bytes = "alloc_failure", a[1]
		r.What = map[uint64]string{1: "quota", 2: "device"}[a[2]]
	case probe.KindFallback:
		r.Kind, r.What = "fallback", fmt.Sprintf("%s: %s", FallbackOperator(a[0]), FallbackReason(a[1]))
		r.Device = 0
	case probe.KindProgramSubmit:
		r.Kind, r.What, r.Ops = "submit", device.Opcode(a[1]).String(), a[2]
	case probe.KindDMASubmit:
		r.Kind, r.What, r.Bytes = "dma_submit", dirName(a[1]), a[2]
	case probe.KindSpill:
		r.Kind, r.Bytes = "spill", a[1]
		r.What = map[uint64]string{1: "host", 2: "disk"}[a[2]]
	default:
		r.Kind = fmt.Sprintf("kind%d", e.Kind)
	}
	return r
}
