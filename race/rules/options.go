package rules

import (
	"fmt"
	"strings"

	"github.com/hados-io/hados/race/plan"
)

// Strategy is how the rules decide between host and device once every
// operator has a verdict.
type Strategy string

// The strategies.
const (
	// AllOrNothing keeps the whole query on the host if any operator that
	// is not whitelisted falls back (the original RACE design: no
	// host↔device ping-pong inside a query).
	AllOrNothing Strategy = "all-or-nothing"
	// Cost prices each device region: the bytes crossing its boundaries by
	// DMA against the time the device saves, keeping offload only where it
	// wins.
	Cost Strategy = "cost"
)

// ParseStrategy reads a strategy name.
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(s) {
	case AllOrNothing, Cost:
		return Strategy(s), nil
	}
	return "", fmt.Errorf("unknown strategy %q: want all-or-nothing or cost", s)
}

// DefaultWhitelist are the operators whose fallback never sends a query
// back to the host: tiny operators at the top of a plan.
var DefaultWhitelist = []string{"TakeOrderedAndProject", "CollectLimit", "GlobalLimit"}

// Options configure the rules (the spark.hados.* keys map onto them).
type Options struct {
	// Enabled is spark.hados.enabled: false keeps everything on the host.
	Enabled  bool
	Strategy Strategy
	// Whitelist names operators (Spark's names, e.g. CollectLimit) whose
	// fallback the all-or-nothing strategy tolerates.
	Whitelist []string
	// DisabledExpressions are Spark function names
	// (spark.hados.expression.<name>.enabled=false).
	DisabledExpressions map[string]bool
	// ANSI is spark.sql.ansi.enabled.
	ANSI bool
	Cost CostModel
	// WholePlan, under AQE, is the whole query's plan when the plan being
	// converted is one query stage of it: the all-or-nothing decision is
	// taken over the whole query, so stages never disagree.
	WholePlan *plan.Plan
}

// DefaultOptions are the defaults of the configuration keys.
func DefaultOptions() Options {
	return Options{Enabled: true, Strategy: AllOrNothing, Whitelist: DefaultWhitelist, Cost: DefaultCostModel()}
}

func (o *Options) whitelisted(n *plan.Node) bool {
	for _, w := range o.Whitelist {
		if strings.EqualFold(strings.TrimSpace(w), n.Op.String()) || strings.EqualFold(strings.TrimSpace(w), n.OpName) {
			return true
		}
	}
	return false
}
