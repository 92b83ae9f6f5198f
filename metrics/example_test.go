package metrics_test

import (
	"context"
	"fmt"
	"log"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/memory"
	"github.com/hados-io/hados/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// Register a source on a fresh registry and read what one scrape yields.
// The runtime's Source snapshots its devices; here a SourceFunc returns a
// fixed snapshot.
func Example() {
	src := metrics.SourceFunc(func() metrics.Snapshot {
		return metrics.Snapshot{Devices: []metrics.DeviceSnapshot{{
			Info:      device.Info{Address: "0", Name: "soft DPU", Driver: "soft", MemoryBytes: 1 << 30},
			Telemetry: device.Telemetry{MemUsedBytes: 64 << 20},
			Pool:      memory.PoolStats{InUseBytes: 48 << 20, Limit: 1 << 30},
		}}}
	})
	reg := prometheus.NewRegistry()
	if err := metrics.Register(reg, src); err != nil {
		log.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	for _, mf := range families {
		if strings.HasPrefix(mf.GetName(), "hados_device_memory") || mf.GetName() == "hados_memory_pool_in_use_bytes" {
			fmt.Println(mf.GetName(), mf.GetMetric()[0].GetGauge().GetValue())
		}
	}
	// Output:
	// hados_device_memory_bytes 1.073741824e+09
	// hados_device_memory_peak_bytes 0
	// hados_device_memory_used_bytes 6.7108864e+07
	// hados_memory_pool_in_use_bytes 5.0331648e+07
}

// Serve a registry on the default loopback address until SIGINT or SIGTERM.
func ExampleServe() {
	reg := prometheus.NewRegistry()
	src := metrics.SourceFunc(func() metrics.Snapshot { return metrics.Snapshot{} })
	if err := metrics.Register(reg, src); err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := metrics.Serve(ctx, "", reg, func(addr string) { log.Printf("serving http://%s/metrics", addr) })
	if err != nil {
		log.Fatal(err)
	}
}
