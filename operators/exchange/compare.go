package exchange

import (
	"bytes"
	"cmp"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// SortOrder is one key of a Spark SortOrder list: a column, its direction
// and where nulls go. Spark's defaults are nulls first for ascending and
// nulls last for descending (see Asc and Desc).
type SortOrder struct {
	Column     int
	Descending bool
	NullsFirst bool
}

// Asc is `col ASC NULLS FIRST`, Spark's default ascending order.
func Asc(col int) SortOrder { return SortOrder{Column: col, NullsFirst: true} }

// Desc is `col DESC NULLS LAST`, Spark's default descending order.
func Desc(col int) SortOrder { return SortOrder{Column: col, Descending: true} }

// cmpFunc compares row i of one array with row j of another.
type cmpFunc func(i, j int) int

// compareArrays returns Spark's ordering of row i of a against row j of b
// (same type) under o's direction and null placement: nulls per NullsFirst
// regardless of direction; doubles and floats with NaN above every other
// value, NaN equal to NaN and -0.0 equal to 0.0; strings and binary as
// unsigned bytes; booleans false < true.
func compareArrays(a, b arrow.Array, o SortOrder) (cmpFunc, error) {
	if !arrow.TypeEqual(a.DataType(), b.DataType()) {
		return nil, fmt.Errorf("exchange: comparing %s with %s", a.DataType(), b.DataType())
	}
	vals, err := valueCompare(a, b)
	if err != nil {
		return nil, err
	}
	nullSide := 1 // null sorts after non-null
	if o.NullsFirst {
		nullSide = -1
	}
	desc := o.Descending
	if a.NullN() == 0 && b.NullN() == 0 && !isDict(a) {
		if desc {
			return func(i, j int) int { return -vals(i, j) }, nil
		}
		return vals, nil
	}
	aNull, bNull := nullTest(a), nullTest(b)
	return func(i, j int) int {
		an, bn := aNull(i), bNull(j)
		switch {
		case an && bn:
			return 0
		case an:
			return nullSide
		case bn:
			return -nullSide
		}
		c := vals(i, j)
		if desc {
			return -c
		}
		return c
	}, nil
}

func isDict(a arrow.Array) bool { _, ok := a.(*array.Dictionary); return ok }

// nullTest reports whether row i is null; for a dictionary array, a valid
// index pointing at a null dictionary value is null too.
func nullTest(a arrow.Array) func(i int) bool {
	if d, ok := a.(*array.Dictionary); ok {
		dict := d.Dictionary()
		return func(i int) bool { return d.IsNull(i) || dict.IsNull(d.GetValueIndex(i)) }
	}
	return a.IsNull
}

// valueCompare compares two non-null values in ascending order.
func valueCompare(a, b arrow.Array) (cmpFunc, error) {
	switch x := a.(type) {
	case *array.Dictionary:
		y := b.(*array.Dictionary)
		inner, err := compareArrays(x.Dictionary(), y.Dictionary(), Asc(0))
		if err != nil {
			return nil, err
		}
		return func(i, j int) int { return inner(x.GetValueIndex(i), y.GetValueIndex(j)) }, nil
	case *array.Boolean:
		y := b.(*array.Boolean)
		return func(i, j int) int { return CompareBool(x.Value(i), y.Value(j)) }, nil
	case *array.Int8:
		return ordered(x.Int8Values(), b.(*array.Int8).Int8Values()), nil
	case *array.Int16:
		return ordered(x.Int16Values(), b.(*array.Int16).Int16Values()), nil
	case *array.Int32:
		return ordered(x.Int32Values(), b.(*array.Int32).Int32Values()), nil
	case *array.Int64:
		return ordered(x.Int64Values(), b.(*array.Int64).Int64Values()), nil
	case *array.Date32:
		return ordered(x.Date32Values(), b.(*array.Date32).Date32Values()), nil
	case *array.Timestamp:
		return ordered(x.TimestampValues(), b.(*array.Timestamp).TimestampValues()), nil
	case *array.Decimal64:
		return ordered(x.Values(), b.(*array.Decimal64).Values()), nil
	case *array.Float32:
		xs, ys := x.Float32Values(), b.(*array.Float32).Float32Values()
		return func(i, j int) int { return CompareDouble(float64(xs[i]), float64(ys[j])) }, nil
	case *array.Float64:
		xs, ys := x.Float64Values(), b.(*array.Float64).Float64Values()
		return func(i, j int) int { return CompareDouble(xs[i], ys[j]) }, nil
	case *array.Decimal128:
		xs, ys := x.Values(), b.(*array.Decimal128).Values()
		return func(i, j int) int { return xs[i].Cmp(ys[j]) }, nil
	}
	if xv, ok := asVarBinary(a); ok {
		yv, _ := asVarBinary(b)
		return func(i, j int) int { return bytes.Compare(xv.value(i), yv.value(j)) }, nil
	}
	return nil, fmt.Errorf("%w: ordering %s", ErrNotSupported, a.DataType())
}

func ordered[T cmp.Ordered](xs, ys []T) cmpFunc {
	return func(i, j int) int { return cmp.Compare(xs[i], ys[j]) }
}

// CompareBool is Spark's ordering of booleans: false before true.
func CompareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// CompareDouble is Spark's SQLOrderingUtil.compareDoubles: NaN is the
// largest value and equals itself; -0.0 equals 0.0.
func CompareDouble(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}

// rowComparator compares rows of two records under a list of sort orders;
// the orders' columns index into a, while b holds one column per order
// (bColumnsByOrder) or the same layout as a.
type rowComparator []cmpFunc

func newRowComparator(a, b arrow.RecordBatch, orders []SortOrder, bColumnsByOrder bool) (rowComparator, error) {
	fns := make(rowComparator, len(orders))
	for k, o := range orders {
		if o.Column < 0 || o.Column >= int(a.NumCols()) {
			return nil, fmt.Errorf("exchange: sort column %d out of range (record has %d columns)", o.Column, a.NumCols())
		}
		bc := o.Column
		if bColumnsByOrder {
			bc = k
		}
		if bc >= int(b.NumCols()) {
			return nil, fmt.Errorf("exchange: bounds have %d columns, want %d", b.NumCols(), len(orders))
		}
		f, err := compareArrays(a.Column(o.Column), b.Column(bc), o)
		if err != nil {
			return nil, fmt.Errorf("exchange: sort key %d: %w", k, err)
		}
		fns[k] = f
	}
	return fns, nil
}

func (rc rowComparator) compare(i, j int) int {
	for _, f := range rc {
		if c := f(i, j); c != 0 {
			return c
		}
	}
	return 0
}
