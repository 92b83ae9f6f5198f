package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/planbuilder"
	"github.com/hados-io/hados/race/rules"
)

// hadosRun is what hados did with one query.
type hadosRun struct {
	best, bestCPU time.Duration
	rows          int64
	err           error
}

// benchDevices is the software DPU for a thread count when no devices are
// configured: one engine core per thread, and memory for the scale factor.
func benchDevices(threads int, sf float64) string {
	gib := max(1, int(math.Ceil(8*sf)))
	return fmt.Sprintf("soft:cores=%d,memory=%dGiB", threads, gib)
}

// benchHados runs each query o.runs times on a runtime sized for threads
// and writes each query's last answer to dir/qN.arrow for duckbench to
// check. A query that fails is recorded, not fatal.
func benchHados(ctx context.Context, a *app, o benchOptions, threads int, queries []int, dir string) (map[int]hadosRun, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	if cfg.Devices == device.DefaultSpec {
		cfg.Devices = benchDevices(threads, o.sf)
	}
	opts, err := exec.PlannerOptions(cfg)
	if err != nil {
		return nil, err
	}
	rt, err := hados.Open(cfg, hados.Options{Logger: a.logger(cfg)})
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	out := make(map[int]hadosRun, len(queries))
	for _, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := hadosRun{best: math.MaxInt64, bestCPU: math.MaxInt64}
		for i := range o.runs {
			last := i == o.runs-1
			wall, cpu, rows, err := runTPCH(ctx, rt, opts, o.data, o.planOptions(), q, func(res *exec.Result) error {
				if !last {
					return nil
				}
				return writeResult(filepath.Join(dir, fmt.Sprintf("q%d.arrow", q)), res.Schema, res.Records)
			})
			if err != nil {
				r.err = err
				break
			}
			r.best, r.bestCPU, r.rows = min(r.best, wall), min(r.bestCPU, cpu), rows
		}
		out[q] = r
	}
	return out, nil
}

// runTPCH builds, converts and executes TPC-H query q over the standard
// schema's tables in data, timing all of it, and hands the result to keep
// before releasing it.
func runTPCH(ctx context.Context, rt *hados.Runtime, opts rules.Options, data string, po planbuilder.Options, q int,
	keep func(*exec.Result) error) (wall, cpu time.Duration, rows int64, err error) {
	cpu0, start := processCPU(), time.Now()
	p, err := planbuilder.TPCH(q, po)
	if err != nil {
		return 0, 0, 0, err
	}
	conv, err := rules.Run(p, opts, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	if !conv.Offloaded() {
		return 0, 0, 0, fmt.Errorf("RACE keeps %s on the host: run hados explain for the reasons", p.Name)
	}
	res, err := exec.Run(ctx, exec.Env{Runtime: rt, Warehouse: data}, conv)
	if err != nil {
		return 0, 0, 0, err
	}
	defer res.Release()
	wall, cpu = time.Since(start), processCPU()-cpu0
	for _, r := range res.Records {
		rows += r.NumRows()
	}
	return wall, cpu, rows, keep(res)
}

// writeResult writes records as an Arrow IPC stream file.
func writeResult(path string, schema *arrow.Schema, recs []arrow.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := ipc.NewWriter(f, ipc.WithSchema(schema))
	for _, r := range recs {
		if err = w.Write(r); err != nil {
			break
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// processCPU is the process's user plus system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is this process's peak resident set in bytes: VmHWM from
// /proc/self/status, else getrusage's ru_maxrss.
func peakRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				if f := strings.Fields(v); len(f) > 0 {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						return kb * 1024
					}
				}
			}
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss * 1024
}

// planOptions are the builder options of the benchmark's plans: the
// standard schema, joins planned for the data's scale factor (or as
// Spark's approved plans have them, --joins as-written).
func (o benchOptions) planOptions() planbuilder.Options {
	po := planbuilder.Options{Schema: tpchgen.Standard, ScaleFactor: o.sf, BroadcastThreshold: int64(o.bcastMiB * (1 << 20))}
	if o.joins == "as-written" {
		po.Joins = planbuilder.JoinsAsWritten
	}
	return po
}
