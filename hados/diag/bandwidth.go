package diag

import (
	"context"
	"sort"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/hados"
)

// rounds picks how many timed transfers a size gets: enough bytes to be
// stable, bounded in time.
func rounds(size uint64, quick bool) int {
	total := uint64(1 << 30)
	if quick {
		total = 256 << 20
	}
	return int(min(max(total/size, 5), 2000))
}

// bestGBps runs fn n times and returns the best rate and the median time.
func bestGBps(size uint64, n int, fn func() error) (float64, time.Duration, error) {
	times := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, 0, err
		}
		times = append(times, time.Since(start))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return float64(size) / times[0].Seconds() / 1e9, times[len(times)/2], nil
}

// MemcpyGBps measures this machine's single-thread memcpy bandwidth for
// warm buffers of size bytes: the peer DMA bandwidth is compared against.
func MemcpyGBps(size uint64, n int) float64 {
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src)
	gbs, _, _ := bestGBps(size, n, func() error { copy(dst, src); return nil })
	return gbs
}

func bandwidth(ctx context.Context, u *hados.Unit, o *Options, r *Report) error {
	maxSize := uint64(0)
	for _, s := range o.Sizes {
		maxSize = max(maxSize, s)
	}
	maxSize = min(maxSize, u.Device.Info().MemoryBytes/4)
	a, err := u.Pool.Alloc(nil, maxSize)
	if err != nil {
		return err
	}
	defer a.Free()
	b, err := u.Pool.Alloc(nil, maxSize)
	if err != nil {
		return err
	}
	defer b.Free()
	host := make([]byte, maxSize)
	for i := range host {
		host[i] = byte(i * 7)
	}
	// warm every page on both sides once
	if err := u.DMA.Copy(ctx, dma.H2D, dma.Segment{Host: host, Dev: a.Addr}); err != nil {
		return err
	}
	if err := u.DMA.Copy(ctx, dma.H2D, dma.Segment{Host: host, Dev: b.Addr}); err != nil {
		return err
	}
	for _, size := range o.Sizes {
		if size > maxSize {
			continue
		}
		n := rounds(size, o.Quick)
		peer := MemcpyGBps(size, n)
		for _, dir := range []dma.Direction{dma.H2D, dma.D2H, dma.D2D} {
			seg := dma.Segment{Host: host[:size], Dev: a.Addr}
			if dir == dma.D2D {
				seg = dma.Segment{Dev: b.Addr, Src: a.Addr, Len: size}
			}
			gbs, med, err := bestGBps(size, n, func() error { return u.DMA.Copy(ctx, dir, seg) })
			if err != nil {
				return err
			}
			r.Bandwidth = append(r.Bandwidth, Bandwidth{Direction: dir.String(), Bytes: size, GBps: gbs,
				MemcpyGBps: peer, Ratio: gbs / peer, MicrosPerXfer: float64(med.Nanoseconds()) / 1e3})
		}
	}
	// the data survived all of it
	r.check("DMA integrity", func() (string, error) {
		comp, err := u.DMA.Exec(ctx, device.Program{Ops: []device.Op{{Code: device.OpChecksum, Src: a.Addr, Len: maxSize}}})
		if err != nil {
			return "", err
		}
		if comp.Results[0] != device.Checksum(host) {
			return "", errMismatch("device data after the bandwidth test differs from the host's")
		}
		return "checksum after bandwidth test matches", nil
	})
	return nil
}

type errMismatch string

func (e errMismatch) Error() string { return string(e) }

func queueLatency(ctx context.Context, u *hados.Unit, o *Options, r *Report) error {
	times := make([]time.Duration, 0, o.LatencySamples)
	prog := device.Program{Ops: []device.Op{{Code: device.OpNop}}}
	for i := 0; i < o.LatencySamples; i++ {
		start := time.Now()
		if _, err := u.DMA.Exec(ctx, prog); err != nil {
			return err
		}
		times = append(times, time.Since(start))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	r.QueueLatency = Latency{Samples: len(times), P50us: us(times[len(times)/2]),
		P99us: us(times[len(times)*99/100]), MaxUs: us(times[len(times)-1])}
	return nil
}
