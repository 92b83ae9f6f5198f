package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hados-io/hados/internal/tpchgen"
	"github.com/hados-io/hados/memory"
)

func genCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "gen", Short: "Generate benchmark data"}
	var opt tpchgen.Options
	var schema string
	var tables []string
	var quiet bool
	tpch := &cobra.Command{
		Use:   "tpch --sf SF --out DIR",
		Short: "Generate TPC-H tables as Parquet",
		Long: `tpch writes the eight TPC-H tables as Parquet files OUT/<table>/part-NNNNN.parquet,
following the TPC-H specification's cardinalities, keys and value distributions,
deterministic by seed.

--schema standard (default) uses the specification's types (bigint keys,
decimal(15,2) money, date, string); --schema spark-test uses the schema of
Spark's own approved TPC-H plans (every decimal is decimal(10,0)).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := tpchgen.ParseSchema(schema)
			if err != nil {
				return err
			}
			opt.Schema = s
			opt.Tables = tables
			if !quiet {
				opt.Progress = tpchgen.ProgressBar(a.stderr)
			}
			sum, err := tpchgen.Generate(cmd.Context(), opt)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TABLE\tROWS\tFILES\tSIZE")
			for _, t := range sum.Tables {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", t.Name, t.Rows, len(t.Files), memory.FormatBytes(uint64(t.Bytes)))
			}
			tw.Flush()
			fmt.Fprintf(cmd.OutOrStdout(), "generated TPC-H SF %g (%s schema) into %s in %.1fs\n", opt.SF, s, opt.Out, sum.Elapsed.Seconds())
			return nil
		},
	}
	f := tpch.Flags()
	f.Float64Var(&opt.SF, "sf", 0.1, "scale factor")
	f.StringVar(&opt.Out, "out", "", "output directory (required)")
	f.StringVar(&schema, "schema", "standard", "standard or spark-test")
	f.Uint64Var(&opt.Seed, "seed", 0, "random seed")
	f.IntVar(&opt.RowGroupRows, "row-group-rows", 0, "rows per Parquet row group (default 1Mi)")
	f.StringSliceVar(&tables, "tables", nil, "only these tables (default all)")
	f.BoolVar(&quiet, "quiet", false, "no progress bar")
	tpch.MarkFlagRequired("out")
	cmd.AddCommand(tpch)
	return cmd
}
