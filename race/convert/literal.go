package convert

import (
	"math/big"

	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// literal converts a typed plan literal to an IR literal (see the package
// documentation for the value of each type).
func literal(e *plan.Expr) (*expr.Expr, error) {
	t := e.Type
	if e.Lit == nil {
		return nil, fail(CodeShape, "literal", e.String(), "literal without a value")
	}
	switch t.Kind {
	case types.Boolean, types.Int, types.Date, types.Long, types.Timestamp, types.TimestampNTZ,
		types.Double, types.Decimal, types.String:
	default:
		return nil, fail(CodeDataType, t.String(), e.String(), "literals of type %s are not supported", t)
	}
	if e.Lit.Null {
		return expr.Literal(nil, t), nil
	}
	l := e.Lit
	switch t.Kind {
	case types.Boolean:
		return expr.Literal(l.Bool, t), nil
	case types.Int, types.Date:
		if l.Int < -1<<31 || l.Int > 1<<31-1 {
			return nil, fail(CodeShape, "literal", e.String(), "%d does not fit %s", l.Int, t)
		}
		return expr.Literal(int32(l.Int), t), nil
	case types.Long, types.Timestamp, types.TimestampNTZ:
		return expr.Literal(l.Int, t), nil
	case types.Double:
		return expr.Literal(l.Float, t), nil
	case types.Decimal:
		u := big.NewInt(l.Int)
		if l.Big != "" {
			var ok bool
			if u, ok = new(big.Int).SetString(l.Big, 10); !ok {
				return nil, fail(CodeShape, "literal", e.String(), "bad unscaled decimal %q", clip(l.Big))
			}
		}
		return expr.Literal(u, t), nil
	}
	return expr.Literal(l.Str, t), nil
}
