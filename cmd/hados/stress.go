package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/internal/reliability"
)

// stressDevices are the devices stress opens when neither --devices nor
// the configuration names any: the matrix's two discrete software DPUs.
const stressDevices = "soft:count=2,memory=512MiB,cores=2,mode=discrete"

// stressCmd is `hados stress`.
func stressCmd(a *app) *cobra.Command {
	var o stressOptions
	var queries, taskMemory string
	cmd := &cobra.Command{
		Use:   "stress",
		Short: "Drive concurrent TPC-H queries with faults and cancellations; check answers and leaks",
		Long: `stress generates TPC-H tables (or reads --warehouse), runs every query the
executor supports once on healthy devices for the reference answers, then for
--duration keeps --tasks queries running at once on devices with --faults
injected, cancelling some at random. It prints how many queries completed
(right answer), were retried (completed after the executor re-ran a task),
fell back (a device error naming its cause: the stage would return to the
host engine), were cancelled, or failed, with p50/p99 latency.

--faults are soft device options added to every device, e.g.
  --faults dma_error_rate=0.01,alloc_fail_rate=0.001
  --faults lost_after=5000        (the device is lost after 5000 programs)
  --faults hang_after=5000 --watchdog 200ms

It exits non-zero on a wrong answer, a failure whose error does not name a
cause, or a leak: device memory still charged, goroutines left, or files left
in the shuffle and spill directories after every query ended.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.config()
			if err != nil {
				return err
			}
			if a.devices == "" && os.Getenv("HADOS_DEVICES") == "" && cfg.Devices == device.DefaultSpec {
				cfg.Devices = stressDevices
			}
			if o.watchdog > 0 {
				cfg.Watchdog = o.watchdog
			}
			if o.queries, err = parseQueryList(queries); err != nil {
				return err
			}
			if taskMemory != "" {
				if o.taskMemory, err = hados.ParseBytes(taskMemory); err != nil {
					return fmt.Errorf("--task-memory %q: %w", taskMemory, err)
				}
			}
			o.healthy = cfg
			if o.faulty, err = withFaults(cfg, o.faults); err != nil {
				return err
			}
			s, err := runStress(cmd.Context(), o, a.logger(cfg))
			if err != nil {
				return err
			}
			s.print(cmd.OutOrStdout())
			if bad := s.problems(); len(bad) > 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "hados stress: FAILED: "+strings.Join(bad, "; "))
				return exitError{code: 1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.duration, "duration", 60*time.Second, "how long to keep queries running")
	f.IntVar(&o.tasks, "tasks", 16, "queries running at once")
	f.StringVar(&o.faults, "faults", "", "soft device fault options added to every device (dma_error_rate=P,alloc_fail_rate=P,hang_after=N,lost_after=N,seed=N)")
	f.Float64Var(&o.cancel, "cancel", 0.05, "fraction of queries cancelled at a random moment")
	f.Float64Var(&o.sf, "sf", reliability.DefaultSF, "TPC-H scale factor of the generated tables")
	f.StringVar(&o.warehouse, "warehouse", "", "read tables generated at --sf from DIR instead of generating them")
	f.StringVar(&queries, "queries", "", "comma-separated TPC-H query numbers (default: every query the executor runs)")
	f.DurationVar(&o.watchdog, "watchdog", 0, "DMA watchdog (default spark.hados.dma.watchdog)")
	f.StringVar(&taskMemory, "task-memory", "", "each task's device memory quota, e.g. 64MiB (default: the devices' memory shared by --tasks)")
	f.Int64Var(&o.seed, "seed", 1, "seed of the query mix and the cancellations")
	return cmd
}

// parseQueryList parses "1,6,14" (empty: nil, every query).
func parseQueryList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(f), "q"))
		if err != nil || n < 1 || n > 22 {
			return nil, fmt.Errorf("--queries: %q is not a TPC-H query number (1..22)", f)
		}
		out = append(out, n)
	}
	return out, nil
}
