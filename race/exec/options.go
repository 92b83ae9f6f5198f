package exec

import (
	"github.com/hados-io/hados/hados"
	"github.com/hados-io/hados/race/rules"
)

// PlannerOptions maps a runtime configuration onto the planner's options
// (spark.hados.enabled, ansi, whitelist, disabled expressions, strategy),
// the one mapping the CLI and the C ABI plan with. The error names a
// strategy the planner does not know.
func PlannerOptions(cfg hados.Config) (rules.Options, error) {
	o := rules.DefaultOptions()
	o.Enabled, o.ANSI = cfg.Enabled, cfg.ANSI
	o.Whitelist, o.DisabledExpressions = cfg.Whitelist, cfg.DisabledExpressions
	s, err := rules.ParseStrategy(cfg.Strategy)
	if err != nil {
		return o, err
	}
	o.Strategy = s
	return o, nil
}
