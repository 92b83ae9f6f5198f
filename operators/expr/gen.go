package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/operators/types"
)

// Random inputs and expressions for differential tests: device kernels
// and operators are checked against Eval on the batches and trees made
// here. Everything is deterministic for a given rng, and the values are
// biased towards edge cases (zero, -1, the limits of each type, NaN and
// ±0.0, decimals with all digits 9, empty and multi-byte strings, dates
// around 1900, 1970 and 2100, numeric- and date-looking strings).

// EvalKinds lists the kinds the reference evaluator supports (besides the
// null type of untyped NULL literals). Treat it as read-only.
var EvalKinds = []types.Kind{
	types.Boolean, types.Int, types.Long, types.Double, types.Decimal, types.Date, types.Timestamp, types.String,
}

// RandomType returns a random evaluable type of the kind (a random kind of
// EvalKinds when kind is KindUnknown); decimals favour interesting
// precisions and scales (1, 18, 19, 38, scale 0 and scale = precision).
func RandomType(rng *rand.Rand, kind types.Kind) types.DataType {
	if kind == types.KindUnknown {
		kind = EvalKinds[rng.IntN(len(EvalKinds))]
	}
	if kind != types.Decimal {
		return types.DataType{Kind: kind}
	}
	fixed := [][2]int{{1, 0}, {5, 2}, {7, 7}, {10, 0}, {12, 2}, {18, 4}, {18, 0}, {19, 0}, {20, 10}, {38, 0}, {38, 10}, {38, 38}}
	if rng.IntN(3) > 0 {
		f := fixed[rng.IntN(len(fixed))]
		return types.DecimalOf(f[0], f[1])
	}
	p := 1 + rng.IntN(types.MaxPrecision)
	return types.DecimalOf(p, rng.IntN(p+1))
}

// RandomSchema returns a schema of cols nullable columns named c0, c1, …
// of random evaluable types, in every Arrow encoding the evaluator reads:
// strings as utf8, large_utf8 or dictionary<int32, utf8>.
func RandomSchema(rng *rand.Rand, cols int) *arrow.Schema {
	fields := make([]arrow.Field, cols)
	for i := range fields {
		t := RandomType(rng, types.KindUnknown)
		at, err := types.ToArrow(t)
		if err != nil {
			panic(err) // RandomType makes only valid types
		}
		if t.Kind == types.String {
			switch rng.IntN(3) {
			case 1:
				at = arrow.BinaryTypes.LargeString
			case 2:
				at = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
			}
		}
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: at, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// RandomRecord returns rows random rows of schema, each value NULL with
// probability nullFrac, allocated from mem (nil: the default allocator).
// The caller owns the record and must Release it. It panics if a column's
// type is not one the evaluator reads (see Validate).
func RandomRecord(rng *rand.Rand, schema *arrow.Schema, rows int, nullFrac float64, mem memory.Allocator) arrow.Record {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range schema.Fields() {
		t, err := types.FromArrow(f.Type)
		if err != nil || !evaluable(t) || !readableArrow(f.Type) {
			panic(fmt.Sprintf("expr: RandomRecord: column %d (%s) has unsupported type %s", i, f.Name, f.Type))
		}
		b := array.NewBuilder(mem, f.Type)
		for r := 0; r < rows; r++ {
			var v any
			if rng.Float64() >= nullFrac {
				v = RandomValue(rng, t)
			}
			if err := appendValue(b, v); err != nil {
				b.Release()
				panic(fmt.Sprintf("expr: RandomRecord: column %d (%s): %v", i, f.Name, err))
			}
		}
		cols[i] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(schema, cols, int64(rows))
}

// RandomValue returns a random non-null value of t in the evaluator's Go
// representation (see Expr), an edge case about a third of the time.
func RandomValue(rng *rand.Rand, t types.DataType) any {
	edge := rng.IntN(3) == 0
	switch t.Kind {
	case types.Boolean:
		return rng.IntN(2) == 0
	case types.Int:
		if edge {
			return pick(rng, []int32{0, 1, -1, 2, math.MinInt32, math.MaxInt32, math.MinInt32 + 1, 10, 100})
		}
		if rng.IntN(2) == 0 {
			return int32(rng.IntN(201) - 100)
		}
		return int32(rng.Uint32())
	case types.Long:
		if edge {
			return pick(rng, []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, 1 << 53, 1_000_000})
		}
		if rng.IntN(2) == 0 {
			return int64(rng.IntN(20001) - 10000)
		}
		return int64(rng.Uint64())
	case types.Double:
		if edge {
			return pick(rng, []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -2.5, math.NaN(), math.Inf(1), math.Inf(-1),
				math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1e7, 1e-3, 0.1, 123.456, 9.223372036854776e18})
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-6))
	case types.Decimal:
		return randomDecimal(rng, t.Precision, t.Scale, edge)
	case types.Date:
		return randomDate(rng, edge)
	case types.Timestamp:
		if edge && rng.IntN(2) == 0 {
			return pick(rng, []int64{0, -1, 1, microsPerSecond, -microsPerDay, 1_500_000})
		}
		return int64(randomDate(rng, edge))*microsPerDay + rng.Int64N(microsPerDay)
	case types.String:
		return randomString(rng, edge)
	}
	panic(fmt.Sprintf("expr: RandomValue: unsupported type %s", t))
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// randomDecimal returns an unscaled value fitting decimal(p,s).
func randomDecimal(rng *rand.Rand, p, s int, edge bool) *big.Int {
	maxU := new(big.Int).Sub(pow10(p), big.NewInt(1))
	if edge {
		switch rng.IntN(6) {
		case 0:
			return new(big.Int)
		case 1:
			return big.NewInt(1)
		case 2:
			return big.NewInt(-1)
		case 3:
			return maxU
		case 4:
			return new(big.Int).Neg(maxU)
		default: // ±0.5 (or ±5 at scale 0)
			u := new(big.Int).Mul(big.NewInt(5), pow10(max(s-1, 0)))
			if rng.IntN(2) == 0 {
				u.Neg(u)
			}
			return u
		}
	}
	digits := 1 + rng.IntN(p)
	buf := make([]byte, digits)
	for i := range buf {
		buf[i] = byte('0' + rng.IntN(10))
	}
	u, _ := new(big.Int).SetString(string(buf), 10)
	if rng.IntN(2) == 0 {
		u.Neg(u)
	}
	return u
}

// randomDate returns days near 1970, 1900, 2000-02-29, 2100 or the ends of
// years 1 and 9999, or anywhere between.
func randomDate(rng *rand.Rand, edge bool) int32 {
	bases := []int32{0, DaysFromCivil(1900, 1, 1), DaysFromCivil(2000, 2, 29), DaysFromCivil(2100, 12, 31),
		DaysFromCivil(1, 1, 1), DaysFromCivil(9999, 12, 31)}
	if edge {
		return pick(rng, bases) + int32(rng.IntN(3)-1)
	}
	if rng.IntN(2) == 0 {
		return pick(rng, bases[:4]) + int32(rng.IntN(2001)-1000)
	}
	lo, hi := DaysFromCivil(1, 1, 1), DaysFromCivil(9999, 12, 31)
	return lo + int32(rng.IntN(int(hi-lo)+1))
}

// stringPool holds strings that exercise casts, LIKE and substring.
var stringPool = []string{
	"", "a", "abc", "ABC", " 12 ", "-7", "+3", "1.5", "1e3", "007", ".", "2020-02-29", "2021-13-01",
	"1900-01-01 12:00", "2000-1-2T3", "1970", "1970-06", "true", "No", "y", "NaN", "Infinity", "-inf", "1.0E-5", "1d",
	"0x1p3", "99999999999", "-2147483648", "9223372036854775808", "12345678901234567890.123456789",
	"%", "_", "\\", "a%b_c", "é", "日本語", "😀x", "\t42\n", "a\nb",
}

var stringRunes = []rune("ab%_\\ é日😀01-.")

func randomString(rng *rand.Rand, edge bool) string {
	if edge || rng.IntN(2) == 0 {
		return pick(rng, stringPool)
	}
	var b strings.Builder
	for n := rng.IntN(8); n > 0; n-- {
		b.WriteRune(pick(rng, stringRunes))
	}
	return b.String()
}

// RandomLikePattern returns a valid LIKE pattern over the characters
// randomString uses.
func RandomLikePattern(rng *rand.Rand) string {
	pieces := []string{"%", "_", "a", "b", "é", "日", "😀", "\\%", "\\_", "\\\\", "1", "-"}
	var b strings.Builder
	for n := rng.IntN(5); n > 0; n-- {
		b.WriteString(pick(rng, pieces))
	}
	return b.String()
}

// withMaxPrecision returns a decimal type of at most p digits (UnscaledValue
// needs p <= 18), keeping the scale within the precision.
func withMaxPrecision(t types.DataType, p int) types.DataType {
	if t.Precision <= p {
		return t
	}
	return types.DecimalOf(p, min(t.Scale, p))
}
