package exec

import (
	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/race/rules"
)

// This file is the one place that calls the sort family of package
// operators (sort, TopN, limit, union).

func sortKeys(ks []rules.SortKey) []operators.SortKey {
	out := make([]operators.SortKey, len(ks))
	for i, k := range ks {
		out[i] = operators.SortKey{Expr: k.Expr, Descending: k.Descending, NullsFirst: k.NullsFirst}
	}
	return out
}

func newSort(t *operators.Target, child operators.Operator, keys []rules.SortKey) (operators.Operator, error) {
	return operators.NewSort(t, child, sortKeys(keys))
}

func newTopN(t *operators.Target, child operators.Operator, keys []rules.SortKey, limit, offset int, proj []*expr.Expr, names []string) (operators.Operator, error) {
	return operators.NewTopN(t, child, sortKeys(keys), limit, offset, proj, names)
}

func newLimit(t *operators.Target, child operators.Operator, limit, offset int) (operators.Operator, error) {
	return operators.NewLimit(t, child, limit, offset)
}

func newUnion(t *operators.Target, children []operators.Operator) (operators.Operator, error) {
	return operators.NewUnion(t, children)
}

// sortReady reports that the sort family is built in.
const sortReady = true
