// Command hados is the command line of the hados DPU offload runtime:
// device discovery (also as Spark's resource discovery script),
// diagnostics, the metrics endpoint, and the tools of later layers.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hados-io/hados/hados"
)

// Version is set at build time (-ldflags "-X main.Version=…").
var Version = "dev"

// exitError carries an exit code without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

type app struct {
	configPath string
	devices    string
	logLevel   string
	stdout     io.Writer
	stderr     io.Writer
}

func (a *app) config() (hados.Config, error) {
	cfg, err := hados.LoadConfig(a.configPath)
	if err != nil {
		return cfg, err
	}
	if a.devices != "" {
		if err := cfg.Set("spark.hados.devices", a.devices); err != nil {
			return cfg, err
		}
	}
	if a.logLevel != "" {
		if err := cfg.Set("spark.hados.log.level", a.logLevel); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

func (a *app) logger(cfg hados.Config) *slog.Logger {
	var lvl slog.Level
	lvl.UnmarshalText([]byte(cfg.LogLevel))
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: lvl}))
}

// runtime opens the configured runtime; the caller closes it.
func (a *app) runtime() (*hados.Runtime, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	return hados.Open(cfg, hados.Options{Logger: a.logger(cfg)})
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "hados",
		Short: "hados offloads query stages to DPUs",
		Long: `hados is a DPU offload runtime: it discovers and manages devices, moves columnar
data to them by DMA and runs query stages there. The default device is the
embedded software DPU.

Configuration: --config FILE (or HADOS_CONFIG) names a properties file with
spark.hados.* keys; HADOS_DEVICES or --devices selects devices, e.g.
  soft:count=2,memory=4GiB,cores=2,mode=discrete`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&a.configPath, "config", "", "configuration file (default $HADOS_CONFIG)")
	pf.StringVar(&a.devices, "devices", "", "device configuration (overrides spark.hados.devices and $HADOS_DEVICES)")
	pf.StringVar(&a.logLevel, "log-level", "", "log level: debug, info, warn, error")
	root.AddCommand(devicesCmd(a), diagCmd(a), metricsCmd(a), configCmd(a), genCmd(a), explainCmd(a), qualifyCmd(a), traceCmd(a), runCmd(a), benchCmd(a), stressCmd(a))
	return root
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr}
	root := newRoot(a)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintln(stderr, "hados:", err)
		return 1
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
