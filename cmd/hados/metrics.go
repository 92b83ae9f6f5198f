package main

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/hados-io/hados/metrics"
)

func metricsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "metrics", Short: "Prometheus metrics"}
	var listen string
	var exercise bool
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve /metrics for Prometheus",
		Long: `serve opens the configured devices and serves their metrics on /metrics until
interrupted. It listens on loopback (127.0.0.1:9464) unless --listen or
spark.hados.metrics.listen says otherwise.

--exercise keeps the devices busy with DMA transfers and diagnostic
programs while serving (a live feed for dashboards and scrape tests).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.runtime()
			if err != nil {
				return err
			}
			defer rt.Close()
			if listen == "" {
				listen = rt.Config().MetricsListen
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			if err := metrics.Register(reg, rt); err != nil {
				return err
			}
			if exercise {
				done := make(chan struct{})
				defer func() { <-done }()
				go func() { defer close(done); exerciseDevices(cmd.Context(), rt) }()
			}
			return metrics.Serve(cmd.Context(), listen, reg, func(addr string) {
				fmt.Fprintf(a.stderr, "serving metrics on http://%s/metrics\n", addr)
			})
		},
	}
	serve.Flags().StringVar(&listen, "listen", "", "listen address (default spark.hados.metrics.listen, 127.0.0.1:9464)")
	serve.Flags().BoolVar(&exercise, "exercise", false, "keep the devices busy with DMA transfers while serving")
	cmd.AddCommand(serve)
	return cmd
}
