package diag

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hados-io/hados/memory"
)

// WriteText prints a report as human-readable tables.
func (r *Report) WriteText(w io.Writer) error {
	d := r.Device
	status := "PASS"
	if !r.Pass {
		status = "FAIL"
	}
	fmt.Fprintf(w, "device %s: %s (%s, %s, %s, %d cores, %s kernels) — %s in %.1fs\n", d.Address, d.Name, d.Driver,
		d.ModeName, memory.FormatBytes(d.MemoryBytes), d.Cores, d.SIMD, status, r.Seconds)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nCHECK\tRESULT\tDETAIL")
	for _, c := range r.Checks {
		res := "ok"
		if !c.Pass {
			res = "FAILED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, res, c.Detail)
	}
	tw.Flush()
	if len(r.Bandwidth) > 0 {
		fmt.Fprintln(tw, "\nDMA\tSIZE\tGB/s\tMEMCPY GB/s\tRATIO\tµs/TRANSFER")
		for _, b := range r.Bandwidth {
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.2f\t%.1f\n", b.Direction, memory.FormatBytes(b.Bytes), b.GBps,
				b.MemcpyGBps, b.Ratio, b.MicrosPerXfer)
		}
		tw.Flush()
	}
	if q := r.QueueLatency; q.Samples > 0 {
		fmt.Fprintf(w, "\nqueue submit→complete latency over %d programs: p50 %.1f µs, p99 %.1f µs, max %.1f µs\n",
			q.Samples, q.P50us, q.P99us, q.MaxUs)
	}
	t := r.Telemetry
	_, err := fmt.Fprintf(w, "telemetry: health %s, %s of memory in use (peak %s), %d programs (%d failed), %s h2d, %s d2h, %s d2d, engine busy %.3fs\n",
		t.HealthName, memory.FormatBytes(t.MemUsedBytes), memory.FormatBytes(t.MemPeakBytes), t.ProgramsCompleted+t.ProgramsFailed,
		t.ProgramsFailed, memory.FormatBytes(t.BytesH2D), memory.FormatBytes(t.BytesD2H), memory.FormatBytes(t.BytesD2D), t.Busy.Seconds())
	return err
}
