package metrics

import "github.com/hados-io/hados/dma"

// DMA families: one device's DMA engine (dma.Stats).

// Direction label values: the three copy directions and Exec programs.
const (
	dirH2D  = "h2d"
	dirD2H  = "d2h"
	dirD2D  = "d2d"
	dirExec = "exec"
)

func collectDMA(e emitter, dev string, s *dma.Stats) {
	e.value(dmaInfo, 1, dev, s.Codec)
	for _, d := range []struct {
		name string
		s    *dma.DirStats
	}{{dirH2D, &s.H2D}, {dirD2H, &s.D2H}, {dirD2D, &s.D2D}, {dirExec, &s.Exec}} {
		e.count(dmaBytes, d.s.Bytes, dev, d.name)
		e.count(dmaLinkBytes, d.s.LinkBytes, dev, d.name)
		e.count(dmaElidedBytes, d.s.ElidedBytes, dev, d.name)
		e.count(dmaTransfers, d.s.Transfers, dev, d.name)
		e.count(dmaPrograms, d.s.Programs, dev, d.name)
		e.count(dmaRetries, d.s.Retries, dev, d.name)
		e.count(dmaErrors, d.s.Errors, dev, d.name)
		e.histogram(dmaDuration, d.s.Latency, dev, d.name)
	}
	e.count(dmaCapacityRetries, s.Exec.CapacityRetries, dev, dirExec)
	e.value(dmaInFlight, float64(s.InFlight), dev)
	e.count(dmaHangs, s.Hangs, dev)
}
