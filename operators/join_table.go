package operators

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	"github.com/hados-io/hados/dma"
	hmem "github.com/hados-io/hados/memory"
)

// joinTable is a hash table on the device over the key columns of one
// record (the build side: its data columns first, then, when the keys are
// expressions, the computed key columns).
//
// It owns the record, the staged key columns (the device state refers to
// them), the device state and the bytes reserved for the state on the
// target's account; free releases all of them. After the build the table
// is read-only: any number of probes may run at once.
type joinTable struct {
	t        *Target
	rec      arrow.Record
	data     int   // rec's first data columns are the side's own columns
	keys     []int // key columns of rec
	nullSafe []bool
	vtypes   []device.VType
	st       *staged
	state    device.Addr
	reserved uint64
	rows     int
	nullKey  bool // some row has a null in a key (null-aware anti joins)
}

// joinStateBytes bounds what the device's hash table of rows rows takes at
// its peak (soft_join.c: state, slots at load <= 3/4, the key filter of a
// power of two words >= rows/8, the build's slot of each row, the row
// array of duplicated keys).
func joinStateBytes(rows int) uint64 {
	capacity := uint64(16)
	for capacity < uint64(rows)+uint64(rows)/3+1 {
		capacity <<= 1
	}
	filter := uint64(8) // words
	for filter*8 < uint64(rows) {
		filter <<= 1
	}
	return 2048 + 16*capacity + 8*filter + 8*uint64(rows) + 192
}

// dataRecord is a view of rec's first n columns (the caller releases it).
func dataRecord(rec arrow.Record, n int) arrow.Record {
	s := rec.Schema()
	fields := s.Fields()[:n]
	return array.NewRecord(arrow.NewSchema(fields, nil), rec.Columns()[:n], rec.NumRows())
}

// columnsRecord is a view of some of rec's columns (the caller releases it).
func columnsRecord(rec arrow.Record, cols []int) arrow.Record {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		fields[i] = rec.Schema().Field(c)
		arrs[i] = rec.Column(c)
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), arrs, rec.NumRows())
}

// hasNull reports whether some row of rec has a null in one of cols.
func hasNull(rec arrow.Record, cols []int) bool {
	for _, c := range cols {
		if rec.Column(c).NullN() > 0 {
			return true
		}
	}
	return false
}

// buildTable builds the hash table over rec's key columns. It takes rec
// over (released by free, or here on error). A quota refusal comes back
// as an error wrapping memory.ErrQuotaExceeded.
func buildTable(ctx context.Context, t *Target, rec arrow.Record, data int, keys []int, nullSafe []bool) (_ *joinTable, err error) {
	jt := &joinTable{t: t, rec: rec, data: data, keys: keys, nullSafe: nullSafe, rows: int(rec.NumRows()), nullKey: hasNull(rec, keys)}
	defer func() {
		if err != nil { // a `return nil, err` leaves jt to clean up here
			_ = jt.free(context.Background())
		}
	}()
	for _, k := range keys {
		vt, err := storageOf(rec.Schema().Field(k).Type)
		if err != nil {
			return nil, err
		}
		jt.vtypes = append(jt.vtypes, vt)
	}
	need := joinStateBytes(jt.rows)
	if t.Account != nil {
		if err := t.Account.Reserve(need); err != nil {
			return nil, fmt.Errorf("hash join: a table of %d rows needs %s: %w", jt.rows, hmem.FormatBytes(need), err)
		}
	}
	jt.reserved = need
	kr := columnsRecord(rec, keys)
	defer kr.Release()
	if jt.st, err = t.stage(ctx, kr); err != nil {
		return nil, err
	}
	enc, err := (&device.Join{Rows: uint64(jt.rows), Keys: jt.st.cols, NullSafe: nullSafe}).Encode()
	if err != nil {
		return nil, err
	}
	desc, err := t.upload(ctx, enc)
	if err != nil {
		return nil, err
	}
	defer desc.Free()
	cell, err := t.Pool.Alloc(t.Account, 8)
	if err != nil {
		return nil, err
	}
	defer cell.Free()
	if jt.state, err = buildState(ctx, t, desc, cell, need, buildParts(t, jt.rows)); err != nil {
		return nil, err
	}
	// the build's scratch (a slot number per row) is gone now
	if scratch := 4*uint64(jt.rows) + 64; t.Account != nil && scratch < jt.reserved {
		t.Account.Release(scratch)
		jt.reserved -= scratch
	}
	return jt, nil
}

// joinParallelRows is the fewest build rows the device builds over
// several cores (soft_join.c's PAR_MIN_ROWS): below it, one core.
const joinParallelRows = 1 << 16

// maxBuildParts bounds the parts of a build (the device takes up to 16).
// It is 1, the build on one core, until a build over several measures
// faster: on the shared 2-core machine where it was written (load 8-12),
// BenchmarkHashJoinBuild of 1.5M sparse keys took 36 ms best / 58-64 ms
// mean on one core and 47-64 / 95-114 ms over both, each part's inserts
// running at under half the speed of the single core's. Measured again
// (2026-11-29, load 4-6) after the parts stopped sharing filter words and
// a part that starts late leaves its region to the others:
// BenchmarkBroadcastTableBuild's 225k keys took 3.4 ms best over both
// cores, 3.6 on one, for 1.6 times the CPU time.
var maxBuildParts = 1

// buildParts is how many parts a build of rows rows is split into: the
// largest power of two up to the device's cores (at most maxBuildParts),
// or 1.
func buildParts(t *Target, rows int) int {
	if rows < joinParallelRows {
		return 1
	}
	p := 1
	for p*2 <= min(t.cores(), maxBuildParts) {
		p *= 2
	}
	return p
}

// buildState runs the device's build of the table described by desc and
// returns the state. With parts > 1 the build op prepares the state and
// one op per part, run at once on the engine's cores, fills it; when they
// give up (a duplicated key: soft_join.c), the state is freed and built
// again on one core.
func buildState(ctx context.Context, t *Target, desc, cell *hmem.Buffer, budget uint64, parts int) (device.Addr, error) {
	res, errs := t.exec(ctx, []device.Op{{Code: device.OpJoinBuild, Src: desc.Addr, Len: desc.Size, Dst: cell.Addr, Args: [4]uint64{budget, uint64(parts)}}})
	if err := firstError(errs); err != nil {
		return 0, wrapOp("hash join: build", err)
	}
	state := device.Addr(res[0])
	if parts <= 1 {
		return state, nil
	}
	ops := make([]device.Op, parts)
	for p := range ops {
		ops[p] = device.Op{Code: device.OpJoinBuild, Args: [4]uint64{0, 0, uint64(state), uint64(p)}}
	}
	res, errs = t.exec(ctx, ops)
	whole := true
	for _, r := range res {
		whole = whole && r != 0
	}
	if err := firstError(errs); err != nil || !whole {
		// freed even when ctx is cancelled (the gate would refuse the op
		// under ctx and the state's device memory would leak)
		_, ferrs := t.exec(context.Background(), []device.Op{{Code: device.OpJoinFree, Src: state}})
		if err != nil {
			return 0, wrapOp("hash join: build", err)
		}
		if err := firstError(ferrs); err != nil {
			return 0, wrapOp("hash join: free", err)
		}
		return buildState(ctx, t, desc, cell, budget, 1)
	}
	return state, nil
}

// free releases the state, the staged columns, the record and the
// reservation; it is idempotent.
func (jt *joinTable) free(ctx context.Context) error {
	var err error
	if jt.state != 0 {
		_, errs := jt.t.exec(ctx, []device.Op{{Code: device.OpJoinFree, Src: jt.state}})
		err = wrapOp("hash join: free", firstError(errs))
		jt.state = 0
	}
	if jt.st != nil {
		jt.st.release()
		jt.st = nil
	}
	if jt.rec != nil {
		jt.rec.Release()
		jt.rec = nil
	}
	if jt.reserved > 0 && jt.t.Account != nil {
		jt.t.Account.Release(jt.reserved)
	}
	jt.reserved = 0
	return err
}

// probeBuffers are one core's probe output: pair arrays and the cursor.
type probeBuffers struct {
	probe, build, out *hmem.Buffer
	o                 device.JoinOut
	done              bool
	resumed           bool    // the op ran more than once: its pairs are collected in p, b
	p, b              []int32 // pairs collected so far (resumed parts)
	last              int     // pairs of a part done in one op, still in probe, build
}

// probe runs the probe over a batch's key columns (keyRec: the probe
// side's keys in the table's key order) on every core, resuming each op
// until its rows are done, and returns the pairs in probe row order.
// cond, with flags holding device.ProbeCond, is the uploaded JoinCond
// descriptor the probe tests candidates with (the caller keeps it and the
// columns it refers to alive until probe returns); nil otherwise.
func (jt *joinTable) probe(ctx context.Context, t *Target, keyRec arrow.Record, flags uint32, cond *hmem.Buffer) (pp, bb []int32, err error) {
	rows := int(keyRec.NumRows())
	if rows == 0 {
		return nil, nil, nil
	}
	st, err := t.stage(ctx, keyRec)
	if err != nil {
		return nil, nil, err
	}
	defer st.release()
	enc, err := (&device.Join{Rows: uint64(rows), Keys: st.cols, NullSafe: jt.nullSafe}).Encode()
	if err != nil {
		return nil, nil, err
	}
	desc, err := t.upload(ctx, enc)
	if err != nil {
		return nil, nil, err
	}
	defer desc.Free()
	parts := t.parts(rows)
	bufs := make([]*probeBuffers, len(parts))
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.free()
			}
		}
	}()
	for i, pr := range parts {
		n := pr[1] - pr[0]
		capacity := max(1024, n+n/8)
		b := &probeBuffers{}
		bufs[i] = b
		if b.probe, err = t.Pool.Alloc(t.Account, uint64(4*capacity)); err != nil {
			return nil, nil, err
		}
		if b.build, err = t.Pool.Alloc(t.Account, uint64(4*capacity)); err != nil {
			return nil, nil, err
		}
		b.o = device.JoinOut{ProbeRows: b.probe.Addr, BuildRows: b.build.Addr, Capacity: uint64(capacity), Flags: flags,
			EndRow: uint64(pr[1]), NextRow: uint64(pr[0])}
		if b.out, err = t.upload(ctx, b.o.Encode()); err != nil {
			return nil, nil, err
		}
	}
	var condAddr, condLen uint64
	if cond != nil {
		condAddr, condLen = uint64(cond.Addr), cond.Size
	}
	for {
		var ops []device.Op
		var active []*probeBuffers
		for _, b := range bufs {
			if !b.done {
				ops = append(ops, device.Op{Code: device.OpJoinProbe, Src: desc.Addr, Len: desc.Size,
					Args: [4]uint64{uint64(jt.state), uint64(b.out.Addr), condAddr, condLen}})
				active = append(active, b)
			}
		}
		if len(ops) == 0 {
			break
		}
		res, errs := t.exec(ctx, ops)
		if err := firstError(errs); err != nil {
			return nil, nil, wrapOp("hash join: probe", err)
		}
		for i, b := range active {
			n := int(res[i])
			cur, err := readDev(ctx, t, b.out, device.SizeofJoinOut, nil)
			if err != nil {
				return nil, nil, err
			}
			o, err := device.DecodeJoinOut(cur)
			if err != nil {
				return nil, nil, err
			}
			if o.NextRow == o.EndRow {
				b.done = true
			} else if n == 0 {
				return nil, nil, fmt.Errorf("hash join: probe made no progress at row %d", o.NextRow)
			}
			if b.done && !b.resumed {
				// all of the part's pairs came in one op: they stay in
				// the device buffers until the final copy below
				b.last = n
				continue
			}
			b.resumed = true
			if b.p, err = appendDevInt32(ctx, t, b.p, b.probe, n); err != nil {
				return nil, nil, err
			}
			if b.b, err = appendDevInt32(ctx, t, b.b, b.build, n); err != nil {
				return nil, nil, err
			}
		}
	}
	// one copy of every part's pairs, in probe row order
	total := 0
	for _, b := range bufs {
		total += len(b.p) + b.last
	}
	if len(bufs) == 1 && bufs[0].resumed {
		return bufs[0].p, bufs[0].b, nil
	}
	pp, bb = make([]int32, 0, total), make([]int32, 0, total)
	for _, b := range bufs {
		if b.resumed {
			pp = append(pp, b.p...)
			bb = append(bb, b.b...)
			continue
		}
		if pp, err = appendDevInt32(ctx, t, pp, b.probe, b.last); err != nil {
			return nil, nil, err
		}
		if bb, err = appendDevInt32(ctx, t, bb, b.build, b.last); err != nil {
			return nil, nil, err
		}
	}
	return pp, bb, nil
}

func (b *probeBuffers) free() {
	for _, x := range []*hmem.Buffer{b.probe, b.build, b.out} {
		if x != nil {
			x.Free()
		}
	}
}

// readDev reads n bytes of a device buffer: the mapping itself on a
// host-visible device (valid until the buffer changes), else a copy into
// dst (allocated when too small).
func readDev(ctx context.Context, t *Target, b *hmem.Buffer, n int, dst []byte) ([]byte, error) {
	if h := b.Bytes(); h != nil {
		return h[:n], nil
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	if n == 0 {
		return dst, nil
	}
	return dst, t.DMA.Copy(ctx, dma.D2H, dma.Segment{Host: dst, Dev: b.Addr, Len: uint64(n)})
}

// appendDevInt32 appends n int32 values of a device buffer to s.
func appendDevInt32(ctx context.Context, t *Target, s []int32, b *hmem.Buffer, n int) ([]int32, error) {
	if n == 0 {
		return s, nil
	}
	raw, err := readDev(ctx, t, b, 4*n, nil)
	if err != nil {
		return s, err
	}
	// device memory is little-endian, as every host hados runs on
	return append(s, unsafe.Slice((*int32)(unsafe.Pointer(&raw[0])), n)...), nil
}
