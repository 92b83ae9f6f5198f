package exchange

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// HashColumns computes Spark's Murmur3Hash(cols...; seed) for every row:
// out[i] starts at seed and each column's value in row i is hashed with the
// running hash as its seed; a null leaves the running hash unchanged, so a
// row of nulls hashes to seed. out must have one element per row and every
// column that many rows. The result is what Spark's hash() returns and,
// reduced with Pmod, the partition of HashPartitioning.
//
// Supported Arrow types: boolean, int8/16/32/64, date32, timestamp[us]
// (with or without zone: Spark's timestamp and timestamp_ntz),
// float32/64, decimal64, decimal128 (the precision comes from the type),
// string, binary, large string/binary, and dictionaries of any of these.
// Other types return an error wrapping ErrNotSupported naming the column.
func HashColumns(cols []arrow.Array, seed int32, out []int32) error {
	for i := range out {
		out[i] = seed
	}
	for c, col := range cols {
		if col.Len() != len(out) {
			return fmt.Errorf("exchange: hash column %d has %d rows, want %d", c, col.Len(), len(out))
		}
		if err := hashColumn(col, out); err != nil {
			return fmt.Errorf("exchange: hash column %d: %w", c, err)
		}
	}
	return nil
}

// hashColumn folds one column into the running hashes.
func hashColumn(col arrow.Array, h []int32) error {
	if d, ok := col.(*array.Dictionary); ok {
		return hashDictionary(d, h)
	}
	if v, ok := asVarBinary(col); ok && v.off32 != nil {
		hashStrings(v, col, h)
		return nil
	}
	fn, err := rowHasher(col)
	if err != nil {
		return err
	}
	if col.NullN() == 0 {
		for i := range h {
			h[i] = fn(i, h[i])
		}
		return nil
	}
	for i := range h {
		if col.IsValid(i) {
			h[i] = fn(i, h[i])
		}
	}
	return nil
}

// hashStrings is hashColumn of a string or binary column with 32-bit
// offsets: HashBytes called directly, not through rowHasher's closure.
func hashStrings(v varBinary, col arrow.Array, h []int32) {
	off, data := v.off32[:len(h)+1], v.data
	if col.NullN() == 0 {
		for i := range h {
			h[i] = HashBytes(data[off[i]:off[i+1]], h[i])
		}
		return
	}
	for i := range h {
		if col.IsValid(i) {
			h[i] = HashBytes(data[off[i]:off[i+1]], h[i])
		}
	}
}

// hashDictionary hashes the dictionary value each valid row refers to (the
// seed differs per row, so values cannot be hashed once per dictionary
// entry); a null index or a null dictionary value keeps the running hash.
func hashDictionary(d *array.Dictionary, h []int32) error {
	dict := d.Dictionary()
	fn, err := rowHasher(dict)
	if err != nil {
		return fmt.Errorf("dictionary values: %w", err)
	}
	for i := range h {
		if d.IsNull(i) {
			continue
		}
		j := d.GetValueIndex(i)
		if j < 0 || j >= dict.Len() {
			return fmt.Errorf("dictionary index %d at row %d out of range [0,%d)", j, i, dict.Len())
		}
		if dict.IsValid(j) {
			h[i] = fn(j, h[i])
		}
	}
	return nil
}

// rowHasher returns a function hashing row i of col (which must be valid)
// with the given seed.
func rowHasher(col arrow.Array) (func(i int, seed int32) int32, error) {
	switch a := col.(type) {
	case *array.Boolean:
		return func(i int, s int32) int32 { return HashBool(a.Value(i), s) }, nil
	case *array.Int8:
		return func(i int, s int32) int32 { return HashInt(int32(a.Value(i)), s) }, nil
	case *array.Int16:
		return func(i int, s int32) int32 { return HashInt(int32(a.Value(i)), s) }, nil
	case *array.Int32:
		return func(i int, s int32) int32 { return HashInt(a.Value(i), s) }, nil
	case *array.Date32:
		return func(i int, s int32) int32 { return HashInt(int32(a.Value(i)), s) }, nil
	case *array.Int64:
		return func(i int, s int32) int32 { return HashLong(a.Value(i), s) }, nil
	case *array.Timestamp:
		if u := a.DataType().(*arrow.TimestampType).Unit; u != arrow.Microsecond {
			return nil, fmt.Errorf("%w: hashing timestamp[%s]: Spark timestamps are microseconds", ErrNotSupported, u)
		}
		return func(i int, s int32) int32 { return HashLong(int64(a.Value(i)), s) }, nil
	case *array.Float32:
		return func(i int, s int32) int32 { return HashFloat(a.Value(i), s) }, nil
	case *array.Float64:
		return func(i int, s int32) int32 { return HashDouble(a.Value(i), s) }, nil
	case *array.Decimal64:
		return func(i int, s int32) int32 { return HashLong(int64(a.Value(i)), s) }, nil
	case *array.Decimal128:
		p := int(a.DataType().(*arrow.Decimal128Type).Precision)
		return func(i int, s int32) int32 {
			v := a.Value(i)
			return HashDecimal128(v.HighBits(), v.LowBits(), p, s)
		}, nil
	case *array.Null:
		return func(_ int, s int32) int32 { return s }, nil
	}
	if v, ok := asVarBinary(col); ok {
		return func(i int, s int32) int32 { return HashBytes(v.value(i), s) }, nil
	}
	return nil, fmt.Errorf("%w: hashing %s", ErrNotSupported, col.DataType())
}
