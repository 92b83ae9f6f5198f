package exec

import (
	"fmt"

	"github.com/hados-io/hados/operators"
	"github.com/hados-io/hados/operators/expr"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/rules"
)

// aggregate builds a hash aggregation. A partial one emits Spark's buffers;
// a final (or complete) one then turns buffers into the functions' values
// and evaluates the result expressions over keys and values.
func (b *builder) aggregate(n *rules.Node, part int) (operators.Operator, error) {
	p, err := b.payload(n)
	if err != nil {
		return nil, err
	}
	in, err := b.aggInput(n, part)
	if err != nil {
		return nil, err
	}
	child := in.child
	var names []string
	var cols []*expr.Expr // the aggregation's output columns, as expressions over it
	for i, k := range p.Keys {
		name := fmt.Sprintf("key%d", i)
		names = append(names, name)
		cols = append(cols, expr.Column(len(cols), name, k.Type))
	}
	var finals []*expr.Expr
	for i, c := range p.Calls {
		bt, err := c.BufferTypes()
		if err != nil {
			return nil, closeAfter(child, notExecutable(n, err.Error()))
		}
		first := len(cols)
		for j, t := range bt {
			name := fmt.Sprintf("agg%d_%d", i, j)
			names = append(names, name)
			cols = append(cols, expr.Column(len(cols), name, t))
		}
		f, err := finalValue(c, cols[first:])
		if err != nil {
			return nil, closeAfter(child, notExecutable(n, err.Error()))
		}
		finals = append(finals, f)
	}
	agg, err := b.fuseAggregate(n, in, p, names)
	if err != nil {
		return nil, err
	}
	if p.Results == nil {
		return agg, nil
	}
	// keys then function values: the schema the result expressions read
	values := append(append([]*expr.Expr{}, cols[:len(p.Keys)]...), finals...)
	vnames := make([]string, len(values))
	for i := range values {
		vnames[i] = fmt.Sprintf("v%d", i)
	}
	fin, err := operators.NewFilterProject(b.target, agg, nil, values, vnames)
	if err != nil {
		return nil, closeAfter(agg, err)
	}
	out := make([]string, len(p.Results))
	for i := range out {
		out[i] = fmt.Sprintf("col%d", i)
		if i < len(n.Spark.Output) {
			out[i] = n.Spark.Output[i].Name
		}
	}
	res, err := operators.NewFilterProject(b.target, fin, nil, p.Results, out)
	if err != nil {
		return nil, closeAfter(fin, err)
	}
	return b.track(label(n)+" results", res), nil
}

var tBool = types.DataType{Kind: types.Boolean}

// nullIf returns CASE WHEN cond THEN NULL ELSE v END.
func nullIf(cond, v *expr.Expr) *expr.Expr {
	return expr.Call(expr.OpCaseWhen, v.Type, cond, expr.Literal(nil, v.Type), v)
}

// finalValue is Spark's evaluateExpression of an aggregate function over
// its buffer columns.
func finalValue(c operators.AggCall, buf []*expr.Expr) (*expr.Expr, error) {
	switch c.Func {
	case "sum":
		if len(buf) == 2 { // decimal sum: null when no input arrived
			return nullIf(buf[1], buf[0]), nil
		}
		return buf[0], nil
	case "count", "min", "max":
		return buf[0], nil
	case "first":
		return nullIf(expr.Call(expr.OpNot, tBool, buf[1]), buf[0]), nil
	case "avg":
		sum, count := buf[0], buf[1]
		result, err := types.Aggregate("avg", c.Input)
		if err != nil {
			return nil, err
		}
		if sum.Type.Kind != types.Decimal { // double average; division by zero is null
			return expr.Call(expr.OpDiv, sum.Type, sum, expr.Call(expr.OpCast, sum.Type, count)), nil
		}
		// Spark 3.4: Divide(sum, cast(count as decimal(20,0))).cast(result type)
		long := types.DecimalOf(20, 0)
		qt, err := types.Arithmetic("/", sum.Type, long)
		if err != nil {
			return nil, err
		}
		q := expr.Call(expr.OpDiv, qt, sum, expr.Call(expr.OpCast, long, count))
		return expr.Call(expr.OpCast, result, q), nil
	}
	return nil, fmt.Errorf("aggregate function %s has no final value", c.Func)
}
