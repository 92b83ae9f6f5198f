package trace

import (
	"fmt"

	"github.com/hados-io/hados/internal/probe"
)

// The fallback probe carries codes, not strings: the planner's operator
// (race/plan.Op) and reason, numbered as FallbackReasons lists them.

// FallbackReason names a probe's reason code.
func FallbackReason(code uint64) string {
	if code > 0 && code < uint64(len(probe.Reasons)) {
		return probe.Reasons[code]
	}
	return fmt.Sprintf("reason %d", code)
}

// FallbackOperator names a probe's operator code (a race/plan.Op). The
// CLI sets it to the planner's names; by default it prints the number.
var FallbackOperator = func(code uint64) string { return fmt.Sprintf("operator %d", code) }
