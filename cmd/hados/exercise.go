package main

import (
	"context"
	"time"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	"github.com/hados-io/hados/hados"
)

// exerciseDevices moves data to and from every device until ctx is done:
// 4 MiB each way and a checksum program every 50 ms per device.
func exerciseDevices(ctx context.Context, rt *hados.Runtime) {
	const n = 4 << 20
	host := make([]byte, n)
	for i := range host {
		host[i] = byte(i)
	}
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		for _, u := range rt.Units() {
			buf, err := u.Pool.Alloc(nil, n)
			if err != nil {
				continue
			}
			if u.DMA.Copy(ctx, dma.H2D, dma.Segment{Host: host, Dev: buf.Addr}) == nil &&
				u.DMA.Copy(ctx, dma.D2H, dma.Segment{Host: host, Dev: buf.Addr}) == nil {
				u.DMA.Exec(ctx, device.Program{Ops: []device.Op{{Code: device.OpChecksum, Src: buf.Addr, Len: n}}})
			}
			buf.Free()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
