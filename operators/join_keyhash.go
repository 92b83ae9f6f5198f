package operators

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The grace hash join's partitioning hash. Two rows whose keys the device
// join finds equal must land in the same partition, so the hash follows the
// device's key equality, not Spark's Murmur3 (which depends on the decimal
// precision and on how a string is encoded): integers of every width hash
// as int64, doubles with -0 folded into 0 and every NaN into one NaN,
// decimals by their 128-bit unscaled value, strings by their bytes
// whatever the encoding (utf8, large utf8, dictionary). A null in a
// null-safe key hashes as a constant; a null in another key makes the row
// match nothing, which the caller learns from the nulls flags.

const (
	hashMul  = 0x9E3779B97F4A7C15
	hashNull = 0x5851F42D4C957F2D // a null of a null-safe key
)

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

func hashCombine(h, x uint64) uint64 { return fmix64(h + x*hashMul + 0x632BE59BD9B4E019) }

// hashString hashes a string's bytes 8 at a time.
func hashString(s string) uint64 {
	h := uint64(len(s)) * hashMul
	for len(s) >= 8 {
		h = hashCombine(h, binary.LittleEndian.Uint64([]byte(s[:8])))
		s = s[8:]
	}
	var tail [8]byte
	copy(tail[:], s)
	return hashCombine(h, binary.LittleEndian.Uint64(tail[:]))
}

// hashJoinKeys sets h[i] to the hash of row i's keys (cols, all of the
// rows' length) under seed, and nulls[i] when the row has a null in a key
// that is not null-safe (nullSafe nil: none is). h and nulls have at least
// as many entries as the rows.
func hashJoinKeys(cols []arrow.Array, nullSafe []bool, seed uint64, h []uint64, nulls []bool) error {
	if len(cols) == 0 {
		return fmt.Errorf("hash join: partition hash of no keys")
	}
	rows := cols[0].Len()
	start := fmix64(seed*hashMul + 1)
	for i := range rows {
		h[i] = start
		nulls[i] = false
	}
	for k, c := range cols {
		if c.Len() != rows {
			return fmt.Errorf("hash join: key %d has %d rows, key 0 %d", k, c.Len(), rows)
		}
		val, err := keyValueHasher(c)
		if err != nil {
			return fmt.Errorf("hash join: key %d: %w", k, err)
		}
		safe := nullSafe != nil && nullSafe[k]
		for i := range rows {
			if c.IsNull(i) {
				if !safe {
					nulls[i] = true
				}
				h[i] = hashCombine(h[i], hashNull)
				continue
			}
			h[i] = hashCombine(h[i], val(i))
		}
	}
	for i := range rows {
		h[i] = fmix64(h[i] ^ seed)
	}
	return nil
}

// keyValueHasher returns the hash of a non-null value of col by row.
func keyValueHasher(col arrow.Array) (func(i int) uint64, error) {
	switch a := col.(type) {
	case *array.Boolean:
		return func(i int) uint64 {
			if a.Value(i) {
				return 1
			}
			return 0
		}, nil
	case *array.Int32:
		return func(i int) uint64 { return uint64(int64(a.Value(i))) }, nil
	case *array.Date32:
		return func(i int) uint64 { return uint64(int64(a.Value(i))) }, nil
	case *array.Int64:
		return func(i int) uint64 { return uint64(a.Value(i)) }, nil
	case *array.Timestamp:
		return func(i int) uint64 { return uint64(a.Value(i)) }, nil
	case *array.Decimal64:
		return func(i int) uint64 { return uint64(int64(a.Value(i))) }, nil
	case *array.Float64:
		return func(i int) uint64 {
			v := a.Value(i)
			switch {
			case v == 0:
				v = 0 // -0 equals 0
			case math.IsNaN(v):
				return 0x7FF8000000000000
			}
			return math.Float64bits(v)
		}, nil
	case *array.Decimal128:
		return func(i int) uint64 {
			v := a.Value(i)
			return hashCombine(v.LowBits(), uint64(v.HighBits()))
		}, nil
	case *array.String:
		return func(i int) uint64 { return hashString(a.Value(i)) }, nil
	case *array.LargeString:
		return func(i int) uint64 { return hashString(a.Value(i)) }, nil
	case *array.Dictionary:
		inner, err := keyValueHasher(a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(i int) uint64 { return inner(a.GetValueIndex(i)) }, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupportedType, col.DataType())
}
