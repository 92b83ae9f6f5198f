package dma

import (
	"context"
	"fmt"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"

	"github.com/hados-io/hados/device"
)

// Link compression. The host half uses the Go libraries; the device half is
// the device's compression engine (OpCompress/OpDecompress), which speaks
// the same block formats.

func compressBound(c device.Codec, n int) int {
	if c == device.CodecLZ4 {
		return lz4.CompressBlockBound(n)
	}
	return snappy.MaxEncodedLen(n)
}

func hostCompress(c device.Codec, src []byte) ([]byte, error) {
	if c == device.CodecSnappy {
		return snappy.Encode(nil, src), nil
	}
	dst := make([]byte, lz4.CompressBlockBound(len(src)))
	var comp lz4.Compressor
	n, err := comp.CompressBlock(src, dst)
	if err != nil {
		return nil, err
	}
	if n == 0 { // incompressible: lz4 reports 0
		return dst[:0], nil
	}
	return dst[:n], nil
}

func hostDecompress(c device.Codec, src, dst []byte) (int, error) {
	if c == device.CodecSnappy {
		out, err := snappy.Decode(dst, src)
		if err != nil {
			return 0, err
		}
		if len(out) > 0 && &out[0] != &dst[0] {
			return 0, fmt.Errorf("snappy: decoded %d bytes, more than the %d expected", len(out), len(dst))
		}
		return len(out), nil
	}
	return lz4.UncompressBlock(src, dst)
}

// submitCompressed moves one piece compressed on the link.
func (e *Engine) submitCompressed(ctx context.Context, f *Future, dir Direction, p piece) error {
	codec := e.opts.Codec
	if dir == H2D {
		comp, err := hostCompress(codec, p.host)
		if err != nil {
			return fmt.Errorf("dma: %v compress: %w", codec, err)
		}
		if len(comp) == 0 || uint64(len(comp)) >= p.n { // does not pay: send it as is
			return e.submit(ctx, &desc{f: f, prog: device.Program{Ops: []device.Op{copyOp(dir, p)}}, bytes: p.n, link: p.n})
		}
		scratch, err := e.opts.Scratch.Alloc(nil, uint64(len(comp)))
		if err != nil {
			return fmt.Errorf("dma: scratch for link compression: %w", err)
		}
		c := uint64(len(comp))
		d := &desc{f: f, bytes: p.n, link: c, scratch: scratch}
		d.prog.Ops = []device.Op{
			{Code: device.OpCopyH2D, Dst: scratch.Addr, Host: comp, Len: c},
			{Code: device.OpDecompress, Dst: p.dev, Src: scratch.Addr, Len: c, Args: [4]uint64{uint64(codec), p.n}},
		}
		d.post = func(cp *device.Completion) error {
			if got := cp.Results[1]; got != p.n {
				return fmt.Errorf("%w: dma: device decompressed %d bytes, want %d", device.ErrIO, got, p.n)
			}
			return nil
		}
		return e.submit(ctx, d)
	}
	bound := uint64(compressBound(codec, int(p.n)))
	scratch, err := e.opts.Scratch.Alloc(nil, bound)
	if err != nil {
		return fmt.Errorf("dma: scratch for link compression: %w", err)
	}
	comp := make([]byte, bound)
	d := &desc{f: f, bytes: p.n, scratch: scratch}
	d.prog.Ops = []device.Op{
		{Code: device.OpCompress, Dst: scratch.Addr, Src: p.dev, Len: p.n, Args: [4]uint64{uint64(codec), bound}},
		{Code: device.OpCopyD2H, Flags: device.FlagLenFromPrev, Src: scratch.Addr, Host: comp, Len: bound},
	}
	d.post = func(cp *device.Completion) error {
		c := cp.Results[0]
		if c > bound {
			return fmt.Errorf("%w: dma: device compressed %d bytes into %d, more than the %d-byte bound", device.ErrIO, p.n, c, bound)
		}
		d.link = c
		n, err := hostDecompress(codec, comp[:c], p.host)
		if err != nil || uint64(n) != p.n {
			return fmt.Errorf("%w: dma: host %v decompress of %d bytes gave %d of %d: %v", device.ErrIO, codec, c, n, p.n, err)
		}
		return nil
	}
	return e.submit(ctx, d)
}
