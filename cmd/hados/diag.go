package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/hados/diag"
)

func diagCmd(a *app) *cobra.Command {
	var asJSON, quick bool
	var addr string
	cmd := &cobra.Command{
		Use:   "diag",
		Short: "Run the device diagnostic",
		Long: `diag runs the full diagnostic on every configured device (or --device N):
driver self-test, memory pattern tests (walking ones, random, address in
address), kernel conformance against the Go reference, DMA bandwidth and
latency (h2d, d2h, d2d at several sizes) beside this machine's memcpy
bandwidth measured in the same run, queue latency, and telemetry.

It exits non-zero when any check fails. --json prints the reports as JSON.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.runtime()
			if err != nil {
				return err
			}
			defer rt.Close()
			units := rt.Units()
			if addr != "" {
				u, err := rt.Unit(addr)
				if err != nil {
					return err
				}
				units = []*hados.Unit{u}
			}
			out := cmd.OutOrStdout()
			var reports []*diag.Report
			failed := false
			for _, u := range units {
				opts := diag.Options{Quick: quick, Progress: progress(a, u.Device.Info().Address)}
				rep, err := diag.Run(cmd.Context(), u, opts)
				endProgress(a)
				if err != nil {
					fmt.Fprintf(a.stderr, "hados: %v\n", err)
				}
				failed = failed || !rep.Pass
				reports = append(reports, rep)
				if !asJSON {
					rep.WriteText(out)
					fmt.Fprintln(out)
				}
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(reports); err != nil {
					return err
				}
			}
			if failed {
				fmt.Fprintln(a.stderr, "hados: diagnostic FAILED")
				return exitError{2}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&quick, "quick", false, "shorter run: smaller regions, fewer samples")
	cmd.Flags().StringVar(&addr, "device", "", "only this device address")
	return cmd
}

// progress reports diagnostic steps on stderr: a rewritten line on a
// terminal, plain lines otherwise.
func progress(a *app, dev string) func(string, int, int) {
	tty := isTerminal(a.stderr)
	return func(step string, i, n int) {
		if tty {
			fmt.Fprintf(a.stderr, "\r\033[Kdevice %s [%d/%d] %s…", dev, i, n, step)
		} else {
			fmt.Fprintf(a.stderr, "device %s [%d/%d] %s\n", dev, i, n, step)
		}
	}
}

func endProgress(a *app) {
	if isTerminal(a.stderr) {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
