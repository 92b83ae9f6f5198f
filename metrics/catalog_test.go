package metrics

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metricsDoc renders the Markdown reference of every family from the
// catalog, so the documentation cannot drift from the code.
func metricsDoc() []byte {
	var b bytes.Buffer
	b.WriteString(`# hados metrics

Every metric hados exports to Prometheus (package ` + "`metrics`" + `). Generated from
the collector's catalog by ` + "`go test ./metrics -run TestMetricsDoc -update`" + `; do not edit
by hand.

Conventions: names are ` + "`hados_<layer>_<what>_<unit>`" + `; sizes are in bytes, durations in
seconds, counters end in ` + "`_total`" + `. ` + "`device`" + ` is the device's stable address ("0", "1",
…); the pinned host staging pool appears in the ` + "`hados_memory_pool_*`" + ` families as
` + "`device=\"host\"`" + `. ` + "`direction`" + ` is ` + "`h2d`, `d2h`, `d2d`" + ` or ` + "`exec`" + ` (programs the DMA engine
ran with Exec; ` + "`hados_device_dma_bytes_total`" + ` has no ` + "`exec`" + `). Info metrics have the value 1
and carry static facts as labels. A ` + "`_limit_bytes`" + ` series is absent when the quota is
unlimited. Task accounts sharing a name on one device are summed into one series.
` + "`operator`" + ` in the ` + "`hados_spill_*`" + ` families is the operator that spilled (` + "`Sort`" + `,
` + "`HashAggregate`" + `, ` + "`HashJoin`" + `); the counts include the runs of tasks that have ended.

| Name | Type | Labels | Meaning |
|---|---|---|---|
`)
	for _, f := range catalog {
		labels := make([]string, len(f.labels))
		for i, l := range f.labels {
			labels[i] = "`" + l + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.name, f.kind, strings.Join(labels, ", "),
			strings.ReplaceAll(f.help, "|", `\|`))
	}
	return b.Bytes()
}

// TestMetricsDoc checks that docs/metrics.md matches the catalog; -update
// rewrites it.
func TestMetricsDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "metrics.md")
	want := metricsDoc()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date with the catalog: regenerate it with go test ./metrics -run TestMetricsDoc -update", path)
	}
}
