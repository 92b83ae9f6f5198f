package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDashboard checks deploy/grafana/hados.json: valid JSON with panels,
// and every metric its queries name is one this package exports.
func TestDashboard(t *testing.T) {
	raw, err := os.ReadFile("../deploy/grafana/hados.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard is not valid JSON: %v", err)
	}
	known := map[string]bool{}
	for _, f := range catalog {
		known[f.name] = true
		if f.kind == histogram {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				known[f.name+s] = true
			}
		}
	}
	name := regexp.MustCompile(`hados_[a-z0-9_]+`)
	used := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, m := range name.FindAllString(tg.Expr, -1) {
				used++
				if !known[m] {
					t.Errorf("panel %q queries %s, which hados does not export", p.Title, m)
				}
			}
		}
	}
	if len(dash.Panels) < 8 || used == 0 || !strings.Contains(dash.Title, "hados") {
		t.Fatalf("dashboard %q: %d panels, %d metric references", dash.Title, len(dash.Panels), used)
	}
}
