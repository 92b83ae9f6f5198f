package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/spf13/cobra"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/operators/exchange"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/plan"
	"github.com/hados-io/hados/race/rules"
)

func runCmd(a *app) *cobra.Command {
	var warehouse, format, dev, shuffleDir, spillDir, codec string
	var stats, showMetrics bool
	var parallelism, maxFailures int
	var taskMemory, advisory string
	cmd := &cobra.Command{
		Use:   "run PLAN --warehouse DIR",
		Short: "Execute a Spark plan on the device",
		Long: `run reads a Spark physical plan (EXPLAIN FORMATTED text, or the plan IR's
JSON), converts it with RACE and executes it on the device against Parquet
tables in DIR (DIR/<table>/…, table names from the plan's scans), then prints
the result (--format table, csv or json) and what each operator did.

The plan runs as a DAG of stages split at its exchanges: map stages write
shuffle files (--shuffle-dir), broadcasts are built once per device, and each
stage runs one task per partition (a scan's files, a shuffle's reduce
partitions), --parallelism at a time, spread over the devices round robin
(--device pins them to one). A task that fails with a device error (DMA, lost
device) is tried again on another device, --max-failures times in all.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, opts, err := a.runPlan(args[0], warehouse)
			if err != nil {
				return err
			}
			res, err := rules.Run(p, opts, nil)
			if err != nil {
				return err
			}
			var decisions rules.Stats
			decisions.Record(res)
			if !res.Offloaded() {
				return fmt.Errorf("%s stays on the host (spark.hados.strategy %s): run hados explain for the reasons", p.Name, opts.Strategy)
			}
			rt, err := a.runtime()
			if err != nil {
				return err
			}
			defer rt.Close()
			env := exec.Env{Runtime: rt, Warehouse: warehouse, Device: dev, Parallelism: parallelism,
				MaxFailures: maxFailures, ShuffleDir: shuffleDir, SpillDir: spillDir}
			if env.ShuffleCodec, err = exchange.ParseCodec(codec); err != nil {
				return fmt.Errorf("--shuffle-codec: %w", err)
			}
			if taskMemory != "" {
				if env.TaskMemory, err = hados.ParseBytes(taskMemory); err != nil {
					return fmt.Errorf("--task-memory: %w", err)
				}
			}
			if advisory != "" {
				b, err := hados.ParseBytes(advisory)
				if err != nil {
					return fmt.Errorf("--advisory-partition-size: %w", err)
				}
				env.AdvisoryPartitionBytes = int64(b)
				if b == 0 {
					env.AdvisoryPartitionBytes = -1
				}
			}
			start := time.Now()
			out, err := exec.Run(cmd.Context(), env, res)
			if err != nil {
				return err
			}
			defer out.Release()
			elapsed := time.Since(start)
			w := cmd.OutOrStdout()
			if err := printRecords(w, out.Schema, out.Records, format); err != nil {
				return err
			}
			if stats && format == "table" {
				fmt.Fprintf(w, "\n%s in %v\n", p.Name, elapsed.Round(time.Microsecond))
				writeRunStats(w, out)
			}
			if showMetrics {
				fmt.Fprintln(w, "\noffload metrics (Prometheus exposition, non-zero hados_* series):")
				return writeMetrics(w, rt, &decisions)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&warehouse, "warehouse", "", "directory holding the tables (DIR/<table>/*.parquet)")
	f.StringVar(&format, "format", "table", "table, csv or json")
	f.StringVar(&dev, "device", "", "run every task on this device address (default: all devices, round robin)")
	f.IntVar(&parallelism, "parallelism", 0, "tasks running at once (default: the engine cores of all devices)")
	f.IntVar(&maxFailures, "max-failures", 0, "attempts of a task failing with a device error before the query fails (default spark.hados.task.maxFailures, 4)")
	f.StringVar(&taskMemory, "task-memory", "", "device memory quota of each task, e.g. 256MiB (default: the device's memory shared by its concurrent tasks)")
	f.StringVar(&advisory, "advisory-partition-size", "", "coalesce small shuffle partitions up to this size, 0 to keep each (default 64MiB)")
	f.StringVar(&shuffleDir, "shuffle-dir", "", "directory for shuffle files (default: the system's temporary directory)")
	f.StringVar(&spillDir, "spill-dir", "", "directory for operator spill files (default: no spilling)")
	f.StringVar(&codec, "shuffle-codec", "lz4", "shuffle block compression: lz4, snappy or none")
	f.BoolVar(&stats, "stats", true, "print per-operator statistics (table format)")
	f.BoolVar(&showMetrics, "metrics", false, "print the offload metrics after the run")
	cmd.MarkFlagRequired("warehouse")
	return cmd
}

// runPlan loads a plan for run with the planner options of the
// configuration. Spark's text leaves some columns untyped (partition
// columns, the columns of an EmptyRelation Spark's optimizer left of a
// scan it proved empty); they are typed from the warehouse's Parquet
// files (exec.WarehouseCatalog), as Spark typed them from its catalog. A
// warehouse that cannot be read types nothing here: the run reports it.
func (a *app) runPlan(path, warehouse string) (*plan.Plan, rules.Options, error) {
	p, opts, err := a.planWithOptions(path)
	if err != nil {
		return p, opts, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, opts, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if head, _ := br.Peek(1); len(head) == 1 && head[0] == '{' {
		return p, opts, nil // the IR's JSON carries its types
	}
	cat, err := exec.WarehouseCatalog(warehouse)
	if err != nil {
		return p, opts, nil
	}
	p, err = plan.ImportSparkWith(filepath.Base(path), br, plan.ImportOptions{Catalog: cat})
	return p, opts, err
}

// printRecords writes rows as a table, CSV or JSON lines.
func printRecords(w io.Writer, s *arrow.Schema, recs []arrow.Record, format string) error {
	cell := func(v any, dt arrow.DataType) any {
		switch x := v.(type) {
		case nil:
			return nil
		case int32:
			if dt.ID() == arrow.DATE32 {
				return expr.FormatDate(x)
			}
		}
		if d, ok := dt.(arrow.DecimalType); ok {
			if b, ok := v.(*big.Int); ok {
				return expr.FormatDecimal(b, int(d.GetScale()))
			}
		}
		return v
	}
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	rows := func(fn func(row []any) error) error {
		for _, r := range recs {
			for i := 0; i < int(r.NumRows()); i++ {
				row := make([]any, r.NumCols())
				for j := range row {
					row[j] = cell(expr.ValueAt(r.Column(j), i), s.Field(j).Type)
				}
				if err := fn(row); err != nil {
					return err
				}
			}
		}
		return nil
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		return rows(func(row []any) error {
			m := make(map[string]any, len(row))
			for j, v := range row {
				m[names[j]] = v
			}
			return enc.Encode(m)
		})
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write(names)
		err := rows(func(row []any) error {
			rec := make([]string, len(row))
			for j, v := range row {
				if v != nil {
					rec[j] = fmt.Sprint(v)
				}
			}
			return cw.Write(rec)
		})
		cw.Flush()
		if err == nil {
			err = cw.Error()
		}
		return err
	case "table":
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		for j, n := range names {
			if j > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, n)
		}
		fmt.Fprintln(tw)
		err := rows(func(row []any) error {
			for j, v := range row {
				if j > 0 {
					fmt.Fprint(tw, "\t")
				}
				if v == nil {
					v = "NULL"
				}
				fmt.Fprint(tw, v)
			}
			_, err := fmt.Fprintln(tw)
			return err
		})
		tw.Flush()
		return err
	}
	return fmt.Errorf("--format %q: want table, csv or json", format)
}

// writeRunStats prints what each operator and stage did, like Spark's SQL
// tab: rows, time (summed over tasks), bytes and pruned row groups.
func writeRunStats(w io.Writer, out *exec.Result) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATOR\tTASKS\tROWS IN\tROWS OUT\tBATCHES\tTIME\tBYTES\tPRUNED RG")
	for _, s := range out.Stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%v\t%d\t%d\n", s.Name, s.Tasks, s.RowsIn, s.RowsOut, s.Batches,
			s.Time.Round(time.Microsecond), s.Bytes, s.RowGroupsPruned)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tTASKS\tATTEMPTS\tTIME")
	for _, s := range out.Stages {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\n", s.Name, s.Tasks, s.Attempts, s.Time.Round(time.Microsecond))
	}
	tw.Flush()
}
