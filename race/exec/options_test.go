package exec_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/race/exec"
	"github.com/hados-io/hados/race/rules"
)

func TestPlannerOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*hados.Config)
		want func(*rules.Options)
		err  string
	}{
		{name: "defaults", edit: func(*hados.Config) {}, want: func(*rules.Options) {}},
		{name: "every key", edit: func(c *hados.Config) {
			c.Enabled, c.ANSI, c.Strategy = false, true, "cost"
			c.Whitelist, c.DisabledExpressions = []string{"GlobalLimit"}, map[string]bool{"upper": true}
		}, want: func(o *rules.Options) {
			o.Enabled, o.ANSI, o.Strategy = false, true, rules.Cost
			o.Whitelist, o.DisabledExpressions = []string{"GlobalLimit"}, map[string]bool{"upper": true}
		}},
		{name: "unknown strategy", edit: func(c *hados.Config) { c.Strategy = "greedy" }, err: `unknown strategy "greedy"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := hados.DefaultConfig()
			tc.edit(&cfg)
			got, err := exec.PlannerOptions(cfg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := rules.DefaultOptions()
			want.Whitelist = hados.DefaultConfig().Whitelist
			want.DisabledExpressions = hados.DefaultConfig().DisabledExpressions
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("options %+v, want %+v", got, want)
			}
		})
	}
}
