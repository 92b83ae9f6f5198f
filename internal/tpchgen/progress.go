package tpchgen

import (
	"fmt"
	"io"
	"strings"
)

// ProgressBar returns an Options.Progress callback that draws a one-line
// text progress bar on w (a terminal, typically os.Stderr): the table being
// written, its percentage and a bar, redrawn in place with '\r' whenever
// the percentage changes, and a final line per finished table. Like every
// Progress callback it relies on Generate serialising the calls.
func ProgressBar(w io.Writer) func(table string, done, total int64) {
	const width = 30
	lastPct := map[string]int{}
	return func(table string, done, total int64) {
		pct := 100
		if total > 0 {
			pct = int(done * 100 / total)
		}
		if p, seen := lastPct[table]; seen && p == pct {
			return
		}
		lastPct[table] = pct
		fill := pct * width / 100
		bar := strings.Repeat("#", fill) + strings.Repeat(".", width-fill)
		fmt.Fprintf(w, "\r%-9s [%s] %3d%% %d/%d rows", table, bar, pct, done, total)
		if done >= total {
			fmt.Fprintln(w)
		}
	}
}
