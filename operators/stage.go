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
	"github.com/hados-io/hados/operators/pipeline"
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
	// pipeline: the columns feed a pipeline op, which also reads
	// dictionaries with narrow codes and of fixed-width values (see
	// pipelineDict); the other ops take int32 codes of utf8 only
	pipeline bool
}

// MaxDeviceDictionary is the most entries a dictionary of fixed-width
// values may have to stay encoded on the device: the pipeline gathers from
// it per vector, so it must stay cache-resident (64K entries: at most 1 MiB
// of decimal128). A larger one is an unsupported type (decode it on the
// host).
const MaxDeviceDictionary = 1 << 16

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
		if g.pipeline {
			if c.VType, c.Flags, err = pipelineDict(vt); err != nil {
				return c, err
			}
		} else if vt.IndexType.ID() != arrow.INT32 || vt.ValueType.ID() != arrow.STRING {
			return c, fmt.Errorf("%w: dictionary<%s, %s> (want int32 indices of utf8)", ErrUnsupportedType, vt.IndexType, vt.ValueType)
		} else {
			c.VType, c.Flags = device.VTStr, device.ColDict
		}
		values := dict.Dictionary().Data()
		if dict.Dictionary().NullN() > 0 {
			return c, fmt.Errorf("%w: a dictionary with null entries", ErrUnsupportedType)
		}
		vb := values.Buffers()
		if c.VType != device.VTStr {
			if values.Len() > MaxDeviceDictionary {
				return c, fmt.Errorf("%w: %w", ErrUnsupportedType, &pipeline.Unsupported{Code: pipeline.ReasonDataType,
					Msg: fmt.Sprintf("dictionary of %d entries (at most %d stay encoded on the device)", values.Len(), MaxDeviceDictionary)})
			}
			if c.DictData, err = g.addr(vb[1]); err != nil {
				return c, err
			}
			if c.DictData != 0 {
				c.DictData += device.Addr(c.VType.Width() * values.Offset())
			}
			c.DictLength = uint64(values.Len())
			c.Data, err = g.addr(bufs[1])
			return c, err
		}
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

// pipelineDict is the value type and flags of a dictionary column a
// pipeline reads: codes int8, uint8, int16 or int32; values utf8 or a
// fixed-width type of storageOf (not boolean).
func pipelineDict(dt *arrow.DictionaryType) (device.VType, uint32, error) {
	flags := device.ColDict
	switch dt.IndexType.ID() {
	case arrow.INT8:
		flags |= device.ColIdx8
	case arrow.UINT8:
		flags |= device.ColIdxU8
	case arrow.INT16:
		flags |= device.ColIdx16
	case arrow.INT32:
	default:
		return 0, 0, fmt.Errorf("%w: dictionary<%s, %s> (want int8, uint8, int16 or int32 indices)", ErrUnsupportedType, dt.IndexType, dt.ValueType)
	}
	vt, err := storageOf(dt.ValueType)
	if err != nil || vt == device.VTBool || dt.ValueType.ID() == arrow.LARGE_STRING || dt.ValueType.ID() == arrow.DICTIONARY {
		return 0, 0, fmt.Errorf("%w: dictionary<%s, %s> (want values of utf8 or a fixed-width number, date or timestamp type)", ErrUnsupportedType, dt.IndexType, dt.ValueType)
	}
	return vt, flags, nil
}

// pipelineStorageOf is storageOf for a pipeline's input: a dictionary
// column is stored as its values' type.
func pipelineStorageOf(dt arrow.DataType) (device.VType, error) {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		vt, _, err := pipelineDict(d)
		return vt, err
	}
	return storageOf(dt)
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
	return t.stageFor(ctx, rec, false)
}

// stagePipeline is stage for a pipeline op's input: dictionary columns
// with narrow codes or fixed-width values stay encoded (pipelineDict).
func (t *Target) stagePipeline(ctx context.Context, rec arrow.Record) (*staged, error) {
	return t.stageFor(ctx, rec, true)
}

func (t *Target) stageFor(ctx context.Context, rec arrow.Record, forPipeline bool) (*staged, error) {
	g := &stager{t: t, s: &staged{}, pipeline: forPipeline}
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
