package operators

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	hmem "github.com/hados-io/hados/memory"
)

// outputs allocates the buffers kernels write results into and turns them
// into Arrow arrays afterwards: on a host-visible device the buffers are
// device memory from an Arrow allocator, handed over as they are
// (zero-copy); on a discrete device they are device-only and their used
// bytes are copied back by DMA into pinned host memory.
type outputs struct {
	t     *Target
	dev   *hmem.Allocator // host-visible devices
	host  *hmem.Allocator
	owned []*outBuf
	specs []*hmem.Buffer // uploaded output specs (newPart)

	// uninit: the kernels writing these outputs write every byte the
	// handed-over arrays expose (each row's value and validity, string
	// offsets and bytes), so buffers need not be zeroed first. Set by the
	// operator that knows it; poisoned allocations in tests check it.
	uninit bool
}

type outBuf struct {
	addr  device.Addr
	size  int
	view  []byte       // host-visible: the device memory
	dbuf  *hmem.Buffer // discrete: device-only
	taken bool
}

func newOutputs(t *Target) *outputs {
	o := &outputs{t: t, host: hmem.NewHostAllocator(t.Host, t.Account)}
	if t.HostVisible() {
		o.dev, _ = hmem.NewDeviceAllocator(t.Pool, t.Account)
	}
	return o
}

// alloc returns a device buffer of n bytes (at least 1).
func (o *outputs) alloc(n int) (b *outBuf, err error) {
	n = max(n, 1)
	b = &outBuf{size: n}
	if o.dev != nil {
		err = hmem.Catch(func() error {
			if o.uninit {
				b.view = o.dev.AllocateUninit(n)
			} else {
				b.view = o.dev.Allocate(n)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		a, ok := o.t.Pool.Translate(b.view)
		if !ok {
			o.dev.Free(b.view)
			return nil, fmt.Errorf("operators: output buffer is not in device memory")
		}
		b.addr = a
	} else {
		if b.dbuf, err = o.t.Pool.Alloc(o.t.Account, uint64(n)); err != nil {
			return nil, err
		}
		b.addr = b.dbuf.Addr
	}
	o.owned = append(o.owned, b)
	return b, nil
}

// arrow hands the first n bytes over as an Arrow buffer (the caller owns it).
func (o *outputs) arrow(ctx context.Context, b *outBuf, n int) (*memory.Buffer, error) {
	b.taken = true
	if n == 0 { // nothing to hand over: an empty slice cannot carry the allocation back to Free
		if b.view != nil {
			o.dev.Free(b.view)
		} else {
			b.dbuf.Free()
		}
		return memory.NewBufferBytes([]byte{}), nil
	}
	if b.view != nil {
		return memory.NewBufferWithAllocator(b.view[:n:n], o.dev), nil
	}
	var hb []byte
	// the DMA below overwrites all n bytes
	if err := hmem.Catch(func() error { hb = o.host.AllocateUninit(n); return nil }); err != nil {
		b.dbuf.Free()
		return nil, err
	}
	if n > 0 {
		if err := o.t.DMA.Copy(ctx, dma.D2H, dma.Segment{Host: hb, Dev: b.addr, Len: uint64(n)}); err != nil {
			o.host.Free(hb)
			b.dbuf.Free()
			return nil, err
		}
	}
	b.dbuf.Free()
	return memory.NewBufferWithAllocator(hb, o.host), nil
}

// read copies n bytes of a buffer to the host (offsets, counts).
func (o *outputs) read(ctx context.Context, b *outBuf, n int) ([]byte, error) {
	if b.view != nil {
		return b.view[:n], nil
	}
	h := make([]byte, n)
	if n == 0 {
		return h, nil
	}
	return h, o.t.DMA.Copy(ctx, dma.D2H, dma.Segment{Host: h, Dev: b.addr, Len: uint64(n)})
}

// release frees every buffer not handed over, and the uploaded specs.
func (o *outputs) release() {
	for _, b := range o.specs {
		b.Free()
	}
	o.specs = nil
	for _, b := range o.owned {
		if b.taken {
			continue
		}
		if b.view != nil {
			o.dev.Free(b.view)
		} else if b.dbuf != nil {
			b.dbuf.Free()
		}
	}
	o.owned = nil
}

// outColumn is an output column under construction.
type outColumn struct {
	typ                     arrow.DataType
	vt                      device.VType
	validity, data, offsets *outBuf
}

// newColumn allocates an output column for capRows rows (and capBytes of
// string data).
func (o *outputs) newColumn(typ arrow.DataType, vt device.VType, capRows, capBytes int) (*outColumn, error) {
	c := &outColumn{typ: typ, vt: vt}
	var err error
	if c.validity, err = o.alloc((capRows + 7) / 8); err != nil {
		return nil, err
	}
	switch vt {
	case device.VTBool:
		c.data, err = o.alloc((capRows + 7) / 8)
	case device.VTStr:
		if c.offsets, err = o.alloc(4 * (capRows + 1)); err == nil {
			c.data, err = o.alloc(capBytes)
		}
	default:
		c.data, err = o.alloc(vt.Width() * capRows)
	}
	return c, err
}

// newColumns allocates an output column for each field of out (device
// types vts, one a field) for capRows rows and capBytes of string data
// each, and returns them with their device descriptors.
func (o *outputs) newColumns(out *arrow.Schema, vts []device.VType, capRows, capBytes int) ([]*outColumn, []device.Column, error) {
	cols := make([]*outColumn, len(vts))
	descs := make([]device.Column, len(vts))
	for j, vt := range vts {
		c, err := o.newColumn(out.Field(j).Type, vt, capRows, capBytes)
		if err != nil {
			return nil, nil, err
		}
		cols[j], descs[j] = c, c.desc()
	}
	return cols, descs, nil
}

// newPart allocates the output columns of one op writing n rows (see
// newColumns) and uploads their spec (hados_project_out), freed by
// release; it returns the columns and the spec's device address.
func (o *outputs) newPart(ctx context.Context, out *arrow.Schema, vts []device.VType, n, capBytes int) ([]*outColumn, device.Addr, error) {
	cols, descs, err := o.newColumns(out, vts, n, capBytes)
	if err != nil {
		return nil, 0, err
	}
	spec, err := o.t.upload(ctx, device.EncodeColumns(descs, uint64(n)))
	if err != nil {
		return nil, 0, err
	}
	o.specs = append(o.specs, spec)
	return cols, spec.Addr, nil
}

// desc is the device descriptor of an output column.
func (c *outColumn) desc() device.Column {
	d := device.Column{VType: c.vt, Validity: c.validity.addr, Data: c.data.addr}
	if c.offsets != nil {
		d.Offsets = c.offsets.addr
		d.Capacity = uint64(c.data.size)
	}
	return d
}

// array builds the Arrow array of the first n rows (the caller owns it).
func (o *outputs) array(ctx context.Context, c *outColumn, n int) (arrow.Array, error) {
	vbytes, err := o.read(ctx, c.validity, (n+7)/8)
	if err != nil {
		return nil, err
	}
	nulls := n - bitutil.CountSetBits(vbytes, 0, n)
	var bufs []*memory.Buffer
	release := func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}
	add := func(b *outBuf, size int) error {
		ab, err := o.arrow(ctx, b, size)
		if err == nil {
			bufs = append(bufs, ab)
		}
		return err
	}
	if err := add(c.validity, (n+7)/8); err != nil {
		return nil, err
	}
	clearTail(bufs[0].Bytes(), n)
	switch c.vt {
	case device.VTBool:
		if err = add(c.data, (n+7)/8); err == nil {
			clearTail(bufs[1].Bytes(), n)
		}
	case device.VTStr:
		var off []byte
		if off, err = o.read(ctx, c.offsets, 4*(n+1)); err == nil {
			used := int(binary.LittleEndian.Uint32(off[4*n:]))
			if used > c.data.size {
				err = fmt.Errorf("operators: device wrote %d string bytes into %d", used, c.data.size)
			} else if err = add(c.offsets, 4*(n+1)); err == nil {
				err = add(c.data, used)
			}
		}
	default:
		err = add(c.data, c.vt.Width()*n)
	}
	if err != nil {
		release()
		return nil, err
	}
	data := array.NewData(c.typ, n, bufs, nil, nulls, 0)
	release() // NewData retained the buffers
	defer data.Release()
	return array.MakeFromData(data), nil
}

// record builds the Arrow record of schema out from the first n rows of
// the output columns (the caller owns it).
func (o *outputs) record(ctx context.Context, out *arrow.Schema, cols []*outColumn, n int) (arrow.Record, error) {
	arrays := make([]arrow.Array, len(cols))
	for j, c := range cols {
		a, err := o.array(ctx, c, n)
		if err != nil {
			for _, x := range arrays[:j] {
				x.Release()
			}
			return nil, err
		}
		arrays[j] = a
	}
	rec := array.NewRecord(out, arrays, int64(n))
	for _, a := range arrays {
		a.Release()
	}
	return rec, nil
}
