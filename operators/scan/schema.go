package scan

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/hados-io/hados/operators/types"
)

// fileCol is one top-level column of a Parquet file as the scan sees it.
type fileCol struct {
	name  string
	leaf  int // Parquet leaf (column chunk) index
	descr *schema.Column
	read  arrow.DataType // what pqarrow decodes it to
	spark types.DataType // the Spark type it holds
	err   error          // why the column cannot be read (unsupported type)
	// toMicros converts the column's int64 timestamps to microseconds.
	toMicros func(int64) int64
}

// fileSchema maps column names of one file to its columns.
type fileSchema struct {
	cols   []*fileCol
	byName map[string]*fileCol
}

func (s *fileSchema) lookup(name string) *fileCol {
	if c, ok := s.byName[name]; ok {
		return c
	}
	for _, c := range s.cols { // Spark resolves names case-insensitively by default
		if strings.EqualFold(c.name, name) {
			return c
		}
	}
	return nil
}

// readSchema derives the columns of a file from its footer.
func readSchema(path string, md *metadata.FileMetaData) (*fileSchema, error) {
	as, err := pqarrow.FromParquet(md.Schema, &pqarrow.ArrowReadProperties{}, md.KeyValueMetadata())
	if err != nil {
		return nil, fmt.Errorf("%w: schema: %v", ErrCorrupt, err)
	}
	fs := &fileSchema{byName: map[string]*fileCol{}}
	leaves := map[string]int{}
	for i := 0; i < md.Schema.NumColumns(); i++ {
		c := md.Schema.Column(i)
		if len(c.ColumnPath()) == 1 {
			leaves[c.ColumnPath()[0]] = i
		}
	}
	for _, f := range as.Fields() {
		fc := &fileCol{name: f.Name, leaf: -1, read: f.Type, toMicros: func(v int64) int64 { return v }}
		if li, ok := leaves[f.Name]; ok {
			fc.leaf = li
			fc.descr = md.Schema.Column(li)
		}
		fc.spark, fc.toMicros, fc.err = sparkTypeOf(f.Type, fc.descr)
		if fc.err != nil || fc.leaf < 0 {
			fc.err = &UnsupportedTypeError{File: path, Column: f.Name, Type: f.Type.String()}
		}
		fs.cols = append(fs.cols, fc)
		fs.byName[f.Name] = fc
	}
	return fs, nil
}

// sparkTypeOf maps what pqarrow decodes a column to onto the Spark type it
// holds: timestamps of any unit become microseconds (INT96, which pqarrow
// reads as timestamp[ns] without a zone, is Spark's legacy UTC timestamp).
func sparkTypeOf(t arrow.DataType, descr *schema.Column) (types.DataType, func(int64) int64, error) {
	id := func(v int64) int64 { return v }
	if ts, ok := t.(*arrow.TimestampType); ok {
		conv := id
		switch ts.Unit {
		case arrow.Second:
			conv = func(v int64) int64 { return v * 1e6 }
		case arrow.Millisecond:
			conv = func(v int64) int64 { return v * 1e3 }
		case arrow.Nanosecond:
			conv = func(v int64) int64 { return floorDiv(v, 1e3) }
		}
		if ts.TimeZone != "" || (descr != nil && descr.PhysicalType() == parquet.Types.Int96) {
			return types.TimestampType, conv, nil
		}
		return types.TimestampNTZType, conv, nil
	}
	st, err := types.FromArrow(t)
	if err != nil {
		return types.Unknown, id, err
	}
	if t.ID() == arrow.DICTIONARY || t.ID() == arrow.LARGE_STRING || t.ID() == arrow.STRING_VIEW ||
		t.ID() == arrow.LARGE_BINARY || t.ID() == arrow.BINARY_VIEW || t.ID() == arrow.NULL {
		return types.Unknown, id, fmt.Errorf("unexpected decoded type %s", t)
	}
	return st, id, nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// decodeStat decodes one plain-encoded statistic or page-index bound (no
// length prefix) into the column's domain; ok is false when it cannot.
func (c *fileCol) decodeStat(b []byte) (datum, bool) {
	switch c.descr.PhysicalType() {
	case parquet.Types.Boolean:
		if len(b) < 1 {
			return nil, false
		}
		return b[0] != 0, true
	case parquet.Types.Int32:
		if len(b) != 4 {
			return nil, false
		}
		return c.fromInt(int64(int32(binary.LittleEndian.Uint32(b))))
	case parquet.Types.Int64:
		if len(b) != 8 {
			return nil, false
		}
		return c.fromInt(int64(binary.LittleEndian.Uint64(b)))
	case parquet.Types.Float:
		if len(b) != 4 {
			return nil, false
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), true
	case parquet.Types.Double:
		if len(b) != 8 {
			return nil, false
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), true
	case parquet.Types.ByteArray, parquet.Types.FixedLenByteArray:
		if c.spark.Kind == types.Decimal {
			if len(b) == 0 || len(b) > 32 {
				return nil, false
			}
			return unscaledRat(twosComplement(b), c.spark.Scale), true
		}
		return append([]byte(nil), b...), true
	}
	return nil, false // INT96 has no defined order
}

func (c *fileCol) fromInt(v int64) (datum, bool) {
	switch c.spark.Kind {
	case types.Decimal:
		return unscaledRat(big.NewInt(v), c.spark.Scale), true
	case types.Timestamp, types.TimestampNTZ:
		return c.toMicros(v), true
	case types.Boolean, types.Float, types.Double, types.String, types.Binary:
		return nil, false
	}
	return v, true
}

// twosComplement reads a big-endian two's complement integer.
func twosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// decodeDict decodes the n plain-encoded values of a dictionary page.
func (c *fileCol) decodeDict(data []byte, n int) ([]datum, error) {
	if n < 0 || n > len(data)*8+1 {
		return nil, fmt.Errorf("dictionary of %d values in %d bytes", n, len(data))
	}
	out := make([]datum, 0, n)
	width := 0
	switch c.descr.PhysicalType() {
	case parquet.Types.Int32, parquet.Types.Float:
		width = 4
	case parquet.Types.Int64, parquet.Types.Double:
		width = 8
	case parquet.Types.FixedLenByteArray:
		width = c.descr.TypeLength()
	case parquet.Types.ByteArray:
	default:
		return nil, fmt.Errorf("no dictionary decoding for %s", c.descr.PhysicalType())
	}
	for i := 0; i < n; i++ {
		var raw []byte
		if width > 0 {
			if len(data) < width {
				return nil, fmt.Errorf("dictionary truncated at value %d", i)
			}
			raw, data = data[:width], data[width:]
		} else {
			if len(data) < 4 {
				return nil, fmt.Errorf("dictionary truncated at value %d", i)
			}
			l := binary.LittleEndian.Uint32(data)
			if uint64(l) > uint64(len(data)-4) {
				return nil, fmt.Errorf("dictionary value %d overruns the page", i)
			}
			raw, data = data[4:4+l], data[4+l:]
		}
		d, ok := c.decodeStat(raw)
		if !ok {
			return nil, fmt.Errorf("dictionary value %d does not decode", i)
		}
		out = append(out, d)
	}
	return out, nil
}
