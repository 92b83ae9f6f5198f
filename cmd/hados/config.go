package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hados-io/hados/hados"
)

func configCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Show the configuration keys and their effective values",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.config()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "KEY\tENV\tDEFAULT\tDESCRIPTION")
			for _, k := range hados.ConfigKeys() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.Name, k.Env, k.Default, k.Doc)
			}
			tw.Flush()
			fmt.Fprintf(cmd.OutOrStdout(), "\neffective: %+v\n", cfg)
			return nil
		},
	}
}
