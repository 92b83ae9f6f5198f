package operators

import (
	"context"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
)

// Gather materialises rows of rec by row number (-1 = a row of nulls, every
// column nullable then) with the device's GATHER op; the result lives in
// t.OutputAllocator() memory; the caller releases it. Strings come out as
// utf8 whatever their input layout (utf8, large, dictionary).
func (t *Target) Gather(ctx context.Context, rec arrow.Record, rows []int32) (arrow.Record, error) {
	if len(rows) == 0 || rec.NumCols() == 0 {
		return t.GatherAt(ctx, rec, 0, len(rows))
	}
	buf, err := t.upload(ctx, int32Bytes(rows))
	if err != nil {
		return nil, err
	}
	defer buf.Free()
	return t.GatherAt(ctx, rec, buf.Addr, len(rows))
}

// GatherAt is Gather with the row numbers already in device memory (n int32
// values at rows).
func (t *Target) GatherAt(ctx context.Context, rec arrow.Record, rows device.Addr, n int) (arrow.Record, error) {
	g, err := t.newGatherer(ctx, rec, gatherSchema(rec.Schema(), true))
	if err != nil {
		return nil, err
	}
	defer g.close()
	return g.one(ctx, rows, n)
}

// int32Bytes is the little-endian encoding of row numbers: rows' own
// memory viewed as bytes (no copy; device memory is little-endian, as
// every host hados runs on), valid while rows is.
func int32Bytes(rows []int32) []byte {
	if len(rows) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&rows[0])), 4*len(rows))
}

// gatherSchema is the schema GATHER produces from in: strings as utf8;
// every field nullable when nullable is set.
func gatherSchema(in *arrow.Schema, nullable bool) *arrow.Schema {
	fields := make([]arrow.Field, in.NumFields())
	for i, f := range in.Fields() {
		switch f.Type.ID() {
		case arrow.LARGE_STRING, arrow.DICTIONARY:
			f.Type = arrow.BinaryTypes.String
		}
		f.Nullable = f.Nullable || nullable
		fields[i] = f
	}
	md := in.Metadata()
	return arrow.NewSchema(fields, &md)
}

// gatherer runs GATHER ops over one staged record: the descriptor is
// uploaded once and serves any number of gathers. Owned by its creator,
// which calls close.
type gatherer struct {
	t      *Target
	out    *arrow.Schema
	st     *staged
	desc   *hmem.Buffer
	rows   int
	vts    []device.VType
	strAvg []float64 // per column: average string bytes of a valid row (strings), 0 otherwise
	hasStr bool
}

func (t *Target) newGatherer(ctx context.Context, rec arrow.Record, out *arrow.Schema) (*gatherer, error) {
	g := &gatherer{t: t, out: out, rows: int(rec.NumRows())}
	if rec.NumCols() == 0 {
		return g, nil
	}
	st, err := t.stage(ctx, rec)
	if err != nil {
		return nil, err
	}
	g.st = st
	for i, c := range st.cols {
		g.vts = append(g.vts, c.VType)
		avg := 0.0
		if c.VType == device.VTStr {
			g.hasStr = true
			avg = avgStringBytes(rec.Column(i))
		}
		g.strAvg = append(g.strAvg, avg)
	}
	enc, err := (&device.Gather{Rows: uint64(g.rows), Columns: st.cols}).Encode()
	if err == nil {
		g.desc, err = t.upload(ctx, enc)
	}
	if err != nil {
		st.release()
		return nil, err
	}
	return g, nil
}

func (g *gatherer) close() {
	if g.desc != nil {
		g.desc.Free()
	}
	if g.st != nil {
		g.st.release()
	}
}

// avgStringBytes estimates the bytes of one valid string of a column.
func avgStringBytes(a arrow.Array) float64 {
	valid := a.Len() - a.NullN()
	if valid <= 0 {
		return 0
	}
	switch s := a.(type) {
	case *array.String:
		o := s.ValueOffsets()
		return float64(o[len(o)-1]-o[0]) / float64(valid)
	case *array.LargeString:
		o := s.ValueOffsets()
		return float64(o[len(o)-1]-o[0]) / float64(valid)
	case *array.Dictionary:
		if d, ok := s.Dictionary().(*array.String); ok && d.Len() > 0 {
			return float64(len(d.ValueBytes())) / float64(d.Len())
		}
	}
	return 16
}

// strCap is the initial string capacity for n gathered rows.
func (g *gatherer) strCap(n int) int {
	m := 0.0
	for _, a := range g.strAvg {
		m = max(m, a)
	}
	return int(m*float64(n)*1.25) + 64
}

// emptyRecord is a record of n rows of nulls (n = 0: empty) without device
// work.
func emptyRecord(s *arrow.Schema, n int, mem memory.Allocator) arrow.Record {
	cols := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, n)
	}
	r := array.NewRecord(s, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return r
}

// one gathers n row numbers at rows into one record. Without string
// columns a large gather is split over the cores, every core writing its
// slice of the same output buffers (slices start at multiples of 8 rows so
// bitmaps split on bytes); with strings it is one op.
func (g *gatherer) one(ctx context.Context, rows device.Addr, n int) (arrow.Record, error) {
	if n == 0 || g.st == nil {
		return emptyRecord(g.out, n, memory.DefaultAllocator), nil
	}
	if g.hasStr {
		recs, err := g.batches(ctx, rows, [][2]int{{0, n}})
		if err != nil {
			return nil, err
		}
		return recs[0], nil
	}
	parts := g.t.parts(n)
	for i := 1; i < len(parts); i++ {
		parts[i][0] &^= 7
		parts[i-1][1] = parts[i][0]
	}
	o := newOutputs(g.t)
	o.uninit = true // GATHER writes every byte it hands over (soft_gather.c)
	defer o.release()
	cols, _, err := o.newColumns(g.out, g.vts, n, 0)
	if err != nil {
		return nil, err
	}
	ops := make([]device.Op, 0, len(parts))
	for _, pr := range parts {
		if pr[1] == pr[0] {
			continue
		}
		descs := make([]device.Column, len(cols))
		for j, c := range cols {
			d := c.desc()
			d.Validity += device.Addr(pr[0] / 8)
			if c.vt == device.VTBool {
				d.Data += device.Addr(pr[0] / 8)
			} else {
				d.Data += device.Addr(pr[0] * c.vt.Width())
			}
			descs[j] = d
		}
		spec, err := g.t.upload(ctx, device.EncodeColumns(descs, uint64(pr[1]-pr[0])))
		if err != nil {
			return nil, err
		}
		defer spec.Free()
		ops = append(ops, g.op(rows+device.Addr(4*pr[0]), pr[1]-pr[0], spec.Addr))
	}
	if _, errs := g.t.exec(ctx, ops); firstError(errs) != nil {
		return nil, wrapOp("gather", firstError(errs))
	}
	return o.record(ctx, g.out, cols, n)
}

func (g *gatherer) op(rows device.Addr, n int, spec device.Addr) device.Op {
	return device.Op{Code: device.OpGather, Src: g.desc.Addr, Len: g.desc.Size, Args: [4]uint64{uint64(rows), uint64(n), uint64(spec)}}
}

// batches gathers each range [lo, hi) of the row numbers at rows into its
// own record, one op per range, concurrently. A string column short of
// bytes is retried with what the device says it needs.
func (g *gatherer) batches(ctx context.Context, rows device.Addr, ranges [][2]int) ([]arrow.Record, error) {
	caps := make([]int, len(ranges))
	for i, r := range ranges {
		caps[i] = g.strCap(r[1] - r[0])
	}
	for attempt := 0; ; attempt++ {
		recs, need, err := g.tryBatches(ctx, rows, ranges, caps)
		if err == nil {
			return recs, nil
		}
		if !isNoMemory(err) || attempt == 3 {
			return nil, wrapOp("gather", err)
		}
		for i := range caps {
			if need[i] > uint64(caps[i]) {
				caps[i] = int(need[i])
			} else if need[i] > 0 {
				caps[i] *= 2
			}
		}
	}
}

func (g *gatherer) tryBatches(ctx context.Context, rows device.Addr, ranges [][2]int, caps []int) ([]arrow.Record, []uint64, error) {
	o := newOutputs(g.t)
	o.uninit = true // GATHER writes every byte it hands over (soft_gather.c)
	defer o.release()
	cols := make([][]*outColumn, len(ranges))
	ops := make([]device.Op, len(ranges))
	for i, r := range ranges {
		n := r[1] - r[0]
		var spec device.Addr
		var err error
		if cols[i], spec, err = o.newPart(ctx, g.out, g.vts, n, caps[i]); err != nil {
			return nil, nil, err
		}
		ops[i] = g.op(rows+device.Addr(4*r[0]), n, spec)
	}
	res, errs := g.t.exec(ctx, ops)
	if err := firstError(errs); err != nil {
		need := make([]uint64, len(ranges))
		for i, e := range errs {
			if e != nil && isNoMemory(e) {
				need[i] = max(res[i], 1)
			}
		}
		return nil, need, err
	}
	recs := make([]arrow.Record, 0, len(ranges))
	for i, r := range ranges {
		rec, err := o.record(ctx, g.out, cols[i], r[1]-r[0])
		if err != nil {
			releaseRecords(recs)
			return nil, nil, err
		}
		recs = append(recs, rec)
	}
	return recs, nil, nil
}

// sliceable reports whether gathering rows of rec (no -1) is the slice of
// rec starting at lo: the rows are consecutive, the device is
// host-visible and every buffer of rec is its device memory (as a
// gathered output would be), and no column changes type in a gather
// (large strings and dictionaries come out as utf8). The slice shares
// rec's buffers instead of copying them.
func (t *Target) sliceable(rec arrow.Record, rows []int32) (lo int64, ok bool) {
	if len(rows) == 0 || rows[0] < 0 || int64(rows[0])+int64(len(rows)) > rec.NumRows() || !t.HostVisible() {
		return 0, false
	}
	first := rows[0]
	for i, r := range rows {
		if r != first+int32(i) {
			return 0, false
		}
	}
	for _, c := range rec.Columns() {
		switch c.DataType().ID() {
		case arrow.LARGE_STRING, arrow.DICTIONARY:
			return 0, false
		}
		if _, err := storageOf(c.DataType()); err != nil {
			return 0, false
		}
		for _, b := range c.Data().Buffers() {
			if b == nil || b.Len() == 0 {
				continue
			}
			if _, ok := t.Pool.Translate(b.Bytes()); !ok {
				return 0, false
			}
		}
		if len(c.Data().Children()) > 0 {
			return 0, false
		}
	}
	return int64(first), true
}
