package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hados-io/hados/memory"
)

// sparkDiscovery is the JSON Spark's resource discovery script must print
// (org.apache.spark.resource.ResourceInformation).
type sparkDiscovery struct {
	Name      string   `json:"name"`
	Addresses []string `json:"addresses"`
}

func devicesCmd(a *app) *cobra.Command {
	var asJSON, discovery bool
	var resource string
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the configured devices",
		Long: `devices opens the configured devices and lists them: address, driver, memory
mode, memory, engine cores, SIMD level of the kernels, huge pages, health.

--spark-discovery prints exactly what Spark expects from
spark.executor.resource.dpu.discoveryScript: {"name":"dpu","addresses":["0",...]}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.runtime()
			if err != nil {
				return err
			}
			defer rt.Close()
			out := cmd.OutOrStdout()
			if discovery {
				d := sparkDiscovery{Name: resource, Addresses: []string{}}
				for _, u := range rt.Units() {
					d.Addresses = append(d.Addresses, u.Device.Info().Address)
				}
				return json.NewEncoder(out).Encode(d)
			}
			type row struct {
				Info      any `json:"info"`
				Telemetry any `json:"telemetry"`
			}
			var rows []row
			tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ADDRESS\tDRIVER\tMODE\tMEMORY\tCORES\tSIMD\tHUGEPAGES\tLOCKED\tHEALTH")
			for _, u := range rt.Units() {
				info := u.Device.Info()
				tel, err := u.Device.Telemetry()
				health := tel.HealthName
				if err != nil {
					health = "error: " + err.Error()
				}
				rows = append(rows, row{info, tel})
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%v\t%s\n", info.Address, info.Driver, info.ModeName,
					memory.FormatBytes(info.MemoryBytes), info.Cores, info.SIMD, info.HugePages, info.Locked, health)
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&discovery, "spark-discovery", false, "print Spark's resource discovery JSON")
	cmd.Flags().StringVar(&resource, "resource-name", "dpu", "resource name for --spark-discovery")
	return cmd
}
