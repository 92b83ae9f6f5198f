package tpchgen

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// cols gives typed access to the builders of one record batch under
// construction. It owns nothing: the RecordBuilder belongs to the caller.
type cols struct {
	rb      *array.RecordBuilder
	whole   bool   // SparkTest: money is decimal(10,0)
	scratch []byte // reused for formatted strings
}

func (c *cols) id(i int) *array.Int64Builder    { return c.rb.Field(i).(*array.Int64Builder) }
func (c *cols) i32(i int) *array.Int32Builder   { return c.rb.Field(i).(*array.Int32Builder) }
func (c *cols) date(i int) *array.Date32Builder { return c.rb.Field(i).(*array.Date32Builder) }
func (c *cols) str(i int) *array.StringBuilder  { return c.rb.Field(i).(*array.StringBuilder) }
func (c *cols) money(i int) moneyCol {
	return moneyCol{b: c.rb.Field(i).(*array.Decimal128Builder), whole: c.whole}
}

// moneyCol appends amounts held in hundredths (cents, or hundredths of a
// unit for discounts and quantities).
type moneyCol struct {
	b     *array.Decimal128Builder
	whole bool
}

func (m moneyCol) append(hundredths int64) {
	if m.whole {
		hundredths = roundHalfUp(hundredths)
	}
	m.b.Append(decimal128.FromI64(hundredths))
}

// roundHalfUp turns hundredths into a whole number, rounding halves away
// from zero as Spark's cast to decimal(10,0) does (ROUND_HALF_UP).
func roundHalfUp(h int64) int64 {
	if h < 0 {
		return -((-h + 50) / 100)
	}
	return (h + 50) / 100
}

// appendKeyed formats prefix followed by a 9-digit zero-padded number
// ("Supplier#000000042") and appends it to b.
func (c *cols) appendKeyed(b *array.StringBuilder, prefix string, n int64) {
	c.scratch = appendPadded(append(c.scratch[:0], prefix...), n, 9)
	b.BinaryBuilder.Append(c.scratch)
}
