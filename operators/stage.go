package operators

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	hmem "github.com/hados-io/hados/memory"
)

// ErrUnsupportedType is wrapped by the error of a column whose Arrow type
// the device cannot read.
var ErrUnsupportedType = fmt.Errorf("%w: unsupported column type", device.ErrNotSupported)

// staged is the device view of a record's columns for pipeline runs: the
// descriptors, and the device buffers uploaded for memory the device could
// not read in place (released by release).
type staged struct {
	cols    []device.Column
	buffers []*hmem.Buffer
}

func (s *staged) release() {
	for _, b := range s.buffers {
		b.Free()
	}
	s.buffers = nil
}

// stager turns Arrow buffers into device addresses: in place when the
// buffer is host-visible device memory of the pool (zero-copy), else by
// uploading it with one DMA per buffer, gathered into one transfer.
type stager struct {
	t    *Target
	s    *staged
	segs []dma.Segment
}

func (g *stager) addr(b *memory.Buffer) (device.Addr, error) {
	if b == nil || b.Len() == 0 {
		return 0, nil
	}
	bytes := b.Bytes()
	if a, ok := g.t.Pool.Translate(bytes); ok {
		return a, nil
	}
	buf, err := g.t.Pool.Alloc(g.t.Account, uint64(len(bytes)))
	if err != nil {
		return 0, err
	}
	g.s.buffers = append(g.s.buffers, buf)
	g.segs = append(g.segs, dma.Segment{Host: bytes, Dev: buf.Addr})
	return buf.Addr, nil
}

// columnOf describes one Arrow array for the device.
func (g *stager) columnOf(arr arrow.Array) (device.Column, error) {
	d := arr.Data()
	// arr.NullN, not d.NullN: a sliced array's data may not know its count
	// yet (-1); the array computes it from the bitmap
	nulls := arr.NullN()
	c := device.Column{Length: uint64(d.Len()), Offset: uint64(d.Offset()), NullCount: uint64(nulls)}
	bufs := d.Buffers()
	var err error
	if nulls > 0 {
		if c.Validity, err = g.addr(bufs[0]); err != nil {
			return c, err
		}
	}
	dt := arr.DataType()
	if c.VType, err = storageOf(dt); err != nil {
		return c, err
	}
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		c.VType = device.VTStr
		if dt.ID() == arrow.LARGE_STRING {
			c.Flags = device.ColLarge
		}
		if c.Offsets, err = g.addr(bufs[1]); err != nil {
			return c, err
		}
		c.Data, err = g.addr(bufs[2])
		return c, err
	case arrow.DICTIONARY:
		dict := arr.(*array.Dictionary)
		vt := dt.(*arrow.DictionaryType)
		if vt.IndexType.ID() != arrow.INT32 || vt.ValueType.ID() != arrow.STRING {
			return c, fmt.Errorf("%w: dictionary<%s, %s> (want int32 indices of utf8)", ErrUnsupportedType, vt.IndexType, vt.ValueType)
		}
		values := dict.Dictionary().Data()
		if dict.Dictionary().NullN() > 0 {
			return c, fmt.Errorf("%w: a dictionary with null entries", ErrUnsupportedType)
		}
		c.VType, c.Flags = device.VTStr, device.ColDict
		vb := values.Buffers()
		if c.DictOffsets, err = g.addr(vb[1]); err != nil {
			return c, err
		}
		c.DictOffsets += device.Addr(4 * values.Offset())
		if c.DictData, err = g.addr(vb[2]); err != nil {
			return c, err
		}
		c.DictLength = uint64(values.Len())
	}
	c.Data, err = g.addr(bufs[1])
	return c, err
}

// storageOf is the device value type an Arrow column is stored as.
func storageOf(dt arrow.DataType) (device.VType, error) {
	switch dt.ID() {
	case arrow.BOOL:
		return device.VTBool, nil
	case arrow.INT32, arrow.DATE32:
		return device.VTI32, nil
	case arrow.INT64, arrow.TIMESTAMP, arrow.DECIMAL64:
		return device.VTI64, nil
	case arrow.FLOAT64:
		return device.VTF64, nil
	case arrow.DECIMAL128:
		return device.VTI128, nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.DICTIONARY:
		return device.VTStr, nil
	}
	return 0, fmt.Errorf("%w: %s", ErrUnsupportedType, dt)
}

// stage describes the record's columns for the device, uploading what the
// device cannot read in place.
func (t *Target) stage(ctx context.Context, rec arrow.Record) (*staged, error) {
	g := &stager{t: t, s: &staged{}}
	for i, arr := range rec.Columns() {
		c, err := g.columnOf(arr)
		if err != nil {
			g.s.release()
			return nil, fmt.Errorf("column %d (%s): %w", i, rec.Schema().Field(i).Name, err)
		}
		g.s.cols = append(g.s.cols, c)
	}
	if len(g.segs) > 0 {
		if err := t.DMA.Copy(ctx, dma.H2D, g.segs...); err != nil {
			g.s.release()
			return nil, err
		}
	}
	return g.s, nil
}
