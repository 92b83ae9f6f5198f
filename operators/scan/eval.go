package scan

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/operators/types"
)

// Eval is the plain Go reference of a filter over a record: out[i] is true
// exactly where Spark's filter is TRUE for row i (three-valued logic; null
// and false both give false). Columns are found by name in the record's
// schema. It is slow and meant for tests and for checking the device filter.
func Eval(f Filter, rec arrow.RecordBatch) ([]bool, error) {
	sc := rec.Schema()
	resolve := func(name string) (types.DataType, error) {
		idx := sc.FieldIndices(name)
		if len(idx) != 1 {
			return types.Unknown, fmt.Errorf("record has %d columns named %s", len(idx), name)
		}
		return types.FromArrow(sc.Field(idx[0]).Type)
	}
	p, err := compile(f, resolve)
	if err != nil {
		return nil, err
	}
	getters := map[string]func(int) (datum, bool){}
	var cols []string
	for _, c := range p.columns(cols) {
		g, err := getter(rec.Column(sc.FieldIndices(c)[0]))
		if err != nil {
			return nil, fmt.Errorf("filter %s: column %s: %w", f, c, err)
		}
		getters[c] = g
	}
	out := make([]bool, rec.NumRows())
	for i := range out {
		out[i] = p.eval(func(col string) (datum, bool) { return getters[col](i) })
	}
	return out, nil
}

// getter returns a function reading row i of an array as a datum.
func getter(a arrow.Array) (func(int) (datum, bool), error) {
	wrap := func(f func(int) datum) func(int) (datum, bool) {
		return func(i int) (datum, bool) {
			if a.IsNull(i) {
				return nil, true
			}
			return f(i), false
		}
	}
	switch a := a.(type) {
	case *array.Boolean:
		return wrap(func(i int) datum { return a.Value(i) }), nil
	case *array.Int8:
		return wrap(func(i int) datum { return int64(a.Value(i)) }), nil
	case *array.Int16:
		return wrap(func(i int) datum { return int64(a.Value(i)) }), nil
	case *array.Int32:
		return wrap(func(i int) datum { return int64(a.Value(i)) }), nil
	case *array.Int64:
		return wrap(func(i int) datum { return a.Value(i) }), nil
	case *array.Date32:
		return wrap(func(i int) datum { return int64(a.Value(i)) }), nil
	case *array.Timestamp:
		return wrap(func(i int) datum { return int64(a.Value(i)) }), nil
	case *array.Float32:
		return wrap(func(i int) datum { return float64(a.Value(i)) }), nil
	case *array.Float64:
		return wrap(func(i int) datum { return a.Value(i) }), nil
	case *array.Decimal64:
		s := int(a.DataType().(*arrow.Decimal64Type).Scale)
		return wrap(func(i int) datum { return unscaledRat(big.NewInt(int64(a.Value(i))), s) }), nil
	case *array.Decimal128:
		s := int(a.DataType().(*arrow.Decimal128Type).Scale)
		return wrap(func(i int) datum { return unscaledRat(a.Value(i).BigInt(), s) }), nil
	case *array.String:
		return wrap(func(i int) datum { return []byte(a.Value(i)) }), nil
	case *array.Binary:
		return wrap(func(i int) datum { return a.Value(i) }), nil
	}
	return nil, fmt.Errorf("%w: no evaluation for Arrow type %s", ErrUnsupportedType, a.DataType())
}
