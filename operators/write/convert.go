package write

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// checkRecord reports, as an ErrSchemaMismatch error naming the first
// offending column, a record whose columns differ from Options.Schema in
// name or type, or whose non-nullable column holds nulls. Field metadata
// and the nullability flag of the record's own schema are not compared.
func (c *config) checkRecord(rec arrow.Record) error {
	got := rec.Schema()
	if got.NumFields() != c.Schema.NumFields() {
		return fmt.Errorf("write: record has %d columns, want %d (%s): %w",
			got.NumFields(), c.Schema.NumFields(), columnList(c.Schema), ErrSchemaMismatch)
	}
	for i, want := range c.Schema.Fields() {
		f := got.Field(i)
		if f.Name != want.Name || !arrow.TypeEqual(f.Type, want.Type) {
			return fmt.Errorf("write: record column %d is %q %s, want %q %s: %w",
				i, f.Name, f.Type, want.Name, want.Type, ErrSchemaMismatch)
		}
		if !want.Nullable && rec.Column(i).NullN() > 0 {
			return fmt.Errorf("write: column %q is not nullable but the record has %d nulls in it: %w",
				want.Name, rec.Column(i).NullN(), ErrSchemaMismatch)
		}
	}
	return nil
}

// dataRecord returns the columns of rec that are stored in the files, with
// storedType conversions applied, as a record of schema sc. The caller must
// Release the result; rec keeps its own references.
func (c *config) dataRecord(rec arrow.Record, sc *arrow.Schema) arrow.Record {
	cols := make([]arrow.Array, 0, len(c.dataIdx))
	defer func() {
		for _, col := range cols {
			col.Release()
		}
	}()
	for _, idx := range c.dataIdx {
		cols = append(cols, toStored(rec.Column(idx), c.Allocator))
	}
	return array.NewRecordBatch(sc, cols, rec.NumRows())
}

// toStored returns arr converted to storedType(arr.DataType()), or arr itself
// with an extra reference. Either way the caller releases the result.
func toStored(arr arrow.Array, mem memory.Allocator) arrow.Array {
	var value func(i int) decimal128.Num
	switch a := arr.(type) {
	case *array.Decimal32:
		value = func(i int) decimal128.Num { return decimal128.FromI64(int64(a.Value(i))) }
	case *array.Decimal64:
		value = func(i int) decimal128.Num { return decimal128.FromI64(int64(a.Value(i))) }
	default:
		arr.Retain()
		return arr
	}
	b := array.NewDecimal128Builder(mem, storedType(arr.DataType()).(*arrow.Decimal128Type))
	defer b.Release()
	b.Reserve(arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
		} else {
			b.UnsafeAppend(value(i))
		}
	}
	return b.NewArray()
}
