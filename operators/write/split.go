package write

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// partition is the set of rows of one record that share a partition
// directory. It owns no memory.
type partition struct {
	path   string // "a=1/b=x", the escaped directory path
	values []PartitionValue
	runs   [][2]int64 // [start, end) row ranges, ascending
}

// rows counts the rows of p.
func (p *partition) rows() int64 {
	var n int64
	for _, r := range p.runs {
		n += r[1] - r[0]
	}
	return n
}

// splitter groups the rows of a record by the values of the partition
// columns. Spark sorts the rows of a dynamic-partition write by those
// columns, so rows of one directory usually come in one run; unsorted input
// is handled too, at the cost of a gather.
type splitter struct {
	cols   []int // partition column indexes in the record
	names  []string
	format []valueFormatter
}

func newSplitter(c *config) (*splitter, error) {
	s := &splitter{cols: c.partIdx}
	for _, idx := range c.partIdx {
		f := c.Schema.Field(idx)
		vf, err := partitionFormatter(f, c.loc)
		if err != nil {
			return nil, err
		}
		s.names = append(s.names, f.Name)
		s.format = append(s.format, vf)
	}
	return s, nil
}

// split returns the partitions of rec in order of first appearance.
func (s *splitter) split(rec arrow.Record) []*partition {
	var (
		out    []*partition
		byPath = map[string]*partition{}
		n      = rec.NumRows()
		eq     = make([]equalFunc, len(s.cols))
	)
	for k, c := range s.cols {
		eq[k] = equalFor(rec.Column(c))
	}
	same := func(i, j int) bool {
		for _, e := range eq {
			if !e(i, j) {
				return false
			}
		}
		return true
	}
	// Formatting a directory name is far dearer than hashing the raw
	// values: runs whose raw key was seen before skip it.
	var (
		byRaw = map[string]*partition{}
		raw   = make([]rawAppender, len(s.cols))
		buf   []byte
	)
	for k, c := range s.cols {
		raw[k] = rawFor(rec.Column(c))
	}
	for start := int64(0); start < n; {
		end := start + 1
		for end < n && same(int(start), int(end)) {
			end++
		}
		buf = buf[:0]
		for _, r := range raw {
			buf = r(buf, int(start))
		}
		p := byRaw[string(buf)]
		if p == nil {
			values, path := s.key(rec, int(start))
			if p = byPath[path]; p == nil {
				p = &partition{path: path, values: values}
				byPath[path] = p
				out = append(out, p)
			}
			byRaw[string(buf)] = p
		}
		if last := len(p.runs) - 1; last >= 0 && p.runs[last][1] == start {
			p.runs[last][1] = end // NaN-like values never equal: merge adjacent runs
		} else {
			p.runs = append(p.runs, [2]int64{start, end})
		}
		start = end
	}
	return out
}

// rawAppender appends to buf an encoding of row i of one column that is
// equal for two rows exactly when equalFor says so.
type rawAppender func(buf []byte, i int) []byte

func rawFor(col arrow.Array) rawAppender {
	var val rawAppender
	switch a := col.(type) {
	case *array.Boolean:
		val = func(b []byte, i int) []byte {
			if a.Value(i) {
				return append(b, 1)
			}
			return append(b, 0)
		}
	case *array.Int8:
		val = func(b []byte, i int) []byte { return append(b, byte(a.Value(i))) }
	case *array.Int16:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint16(b, uint16(a.Value(i))) }
	case *array.Int32:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(a.Value(i))) }
	case *array.Int64:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, uint64(a.Value(i))) }
	case *array.Float32:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint32(b, math.Float32bits(a.Value(i))) }
	case *array.Float64:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(a.Value(i))) }
	case *array.Date32:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(a.Value(i))) }
	case *array.Timestamp:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, uint64(a.Value(i))) }
	case *array.Decimal32:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(a.Value(i))) }
	case *array.Decimal64:
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, uint64(a.Value(i))) }
	case *array.Decimal128:
		val = func(b []byte, i int) []byte {
			v := a.Value(i)
			return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(b, v.LowBits()), uint64(v.HighBits()))
		}
	case *array.String:
		val = func(b []byte, i int) []byte {
			v := a.Value(i)
			return append(binary.AppendUvarint(b, uint64(len(v))), v...)
		}
	case *array.LargeString:
		val = func(b []byte, i int) []byte {
			v := a.Value(i)
			return append(binary.AppendUvarint(b, uint64(len(v))), v...)
		}
	default:
		// only reached for types newSplitter rejects; keep runs apart
		val = func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, uint64(i)) }
	}
	return func(b []byte, i int) []byte {
		if col.IsNull(i) {
			return append(b, 0)
		}
		return val(append(b, 1), i)
	}
}

// equalFunc reports whether rows i and j of one column hold the same value
// (two nulls are the same). Equal values must format to the same partition
// directory; different ones may (they then share the directory).
type equalFunc func(i, j int) bool

// equalFor returns the equalFunc of col: typed for the partition column
// types, floats compared by bits so that 0.0 and -0.0 stay apart.
func equalFor(col arrow.Array) equalFunc {
	switch a := col.(type) {
	case *array.Boolean:
		return withNulls(a, func(i, j int) bool { return a.Value(i) == a.Value(j) })
	case *array.Int8:
		return valuesEqual(a, a.Int8Values())
	case *array.Int16:
		return valuesEqual(a, a.Int16Values())
	case *array.Int32:
		return valuesEqual(a, a.Int32Values())
	case *array.Int64:
		return valuesEqual(a, a.Int64Values())
	case *array.Float32:
		return withNulls(a, func(i, j int) bool {
			return math.Float32bits(a.Value(i)) == math.Float32bits(a.Value(j))
		})
	case *array.Float64:
		return withNulls(a, func(i, j int) bool {
			return math.Float64bits(a.Value(i)) == math.Float64bits(a.Value(j))
		})
	case *array.String:
		return withNulls(a, func(i, j int) bool { return a.Value(i) == a.Value(j) })
	case *array.LargeString:
		return withNulls(a, func(i, j int) bool { return a.Value(i) == a.Value(j) })
	case *array.Date32:
		return valuesEqual(a, a.Date32Values())
	case *array.Timestamp:
		return valuesEqual(a, a.TimestampValues())
	case *array.Decimal32:
		return valuesEqual(a, a.Values())
	case *array.Decimal64:
		return valuesEqual(a, a.Values())
	case *array.Decimal128:
		return valuesEqual(a, a.Values())
	}
	return func(i, j int) bool {
		return array.SliceEqual(col, int64(i), int64(i+1), col, int64(j), int64(j+1))
	}
}

func valuesEqual[T comparable](a arrow.Array, vals []T) equalFunc {
	return withNulls(a, func(i, j int) bool { return vals[i] == vals[j] })
}

func withNulls(a arrow.Array, eq equalFunc) equalFunc {
	if a.NullN() == 0 {
		return eq
	}
	return func(i, j int) bool {
		ni, nj := a.IsNull(i), a.IsNull(j)
		if ni || nj {
			return ni == nj
		}
		return eq(i, j)
	}
}

// key formats the partition values of row i and the directory path.
func (s *splitter) key(rec arrow.Record, i int) ([]PartitionValue, string) {
	values := make([]PartitionValue, len(s.cols))
	segs := make([]string, len(s.cols))
	for k, c := range s.cols {
		col := rec.Column(c)
		v := PartitionValue{Column: s.names[k]}
		if col.IsNull(i) {
			v.Null = true
		} else if v.Value = s.format[k](col, i); v.Value == "" {
			v.Null = true
		}
		values[k] = v
		segs[k] = PartitionPathSegment(v.Column, v.Value, v.Null)
	}
	return values, strings.Join(segs, "/")
}

// take returns the rows of p from data (the stored columns of the same
// record) as one record: a zero-copy slice for a single run, a gather
// otherwise. The caller releases the result.
func (p *partition) take(ctx context.Context, data arrow.Record) (arrow.Record, error) {
	if len(p.runs) == 1 {
		return data.NewSlice(p.runs[0][0], p.runs[0][1]), nil
	}
	mem := exec.GetAllocator(ctx)
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	ib.Reserve(int(p.rows()))
	for _, r := range p.runs {
		for i := r[0]; i < r[1]; i++ {
			ib.UnsafeAppend(i)
		}
	}
	idx := ib.NewArray()
	defer idx.Release()

	cols := make([]arrow.Array, data.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		c, err := compute.TakeArray(ctx, data.Column(i), idx)
		if errors.Is(err, arrow.ErrNotImplemented) {
			c, err = p.concatRuns(data.Column(i), mem)
		}
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", data.Schema().Field(i).Name, err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(data.Schema(), cols, int64(idx.Len())), nil
}

// concatRuns gathers the runs of p from col by concatenating slices: the
// fallback for types arrow's take kernel does not cover.
func (p *partition) concatRuns(col arrow.Array, mem memory.Allocator) (arrow.Array, error) {
	slices := make([]arrow.Array, len(p.runs))
	for k, r := range p.runs {
		slices[k] = array.NewSlice(col, r[0], r[1])
	}
	defer func() {
		for _, s := range slices {
			s.Release()
		}
	}()
	return array.Concatenate(slices, mem)
}
