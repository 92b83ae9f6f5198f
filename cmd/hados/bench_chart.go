package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// ratioChart draws the report's ratios hados/DuckDB as an SVG bar chart:
// one group of bars per query, one bar per thread count, a dashed line at
// 1.0 (parity; below it hados is faster). A query that did not run or did
// not match has no bar and is marked "n/a".
func ratioChart(r *benchReport) string {
	var threads []int
	var queries []int
	seenT, seenQ := map[int]bool{}, map[int]bool{}
	top := 2.0
	for _, res := range r.Results {
		if !seenT[res.Threads] {
			seenT[res.Threads] = true
			threads = append(threads, res.Threads)
		}
		if !seenQ[res.Query] {
			seenQ[res.Query] = true
			queries = append(queries, res.Query)
		}
		if res.Check == checkMatch {
			top = math.Max(top, res.Ratio)
		}
	}
	top = math.Ceil(top)
	const (
		left, right, topPad, bottom = 56.0, 16.0, 40.0, 48.0
		plotH                       = 260.0
		bar                         = 10.0
	)
	groupW := bar*float64(len(threads)) + 8
	width := left + right + groupW*float64(max(1, len(queries)))
	height := topPad + plotH + bottom
	y := func(v float64) float64 { return topPad + plotH - v/top*plotH }
	colors := []string{"#4878a8", "#e0803c", "#5aa05a", "#b05c9c"}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="13">%s</text>`+"\n", left,
		html.EscapeString(fmt.Sprintf("TPC-H SF %g: hados time / DuckDB %s time (lower is better)", r.SF, r.DuckDB)))
	for v := 0.0; v <= top; v += math.Max(1, math.Floor(top/5)) {
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-right, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%g×</text>`+"\n", left-6, y(v)+4, v)
	}
	fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#c33" stroke-dasharray="4 3"/>`+"\n", left, width-right, y(1), y(1))
	for qi, q := range queries {
		x0 := left + groupW*float64(qi) + 4
		for ti, t := range threads {
			res, ok := findResult(r, t, q)
			x := x0 + bar*float64(ti)
			if !ok || res.Check != checkMatch || res.Ratio <= 0 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="8" transform="rotate(-90 %.1f %.1f)">n/a</text>`+"\n",
					x+bar-2, y(0)-2, x+bar-2, y(0)-2)
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>Q%d, %d thread(s): %.2f×</title></rect>`+"\n",
				x, y(res.Ratio), bar-1, y(0)-y(res.Ratio), colors[ti%len(colors)], q, t, res.Ratio)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">Q%d</text>`+"\n", x0+bar*float64(len(threads))/2, y(0)+14, q)
	}
	for ti, t := range threads {
		x := left + float64(ti)*110
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">%d thread(s)</text>`+"\n",
			x, height-18, colors[ti%len(colors)], x+14, height-9, t)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func findResult(r *benchReport, threads, q int) (benchResult, bool) {
	for _, res := range r.Results {
		if res.Threads == threads && res.Query == q {
			return res, true
		}
	}
	return benchResult{}, false
}
