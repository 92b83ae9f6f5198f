package operators_test

import (
	"github.com/hados-io/hados/internal/tpchpipes"
	"github.com/hados-io/hados/operators/types"
)

// Short names for the helpers the tests share with the benchmarks.
var (
	tBool = types.DataType{Kind: types.Boolean}
	arith = tpchpipes.Arith
	col   = tpchpipes.Col
	date  = tpchpipes.Date
)
