package trace

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/hados-io/hados/internal/stats"
	"github.com/hados-io/hados/memory"
)

// Summary aggregates records: counts, bytes and log2 latency histograms
// per program kind and DMA direction, and the slowest events.
type Summary struct {
	Groups  map[string]*Group
	Slowest []Record
	keep    int
}

// Group is one program opcode or DMA direction.
type Group struct {
	Count, Failed, Bytes uint64
	Latency              stats.Histogram
}

// NewSummary keeps the slowest n events.
func NewSummary(n int) *Summary { return &Summary{Groups: map[string]*Group{}, keep: n} }

// Add folds a record in.
func (s *Summary) Add(r Record) {
	key := r.Kind
	if r.What != "" {
		key += " " + r.What
	}
	g := s.Groups[key]
	if g == nil {
		g = &Group{}
		s.Groups[key] = g
	}
	g.Count++
	g.Bytes += r.Bytes
	if r.Failed {
		g.Failed++
	}
	if r.Seconds > 0 {
		g.Latency.Observe(time.Duration(r.Seconds * 1e9))
		s.Slowest = append(s.Slowest, r)
		sort.SliceStable(s.Slowest, func(i, j int) bool { return s.Slowest[i].Seconds > s.Slowest[j].Seconds })
		if len(s.Slowest) > s.keep {
			s.Slowest = s.Slowest[:s.keep]
		}
	}
}

// WriteText prints the summary: a table per group with its latency
// histogram (log2 buckets), then the slowest events.
func (s *Summary) WriteText(w io.Writer, elapsed time.Duration) {
	keys := make([]string, 0, len(s.Groups))
	for k := range s.Groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "EVENT\tCOUNT\tPER SEC\tFAILED\tBYTES\tp50\tp99\n")
	for _, k := range keys {
		g := s.Groups[k]
		h := g.Latency.Snapshot()
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%s\t%s\t%s\n", k, g.Count, float64(g.Count)/elapsed.Seconds(), g.Failed,
			memory.FormatBytes(g.Bytes), dur(h.Quantile(0.5)), dur(h.Quantile(0.99)))
	}
	tw.Flush()
	for _, k := range keys {
		h := s.Groups[k].Latency.Snapshot()
		if h.Count == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s latency (log2 buckets):\n", k)
		var top uint64
		for _, c := range h.Counts {
			top = max(top, c)
		}
		for i, c := range h.Counts {
			if c == 0 {
				continue
			}
			bar := int(40 * c / top)
			fmt.Fprintf(w, "  <= %-8s %8d %s\n", dur(h.Bounds[i]), c, bars(bar))
		}
	}
	if len(s.Slowest) > 0 {
		fmt.Fprintf(w, "\nslowest:\n")
		for _, r := range s.Slowest {
			fmt.Fprintf(w, "  %-8s device %d %-14s %s %s\n", r.Kind, r.Device, r.What, dur(r.Seconds), memory.FormatBytes(r.Bytes))
		}
	}
}

func bars(n int) string {
	b := make([]byte, max(n, 1))
	for i := range b {
		b[i] = '#'
	}
	return string(b)
}

func dur(sec float64) string {
	if sec > 1e9 {
		return "inf"
	}
	return time.Duration(sec * 1e9).Round(time.Microsecond).String()
}
