package main

import (
	"github.com/spf13/cobra"

	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/qualify"
)

func qualifyCmd(a *app) *cobra.Command {
	var asJSON bool
	var top int
	cmd := &cobra.Command{
		Use:   "qualify DIR|FILE...",
		Short: "Report which queries of many Spark plans hados would offload",
		Long: `qualify reads Spark physical plans (EXPLAIN FORMATTED text files, or Spark event
logs where the plans are the physicalPlanDescription of SQL execution events;
directories are read recursively) and reports per query whether it is
offloaded, fully offloadable, executable with today's device operators, its
share of supported operators and its fallback reasons; then the totals and
the top reasons with counts. The configuration's planner keys apply.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.config()
			if err != nil {
				return err
			}
			opts, err := exec.PlannerOptions(cfg)
			if err != nil {
				return err
			}
			srcs, err := qualify.Read(args...)
			if err != nil {
				return err
			}
			rep := qualify.Qualify(srcs, opts)
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			return rep.WriteTable(cmd.OutOrStdout(), top)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&top, "top", 15, "top fallback reasons to list (0: all)")
	return cmd
}
