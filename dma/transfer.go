package dma

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/internal/probe"
)

// piece is a chunk of a segment, at most ChunkSize bytes.
type piece struct {
	host []byte
	dev  device.Addr
	src  device.Addr
	n    uint64
}

func (e *Engine) validate(dir Direction, segs []Segment) ([]piece, error) {
	if dir > D2D {
		return nil, fmt.Errorf("%w: dma: unknown direction %d", device.ErrInvalid, dir)
	}
	var pieces []piece
	for i, s := range segs {
		n := s.Len
		if n == 0 {
			n = uint64(len(s.Host))
		}
		switch {
		case dir != D2D && uint64(len(s.Host)) < n:
			return nil, fmt.Errorf("%w: dma: %s segment %d: host buffer of %d bytes, length %d", device.ErrInvalid, dir, i, len(s.Host), n)
		case dir == D2D && s.Host != nil:
			return nil, fmt.Errorf("%w: dma: d2d segment %d has a host buffer", device.ErrInvalid, i)
		case dir == D2D && n == 0:
			return nil, fmt.Errorf("%w: dma: d2d segment %d has no length", device.ErrInvalid, i)
		case s.Dev == 0 || (dir == D2D && s.Src == 0):
			return nil, fmt.Errorf("%w: dma: %s segment %d: null device address", device.ErrInvalid, dir, i)
		}
		for off := uint64(0); off < n; off += e.opts.ChunkSize {
			k := min(e.opts.ChunkSize, n-off)
			p := piece{dev: s.Dev + device.Addr(off), n: k}
			if dir == D2D {
				p.src = s.Src + device.Addr(off)
			} else {
				p.host = s.Host[off : off+k : off+k]
			}
			pieces = append(pieces, p)
		}
	}
	return pieces, nil
}

// elided reports whether a host-visible device's memory at p.dev is the
// very memory of p.host, so that nothing needs to move (zero-copy).
func (e *Engine) elided(p piece) bool {
	if e.info.Mode != device.HostVisible || p.host == nil {
		return false
	}
	m, err := e.dev.Map(p.dev, p.n)
	return err == nil && len(m) > 0 && unsafe.SliceData(m) == unsafe.SliceData(p.host)
}

// Submit starts a transfer of the segments in one direction and returns its
// Future. Invalid segments are an error here; device errors arrive through
// the Future. Submit blocks while every queue is full; ctx cancels the
// submission of the remaining chunks (those already submitted finish, and
// the Future's error is ctx's).
func (e *Engine) Submit(ctx context.Context, dir Direction, segs ...Segment) (*Future, error) {
	pieces, err := e.validate(dir, segs)
	if err != nil {
		return nil, err
	}
	if err := e.usable(); err != nil {
		return nil, err
	}
	f := e.newFuture(dir)
	var total uint64
	for _, p := range pieces {
		total += p.n
	}
	probe.TransferSubmitted(e.num, uint64(dir), total, 0, 0)
	var batch []piece
	var batchBytes uint64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		d := &desc{f: f}
		for _, p := range batch {
			d.prog.Ops = append(d.prog.Ops, copyOp(dir, p))
			d.bytes += p.n
		}
		d.link = d.bytes
		batch, batchBytes = batch[:0], 0
		return e.submit(ctx, d)
	}
	for _, p := range pieces {
		if err = ctx.Err(); err != nil {
			break
		}
		if e.elided(p) {
			f.mu.Lock()
			f.elided += p.n
			f.mu.Unlock()
			continue
		}
		if e.opts.Codec != device.CodecNone && dir != D2D {
			if err = flush(); err != nil {
				break
			}
			if err = e.submitCompressed(ctx, f, dir, p); err != nil {
				break
			}
			continue
		}
		if batchBytes+p.n > e.opts.ChunkSize {
			if err = flush(); err != nil {
				break
			}
		}
		batch = append(batch, p)
		batchBytes += p.n
	}
	if err == nil {
		err = flush()
	}
	f.seal(err)
	return f, nil
}

func copyOp(dir Direction, p piece) device.Op {
	switch dir {
	case H2D:
		return device.Op{Code: device.OpCopyH2D, Dst: p.dev, Host: p.host, Len: p.n}
	case D2H:
		return device.Op{Code: device.OpCopyD2H, Src: p.dev, Host: p.host, Len: p.n}
	default:
		return device.Op{Code: device.OpCopyD2D, Dst: p.dev, Src: p.src, Len: p.n}
	}
}

// Copy runs a transfer to the end. If ctx is cancelled it stops submitting,
// waits for what is in flight (so the host memory is free again when it
// returns) and returns ctx's error.
func (e *Engine) Copy(ctx context.Context, dir Direction, segs ...Segment) error {
	f, err := e.Submit(ctx, dir, segs...)
	if err != nil {
		return err
	}
	err = f.Wait(ctx)
	<-f.Done()
	if err == nil {
		err = f.Err()
	}
	return err
}

// Exec runs one device program (kernels, diagnostics) on the engine's
// queues with the watchdog, and returns its completion. Programs are not
// retried: a kernel need not be idempotent. The program's host memory is in
// use until Exec returns.
func (e *Engine) Exec(ctx context.Context, prog device.Program) (device.Completion, error) {
	if err := e.usable(); err != nil {
		return device.Completion{}, err
	}
	f := e.newFuture(H2D)
	f.exec = true
	d := &desc{f: f, prog: device.Program{Ops: prog.Ops}, noRetry: true}
	f.seal(e.submit(ctx, d))
	<-f.Done() // a single short program: wait for it even on cancellation
	f.mu.Lock()
	c := f.completion
	f.mu.Unlock()
	c.Tag = prog.Tag // the caller's tag, not the engine's sequence number
	if err := f.Err(); err != nil {
		return c, err
	}
	if c.Err != nil {
		return c, c.Err
	}
	return c, nil
}
