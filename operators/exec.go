package operators

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	hmem "github.com/hados-io/hados/memory"
)

// MinRowsPerCore keeps small batches on one core: splitting them costs more
// in submissions than it gains.
const MinRowsPerCore = 16 << 10

// upload places host bytes (a descriptor, an output spec) in device memory.
// The caller frees the returned buffer.
func (t *Target) upload(ctx context.Context, b []byte) (*hmem.Buffer, error) {
	buf, err := t.Pool.Alloc(t.Account, uint64(len(b)))
	if err != nil {
		return nil, err
	}
	if host := buf.Bytes(); host != nil {
		copy(host, b)
		return buf, nil
	}
	if err := t.DMA.Copy(ctx, dma.H2D, dma.Segment{Host: b, Dev: buf.Addr}); err != nil {
		buf.Free()
		return nil, err
	}
	return buf, nil
}

// parts splits rows into contiguous ranges, one per engine core.
func (t *Target) parts(rows int) [][2]int {
	k := max(1, min(t.cores(), (rows+MinRowsPerCore-1)/MinRowsPerCore))
	out := make([][2]int, k)
	for i := range out {
		out[i] = [2]int{rows * i / k, rows * (i + 1) / k}
	}
	return out
}

// exec runs one single-op program per part concurrently and returns each
// op's result; the first error wins.
func (t *Target) exec(ctx context.Context, ops []device.Op) ([]uint64, []error) {
	res := make([]uint64, len(ops))
	errs := make([]error, len(ops))
	run := func(i int) {
		if t.Gate != nil {
			release, err := t.Gate(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			defer release()
		}
		c, err := t.DMA.Exec(ctx, device.Program{Ops: ops[i : i+1]})
		if len(c.Results) > 0 {
			res[i] = c.Results[0]
		}
		errs[i] = err
	}
	// the first op runs in the caller's goroutine: with one op (most, when
	// a stage's tasks fill the cores) no goroutine is started at all
	var wg sync.WaitGroup
	for i := 1; i < len(ops); i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			run(i)
		}(i)
	}
	run(0)
	wg.Wait()
	return res, errs
}

func firstError(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// pipelineOp is the op running a descriptor over rows [lo, hi) into a sink.
func pipelineOp(desc *hmem.Buffer, lo, hi int, sink device.Addr) device.Op {
	return device.Op{Code: device.OpPipeline, Src: desc.Addr, Len: desc.Size,
		Args: [4]uint64{uint64(lo), uint64(hi), uint64(sink)}}
}

// isNoMemory reports a device-side capacity shortfall (retry with more).
func isNoMemory(err error) bool { return errors.Is(err, device.ErrNoMemory) }

func wrapOp(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", name, err)
}
