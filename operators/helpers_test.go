package operators_test

import (
	"github.com/apache/arrow-go/v18/arrow"

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

// releaseAll releases every record of recs.
func releaseAll(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}
