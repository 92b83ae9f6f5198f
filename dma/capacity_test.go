package dma_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hados-io/hados/device"
	_ "github.com/hados-io/hados/device/soft"
	"github.com/hados-io/hados/dma"
)

// shortDevice wraps a real device: a program whose first op carries
// shortMark in Args[3] runs for real, then completes with the status the
// mark's companion Args[2] names (E_NOMEM with the needed bytes as its
// result, the way a string GATHER reports an output outgrowing its
// capacity, or another status).
type shortDevice struct{ device.Device }

const shortMark = 0x5ca1ab1e

func (d shortDevice) NewQueue(depth int) (device.Queue, error) {
	q, err := d.Device.NewQueue(depth)
	if err != nil {
		return nil, err
	}
	return &shortQueue{Queue: q, status: map[uint64]device.Status{}}, nil
}

type shortQueue struct {
	device.Queue
	mu     sync.Mutex
	status map[uint64]device.Status // by tag: the status to report
}

func (q *shortQueue) Submit(p device.Program) error {
	if len(p.Ops) > 0 && p.Ops[0].Args[3] == shortMark {
		q.mu.Lock()
		q.status[p.Tag] = device.Status(int32(p.Ops[0].Args[2]))
		q.mu.Unlock()
		p.Ops = append([]device.Op(nil), p.Ops...)
		p.Ops[0].Args = [4]uint64{}
	}
	return q.Queue.Submit(p)
}

func (q *shortQueue) Poll(dst []device.Completion, timeout time.Duration) (int, error) {
	n, err := q.Queue.Poll(dst, timeout)
	for i := 0; i < n; i++ {
		q.mu.Lock()
		st, ok := q.status[dst[i].Tag]
		delete(q.status, dst[i].Tag)
		q.mu.Unlock()
		if ok {
			dst[i].Err = &device.Error{Op: "program op 0 (gather)", Status: st, Msg: "output column 0 needs more string bytes"}
			dst[i].FailedOp = 0
		}
	}
	return n, err
}

// TestCapacityRetryIsNotAnError checks that an Exec program completing
// with E_NOMEM (an output outgrowing its capacity guess: the caller
// retries with the size the device reports) is counted as a capacity
// retry, not as an exec error, while any other failed program still is.
func TestCapacityRetryIsNotAnError(t *testing.T) {
	set, err := device.OpenString("soft:memory=8MiB")
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	eng, err := dma.New(shortDevice{set.Devices()[0]}, dma.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	buf, err := set.Devices()[0].Alloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Devices()[0].Free(buf)
	run := func(status device.Status) error {
		op := device.Op{Code: device.OpChecksum, Src: buf, Len: 4096}
		if status != 0 {
			op.Args[2], op.Args[3] = uint64(uint32(status)), shortMark
		}
		_, err := eng.Exec(ctx, device.Program{Ops: []device.Op{op}})
		return err
	}

	tests := []struct {
		name           string
		status         device.Status
		wantIs         error
		errs, capacity uint64 // the exec counters after this step
	}{
		{"ok", 0, nil, 0, 0},
		{"capacity short", -2, device.ErrNoMemory, 0, 1},
		{"capacity short again", -2, device.ErrNoMemory, 0, 2},
		{"invalid descriptor", -1, device.ErrInvalid, 1, 2},
		{"fault", -9, device.ErrFault, 2, 2},
	}
	for _, tc := range tests {
		err := run(tc.status)
		if tc.wantIs == nil && err != nil || tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
			t.Fatalf("%s: Exec returned %v, want %v", tc.name, err, tc.wantIs)
		}
		s := eng.Stats().Exec
		if s.Errors != tc.errs || s.CapacityRetries != tc.capacity {
			t.Fatalf("%s: exec errors %d, capacity retries %d; want %d, %d", tc.name, s.Errors, s.CapacityRetries, tc.errs, tc.capacity)
		}
	}
	s := eng.Stats()
	if s.Exec.Transfers != uint64(len(tests)) {
		t.Errorf("exec transfers %d, want %d", s.Exec.Transfers, len(tests))
	}
	for _, d := range []dma.DirStats{s.H2D, s.D2H, s.D2D} {
		if d.CapacityRetries != 0 || d.Errors != 0 {
			t.Errorf("a copy direction counted %+v", d)
		}
	}
}
