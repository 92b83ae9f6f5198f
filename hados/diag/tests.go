package diag

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/golang/snappy"
	"github.com/pierrec/lz4/v4"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/memory"
)

func op(code device.Opcode, dst, src device.Addr, n uint64, args ...uint64) device.Op {
	o := device.Op{Code: code, Dst: dst, Src: src, Len: n}
	copy(o.Args[:], args)
	return o
}

func exec(ctx context.Context, u *hados.Unit, ops ...device.Op) (device.Completion, error) {
	return u.DMA.Exec(ctx, device.Program{Ops: ops})
}

// memoryPatterns writes and checks walking ones, random and
// address-in-address patterns over a region on the device, and reads one
// pattern back to the host to check it against the Go reference.
func memoryPatterns(ctx context.Context, u *hados.Unit, o *Options, r *Report) error {
	n := o.PatternBytes
	buf, err := u.Pool.Alloc(nil, n)
	if err != nil {
		return err
	}
	defer buf.Free()
	names := []string{"walking ones", "random", "address in address"}
	for kind := device.PatternWalkingOnes; kind <= device.PatternAddress; kind++ {
		seed := uint64(0x5eed) + kind
		r.check("memory: "+names[kind], func() (string, error) {
			if _, err := exec(ctx, u, op(device.OpPatternWrite, buf.Addr, 0, n, kind, seed),
				op(device.OpPatternCheck, 0, buf.Addr, n, kind, seed)); err != nil {
				return "", err
			}
			return fmt.Sprintf("%s written and verified on the device", memory.FormatBytes(n)), nil
		})
	}
	r.check("memory: host readback", func() (string, error) {
		m := min(n, 4<<20)
		if _, err := exec(ctx, u, op(device.OpPatternWrite, buf.Addr, 0, m, device.PatternRandom, 77)); err != nil {
			return "", err
		}
		host := make([]byte, m)
		if err := u.DMA.Copy(ctx, dma.D2H, dma.Segment{Host: host, Dev: buf.Addr}); err != nil {
			return "", err
		}
		for i := uint64(0); i < m/8; i++ {
			if got, want := binary.LittleEndian.Uint64(host[8*i:]), device.PatternWord(device.PatternRandom, i, 77, uint64(buf.Addr)); got != want {
				return "", fmt.Errorf("word at device address 0x%x reads %#x, want %#x", uint64(buf.Addr)+8*i, got, want)
			}
		}
		return fmt.Sprintf("%s of a device pattern match the Go reference", memory.FormatBytes(m)), nil
	})
	return nil
}

// kernelConformance compares every data kernel with its Go reference on
// random data, including the compression engine against the Go codecs.
func kernelConformance(ctx context.Context, u *hados.Unit, _ *Options, r *Report) error {
	const n = 1<<20 + 13
	// text-like data: random words from a small vocabulary (compressible,
	// not trivially)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"lineitem", "orders", "1995-03-15", "BUILDING", "0.05", "furiously", "regular", "deposits", "|"}
	data := make([]byte, 0, n+16)
	for len(data) < n {
		data = append(data, words[rng.IntN(len(words))]...)
		data = append(data, ' ')
	}
	data = data[:n]
	bound := uint64(lz4.CompressBlockBound(n) + 64)
	a, err := u.Pool.Alloc(nil, n)
	if err != nil {
		return err
	}
	defer a.Free()
	b, err := u.Pool.Alloc(nil, bound)
	if err != nil {
		return err
	}
	defer b.Free()
	c, err := u.Pool.Alloc(nil, n)
	if err != nil {
		return err
	}
	defer c.Free()
	if err := u.DMA.Copy(ctx, dma.H2D, dma.Segment{Host: data, Dev: a.Addr}); err != nil {
		return err
	}
	r.check("kernel: checksum", func() (string, error) {
		for _, k := range []uint64{0, 1, 7, 63, 4096, n} {
			comp, err := exec(ctx, u, op(device.OpChecksum, 0, a.Addr, k))
			if err != nil {
				return "", err
			}
			if want := device.Checksum(data[:k]); comp.Results[0] != want {
				return "", fmt.Errorf("%d bytes: device %#x, reference %#x", k, comp.Results[0], want)
			}
		}
		return "6 lengths match the Go reference", nil
	})
	r.check("kernel: fill, copy, compare", func() (string, error) {
		host := make([]byte, 1000)
		if _, err := exec(ctx, u, op(device.OpFill, c.Addr, 0, 1000, 0xA5A5A5A5A5A5A5A5),
			op(device.OpCopyD2D, b.Addr, c.Addr, 1000), op(device.OpCompare, b.Addr, c.Addr, 1000),
			device.Op{Code: device.OpCopyD2H, Src: b.Addr, Host: host, Len: 1000}); err != nil {
			return "", err
		}
		if !bytes.Equal(host, bytes.Repeat([]byte{0xA5}, 1000)) {
			return "", fmt.Errorf("filled memory reads back wrong")
		}
		return "fill → copy → compare → readback ok", nil
	})
	for _, codec := range []device.Codec{device.CodecLZ4, device.CodecSnappy} {
		r.check("kernel: "+codec.String()+" compression", func() (string, error) {
			comp, err := exec(ctx, u, op(device.OpCompress, b.Addr, a.Addr, n, uint64(codec), bound))
			if err != nil {
				return "", err
			}
			clen := comp.Results[0]
			if _, err := exec(ctx, u, op(device.OpDecompress, c.Addr, b.Addr, clen, uint64(codec), n),
				op(device.OpCompare, c.Addr, a.Addr, n)); err != nil {
				return "", err
			}
			host := make([]byte, clen)
			if err := u.DMA.Copy(ctx, dma.D2H, dma.Segment{Host: host, Dev: b.Addr}); err != nil {
				return "", err
			}
			out := make([]byte, n)
			var got int
			if codec == device.CodecLZ4 {
				got, err = lz4.UncompressBlock(host, out)
			} else {
				var dec []byte
				dec, err = snappy.Decode(out, host)
				got = len(dec)
			}
			if err != nil || got != n || !bytes.Equal(out, data) {
				return "", fmt.Errorf("the Go %s library cannot decode the device's output (%v)", codec, err)
			}
			return fmt.Sprintf("%s → %s (%.1fx), round trip and Go interop ok", memory.FormatBytes(n),
				memory.FormatBytes(clen), float64(n)/float64(clen)), nil
		})
	}
	return nil
}
