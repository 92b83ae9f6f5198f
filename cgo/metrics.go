package main

/*
#include "hados.h"
*/
import "C"

import (
	"context"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hados-io/hados/metrics"
)

// keyMetricsEnabled turns on the runtime's Prometheus endpoint at
// hados_init (on spark.hados.metrics.listen). Off by default: an executor
// plugin binds no port unless asked, like Spark's own metrics sinks.
const keyMetricsEnabled = "spark.hados.metrics.enabled"

// metricsEndpoint is a running /metrics server; stop ends it and waits.
type metricsEndpoint struct {
	addr   string
	cancel context.CancelFunc
	done   chan error
}

// parseEnabled reads keyMetricsEnabled's value.
func parseEnabled(v string) (bool, error) {
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, invalidf("hados_init: %s = %q: want true or false", keyMetricsEnabled, v)
	}
	return on, nil
}

// startMetrics serves the runtime's metrics on the configured address and
// returns once it listens (or failed to).
func (rs *runtimeState) startMetrics() error {
	reg := prometheus.NewRegistry()
	if err := metrics.Register(reg, rs.rt); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	ep := &metricsEndpoint{cancel: cancel, done: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() {
		ep.done <- metrics.Serve(ctx, rs.rt.Config().MetricsListen, reg, func(addr string) { ready <- addr })
	}()
	select {
	case ep.addr = <-ready:
		rs.metrics = ep
		return nil
	case err := <-ep.done:
		cancel()
		return err
	}
}

// stop shuts the endpoint down.
func (ep *metricsEndpoint) stop() error {
	if ep == nil {
		return nil
	}
	ep.cancel()
	return <-ep.done
}

//export hados_metrics_address
func hados_metrics_address(rtp *C.hados_runtime, out **C.char) C.int {
	return call(func() error {
		rs, err := runtimeOf("hados_metrics_address", rtp)
		if err != nil {
			return err
		}
		if out == nil {
			return invalidf("hados_metrics_address: out is NULL")
		}
		addr := ""
		if rs.metrics != nil {
			addr = rs.metrics.addr
		}
		*out = C.CString(addr) // C memory: freed with hados_free_string
		return nil
	})
}
