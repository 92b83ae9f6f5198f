package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/metrics"
	"github.com/hados-io/hados/race/rules"
)

// source adds the planner's decisions to the runtime's snapshot.
func source(rt *hados.Runtime, decisions *rules.Stats) metrics.Source {
	return metrics.SourceFunc(func() metrics.Snapshot {
		s := rt.Snapshot()
		for _, d := range decisions.Snapshot() {
			s.Race = append(s.Race, metrics.RaceDecision{Decision: d.Decision.Decision, Operator: d.Operator,
				Reason: string(d.Reason), Count: d.Count})
		}
		return s
	})
}

// writeMetrics prints the non-zero hados_* series in exposition format.
func writeMetrics(w io.Writer, rt *hados.Runtime, decisions *rules.Stats) error {
	reg := prometheus.NewRegistry()
	if err := metrics.Register(reg, source(rt, decisions)); err != nil {
		return err
	}
	mfs, err := reg.Gather()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			return err
		}
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasSuffix(line, " 0") || strings.Contains(line, "_bucket{") {
			continue
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
