package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/spf13/cobra"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/rules"
)

func runCmd(a *app) *cobra.Command {
	var warehouse, format, dev string
	var stats, showMetrics bool
	cmd := &cobra.Command{
		Use:   "run PLAN --warehouse DIR",
		Short: "Execute a Spark plan on the device",
		Long: `run reads a Spark physical plan (EXPLAIN FORMATTED text, or the plan IR's
JSON), converts it with RACE and executes it on the device against Parquet
tables in DIR (DIR/<table>/…, table names from the plan's scans), then prints
the result (--format table, csv or json) and what each operator did.

Today it executes scans, filters, projections and aggregations as one task on
one device; plans with sorts, joins, limits or unions are refused with a
message naming the operator.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, opts, err := a.planWithOptions(args[0])
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
			start := time.Now()
			out, err := exec.Run(cmd.Context(), exec.Env{Runtime: rt, Warehouse: warehouse, Device: dev}, res)
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
				tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "OPERATOR\tROWS IN\tROWS OUT\tBATCHES")
				for _, s := range out.Stats {
					fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", s.Name, s.RowsIn, s.RowsOut, s.Batches)
				}
				tw.Flush()
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
	f.StringVar(&dev, "device", "0", "device address to run on")
	f.BoolVar(&stats, "stats", true, "print per-operator statistics (table format)")
	f.BoolVar(&showMetrics, "metrics", false, "print the offload metrics after the run")
	cmd.MarkFlagRequired("warehouse")
	return cmd
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
