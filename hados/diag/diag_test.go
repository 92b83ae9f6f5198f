package diag_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados/diag"
	"github.com/hados-io/hados/hados/hadostest"
)

func TestDiagPasses(t *testing.T) {
	rt := hadostest.OpenDevices(t, "soft:memory=128MiB,mode=discrete;soft:memory=128MiB,mode=host-visible,simd=scalar")
	for _, u := range rt.Units() {
		var steps []string
		rep, err := diag.Run(context.Background(), u, diag.Options{Quick: true, Sizes: []uint64{4 << 10, 1 << 20},
			LatencySamples: 50, Progress: func(s string, i, n int) { steps = append(steps, s) }})
		if err != nil || !rep.Pass {
			t.Fatalf("device %s: %v %+v", u.Device.Info().Address, err, rep.Checks)
		}
		if len(rep.Checks) < 8 || len(rep.Bandwidth) != 6 || rep.QueueLatency.Samples != 50 || len(steps) != 5 {
			t.Fatalf("report: %d checks, %d bandwidths, %+v, steps %v", len(rep.Checks), len(rep.Bandwidth), rep.QueueLatency, steps)
		}
		for _, b := range rep.Bandwidth {
			if b.GBps <= 0 || b.MemcpyGBps <= 0 || b.Ratio <= 0 {
				t.Fatalf("bandwidth %+v", b)
			}
		}
		var out bytes.Buffer
		rep.WriteText(&out)
		for _, want := range []string{"PASS", "memory: walking ones", "kernel: lz4 compression", "h2d", "RATIO", "telemetry: health ok"} {
			if !strings.Contains(out.String(), want) {
				t.Fatalf("text report lacks %q:\n%s", want, out.String())
			}
		}
	}
}

func TestDiagFails(t *testing.T) {
	rt := hadostest.OpenDevices(t, "soft:memory=64MiB,dma_error_rate=1")
	rep, err := diag.Run(context.Background(), rt.Units()[0], diag.Options{Quick: true, LatencySamples: 10})
	if err == nil || rep.Pass || !errors.Is(err, device.ErrIO) {
		t.Fatalf("diag on a failing device: pass=%v err=%v", rep.Pass, err)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	if !strings.Contains(out.String(), "FAIL") {
		t.Fatalf("text report: %s", out.String())
	}
}

func TestDiagCancelled(t *testing.T) {
	rt := hadostest.OpenDevices(t, "soft:memory=64MiB")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := diag.Run(ctx, rt.Units()[0], diag.Options{Quick: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled diag: %v", err)
	}
}
