package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hados-io/hados/hados/trace"
	"github.com/hados-io/hados/race/plan"
)

func traceCmd(a *app) *cobra.Command {
	var pid int
	var exe string
	var duration, interval time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "trace --pid PID",
		Short: "Trace a running process's device programs and DMA with eBPF",
		Long: `trace attaches eBPF uprobes to the probe functions hados exports
(internal/probe) in a running process — a Go program using hados or a host
that loaded libhados.so — and prints, every --interval, counts, bytes and
log2 latency histograms per device program kind and DMA direction, with the
slowest events. --json streams one JSON record per event instead.

It needs root (or CAP_BPF and CAP_PERFMON) and a kernel with uprobes; it
says what is missing otherwise. Probes are detached when it exits,
including on Ctrl-C.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pid <= 0 {
				return fmt.Errorf("--pid is required")
			}
			trace.FallbackOperator = func(code uint64) string { return plan.Op(code).String() }
			tr, err := trace.Attach(pid, exe)
			if err != nil {
				return err
			}
			defer tr.Close()
			out := cmd.OutOrStdout()
			if !asJSON {
				fmt.Fprintf(out, "tracing process %d: %d probes attached", pid, len(tr.Attached))
				if len(tr.Missing) > 0 {
					fmt.Fprintf(out, " (%d not present in this build)", len(tr.Missing))
				}
				fmt.Fprintln(out)
			}
			enc := json.NewEncoder(out)
			ctx := cmd.Context()
			end := time.Now().Add(duration)
			sum, since := trace.NewSummary(10), time.Now()
			next := time.Now().Add(interval)
			for ctx.Err() == nil && (duration <= 0 || time.Now().Before(end)) {
				e, ok, err := tr.Next(time.Now().Add(100 * time.Millisecond))
				if err != nil {
					return err
				}
				if ok {
					r := trace.Decode(e)
					if asJSON {
						if err := enc.Encode(r); err != nil {
							return err
						}
					} else {
						sum.Add(r)
					}
				}
				if !asJSON && time.Now().After(next) {
					fmt.Fprintf(out, "\n--- %s ---\n", time.Now().Format(time.TimeOnly))
					sum.WriteText(out, time.Since(since))
					sum, since, next = trace.NewSummary(10), time.Now(), time.Now().Add(interval)
				}
			}
			return tr.Close()
		},
	}
	f := cmd.Flags()
	f.IntVar(&pid, "pid", 0, "process to trace")
	f.StringVar(&exe, "exe", "", "its executable or the libhados.so it loaded (default /proc/PID/exe)")
	f.DurationVar(&duration, "duration", 0, "stop after this long (default: until interrupted)")
	f.DurationVar(&interval, "interval", time.Second, "print a summary this often")
	f.BoolVar(&asJSON, "json", false, "stream JSON records")
	return cmd
}
