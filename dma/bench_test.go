package dma_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
)

// memcpyGBs measures this machine's single-thread copy bandwidth on warm
// buffers of n bytes: the peer every DMA figure is compared against.
func memcpyGBs(n int) float64 {
	src, dst := make([]byte, n), make([]byte, n)
	copy(dst, src)
	best := 0.0
	for i := 0; i < 5; i++ {
		start := time.Now()
		copy(dst, src)
		if gbs := float64(n) / time.Since(start).Seconds() / 1e9; gbs > best {
			best = gbs
		}
	}
	return best
}

// BenchmarkBandwidth moves 64 MiB host<->device in discrete mode and reports
// GB/s and the ratio to memcpy measured in the same run.
func BenchmarkBandwidth(b *testing.B) {
	const n = 64 << 20
	for _, dir := range []dma.Direction{dma.H2D, dma.D2H} {
		b.Run(fmt.Sprintf("%s-64MiB", dir), func(b *testing.B) {
			r := newRig(b, "soft:memory=256MiB,cores=2,mode=discrete", dma.Options{})
			buf := r.buf(b, n)
			host := make([]byte, n)
			ctx := context.Background()
			r.eng.Copy(ctx, dir, dma.Segment{Host: host, Dev: buf.Addr}) // warm: fault pages in
			peer := memcpyGBs(n)
			b.SetBytes(n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := r.eng.Copy(ctx, dir, dma.Segment{Host: host, Dev: buf.Addr}); err != nil {
					b.Fatal(err)
				}
			}
			gbs := float64(n) * float64(b.N) / b.Elapsed().Seconds() / 1e9
			b.ReportMetric(gbs, "GB/s")
			b.ReportMetric(peer, "memcpy-GB/s")
			b.ReportMetric(gbs/peer, "x-memcpy")
		})
	}
}

// BenchmarkRoundTrip is the latency of one empty program: submit, the engine
// core's wake-up, the completion's poll and the caller's wake-up. Operators
// pay it once per record and per part, so it bounds how small a record can
// be before the engine idles. The peer is a Go channel round trip between
// two goroutines, measured in the same run.
func BenchmarkRoundTrip(b *testing.B) {
	for _, cores := range []int{1, 2} {
		b.Run(fmt.Sprintf("cores=%d", cores), func(b *testing.B) {
			r := newRig(b, fmt.Sprintf("soft:memory=64MiB,cores=%d", cores), dma.Options{})
			ctx := context.Background()
			prog := device.Program{Ops: []device.Op{{Code: device.OpNop}}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.eng.Exec(ctx, prog); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			ping, pong := make(chan struct{}), make(chan struct{})
			go func() {
				for range ping {
					pong <- struct{}{}
				}
			}()
			const n = 10000
			start := time.Now()
			for i := 0; i < n; i++ {
				ping <- struct{}{}
				<-pong
			}
			close(ping)
			peer := float64(time.Since(start).Nanoseconds()) / n
			b.ReportMetric(peer, "chan-ns")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/peer, "x-chan")
		})
	}
}
