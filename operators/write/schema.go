package write

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// storedType maps an incoming column type to the arrow type handed to
// pqarrow. Only 32- and 64-bit decimals change: pqarrow writes Decimal128 and
// Decimal256, so they are widened (lossless) and still land, like Spark's,
// in INT32 (precision <= 9) or INT64 (<= 18) thanks to
// WithStoreDecimalAsInteger.
func storedType(t arrow.DataType) arrow.DataType {
	switch d := t.(type) {
	case *arrow.Decimal32Type:
		return &arrow.Decimal128Type{Precision: d.Precision, Scale: d.Scale}
	case *arrow.Decimal64Type:
		return &arrow.Decimal128Type{Precision: d.Precision, Scale: d.Scale}
	}
	return t
}

// dataSchema is the schema stored in the files: Schema without the
// partition columns, with storedType applied. Field metadata is kept.
func (c *config) dataSchema() *arrow.Schema {
	fields := make([]arrow.Field, len(c.dataIdx))
	for i, idx := range c.dataIdx {
		f := c.Schema.Field(idx)
		f.Type = storedType(f.Type)
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil)
}

// writerProperties builds the parquet and pqarrow properties of every file.
func (c *config) writerProperties() (*parquet.WriterProperties, pqarrow.ArrowWriterProperties) {
	props := []parquet.WriterProperty{
		parquet.WithAllocator(c.Allocator),
		parquet.WithCompression(c.codec.codec),
		parquet.WithDataPageSize(c.PageBytes),
		parquet.WithDictionaryPageSizeLimit(c.PageBytes),
		parquet.WithMaxRowGroupLength(c.RowGroupRows),
		parquet.WithStats(!c.NoStatistics),
		parquet.WithPageIndexEnabled(!c.NoPageIndex),
		parquet.WithStoreDecimalAsInteger(true),
	}
	for name, b := range c.BloomFilters {
		fpp := b.FPP
		if fpp == 0 {
			fpp = DefaultBloomFPP
		}
		props = append(props,
			parquet.WithBloomFilterEnabledFor(name, true),
			parquet.WithBloomFilterFPPFor(name, fpp))
		if b.NDV > 0 {
			props = append(props, parquet.WithBloomFilterNDVFor(name, b.NDV))
		}
	}

	arrowProps := []pqarrow.WriterOption{pqarrow.WithAllocator(c.Allocator)}
	if c.int96 {
		// pqarrow picks INT96 only for a nanosecond target; the values are
		// still converted from their own unit, so micros do not overflow.
		arrowProps = append(arrowProps,
			pqarrow.WithDeprecatedInt96Timestamps(true),
			pqarrow.WithCoerceTimestamps(arrow.Nanosecond))
	} else {
		arrowProps = append(arrowProps, pqarrow.WithCoerceTimestamps(arrow.Microsecond))
	}
	return parquet.NewWriterProperties(props...), pqarrow.NewArrowWriterProperties(arrowProps...)
}

// checkStorable asks pqarrow to map the stored schema, so that an
// unsupported column type fails in NewWriter, naming the column, rather than
// on the first Write.
func (c *config) checkStorable(sc *arrow.Schema, props *parquet.WriterProperties, arrowProps pqarrow.ArrowWriterProperties) error {
	for _, f := range sc.Fields() {
		one := arrow.NewSchema([]arrow.Field{f}, nil)
		if _, err := pqarrow.ToParquet(one, props, arrowProps); err != nil {
			return fmt.Errorf("write: column %q of type %s cannot be stored in Parquet (%v): %w", f.Name, f.Type, err, ErrNotSupported)
		}
	}
	return nil
}
