package operators

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hados-io/hados/device"
	hmem "github.com/hados-io/hados/memory"
)

// sortOrder is the device sort of one record: the key columns (indices
// into the record) and their HADOS_SKEY_* flags.
type sortOrder struct {
	cols  []int
	flags []uint32
}

// order sorts the rows of rec by o with the device: one SORT per core over
// a contiguous range of rows, then rounds of MERGE (pairs of runs merged
// concurrently) until one run is left; or, for a large sort on several
// cores, one SORT per core over a range of the order (orderPartitioned). With limit > 0 only the first limit
// rows of the order are computed (each SORT keeps its best limit rows, the
// merges keep the first limit). It returns a device buffer of n int32 row
// numbers (the caller frees it).
func (t *Target) order(ctx context.Context, rec arrow.Record, o sortOrder, limit int) (*hmem.Buffer, int, error) {
	rows := int(rec.NumRows())
	keys := make([]arrow.Array, len(o.cols))
	fields := make([]arrow.Field, len(o.cols))
	for i, c := range o.cols {
		keys[i], fields[i] = rec.Column(c), rec.Schema().Field(c)
	}
	keyRec := array.NewRecord(arrow.NewSchema(fields, nil), keys, int64(rows))
	st, err := t.stage(ctx, keyRec)
	keyRec.Release()
	if err != nil {
		return nil, 0, err
	}
	defer st.release()
	s := &device.Sort{Rows: uint64(rows)}
	for i, c := range st.cols {
		s.Keys = append(s.Keys, device.SortKey{Column: c, Flags: o.flags[i]})
	}
	enc, err := s.Encode()
	if err != nil {
		return nil, 0, err
	}
	desc, err := t.upload(ctx, enc)
	if err != nil {
		return nil, 0, err
	}
	defer desc.Free()
	parts := t.parts(rows)
	if limit <= 0 && len(parts) > 1 && rows >= sortPartitionRows && (sortPartitionAnyKey || st.cols[0].VType == device.VTStr) {
		if splits := sortSplitters(rec, o, len(parts)); splits != nil {
			return t.orderPartitioned(ctx, desc, rows, splits)
		}
	}
	bufs := [2]*hmem.Buffer{}
	for i := range bufs {
		if bufs[i], err = t.Pool.Alloc(t.Account, uint64(4*max(rows, 1))); err != nil {
			if i == 1 {
				bufs[0].Free()
			}
			return nil, 0, err
		}
	}
	// runs: [start, length) of sorted runs inside the current buffer.
	runs := make([][2]int, len(parts))
	ops := make([]device.Op, len(parts))
	for i, p := range parts {
		ops[i] = device.Op{Code: device.OpSort, Src: desc.Addr, Len: desc.Size, Dst: bufs[0].Addr + device.Addr(4*p[0]),
			Args: [4]uint64{uint64(p[0]), uint64(p[1]), uint64(max(limit, 0))}}
	}
	res, errs := t.exec(ctx, ops)
	if err := firstError(errs); err != nil {
		bufs[0].Free()
		bufs[1].Free()
		return nil, 0, wrapOp("sort", err)
	}
	for i, p := range parts {
		runs[i] = [2]int{p[0], int(res[i])}
	}
	cur := 0
	for len(runs) > 1 {
		var next [][2]int
		ops = ops[:0]
		for i := 0; i+1 < len(runs); i += 2 {
			a, b := runs[i], runs[i+1]
			pieces := 1
			if limit <= 0 && len(runs) == 2 && bufs[cur].Bytes() != nil {
				pieces = min(t.cores(), (a[1]+b[1])/MinRowsPerCore)
			}
			ops = append(ops, t.mergeOps(rec, o, desc, bufs[cur], bufs[1-cur], a, b, pieces)...)
			n := a[1] + b[1]
			if limit > 0 {
				n = min(n, limit)
			}
			next = append(next, [2]int{a[0], n})
		}
		if _, errs := t.exec(ctx, ops); firstError(errs) != nil {
			bufs[0].Free()
			bufs[1].Free()
			return nil, 0, wrapOp("merge", firstError(errs))
		}
		if len(runs)%2 == 1 { // the odd run out moves along unmerged
			last := runs[len(runs)-1]
			if err := t.copyDev(ctx, bufs[1-cur].Addr+device.Addr(4*last[0]), bufs[cur].Addr+device.Addr(4*last[0]), 4*last[1]); err != nil {
				bufs[0].Free()
				bufs[1].Free()
				return nil, 0, err
			}
			next = append(next, last)
		}
		runs, cur = next, 1-cur
	}
	bufs[1-cur].Free()
	if len(runs) == 0 || runs[0][0] != 0 {
		bufs[cur].Free()
		return nil, 0, fmt.Errorf("%w: sort: lost the run of %d rows", device.ErrInvalid, rows)
	}
	return bufs[cur], runs[0][1], nil
}

// sortPartitionRows is the least number of rows a sort on several cores
// partitions by key ranges (orderPartitioned) rather than merging the
// cores' runs, when its first key is a string (sortPartitionAnyKey: any
// key, for tests). A merge by a string key reads every row's string at
// random; by a fixed-width key it compares integers and measured faster
// than every core normalising every row's key to find its range.
var (
	sortPartitionRows   = 4 * MinRowsPerCore
	sortPartitionAnyKey = false
)

// sortSplitters picks k-1 rows of rec that split its order by o (keys, then
// row number) into k ranges of about equal size, from a sample sorted with
// the host comparator; nil when the host cannot compare the keys. The
// splitters only balance the ranges: any rows give a correct sort.
func sortSplitters(rec arrow.Record, o sortOrder, k int) []int32 {
	keys := make([]hostKey, len(o.cols))
	for i, c := range o.cols {
		hk, err := newHostKey(c, rec.Schema().Field(c).Type, o.flags[i]&device.SortDesc != 0, o.flags[i]&device.SortNullsFirst != 0)
		if err != nil {
			return nil
		}
		keys[i] = hk
	}
	rows := int(rec.NumRows())
	n := min(rows, 512*k)
	rng := rand.New(rand.NewPCG(uint64(rows), 0x5eed))
	sample := make([]int, n)
	for i := range sample { // one random row of each of n equal strides
		lo, hi := i*rows/n, (i+1)*rows/n
		sample[i] = lo + rng.IntN(hi-lo)
	}
	slices.SortFunc(sample, func(a, b int) int {
		if c := cmpHostRows(keys, rec, a, rec, b); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	splits := make([]int32, k-1)
	for i := range splits {
		splits[i] = int32(sample[(i+1)*n/k])
	}
	return splits
}

// orderPartitioned sorts rec's rows with one bounded SORT per core, core c
// keeping the rows between splitters c-1 and c of the order (keys, then
// row number): the ranges' outputs, placed one after the other, are the
// whole order, without a MERGE. Every core reads every row's keys, but the
// random reads of a merge by row number are gone.
func (t *Target) orderPartitioned(ctx context.Context, desc *hmem.Buffer, rows int, splits []int32) (*hmem.Buffer, int, error) {
	k := len(splits) + 1
	bufs := make([]*hmem.Buffer, k)
	free := func() {
		for _, b := range bufs {
			if b != nil {
				b.Free()
			}
		}
	}
	ops := make([]device.Op, k)
	for c := range k {
		var err error
		if bufs[c], err = t.Pool.Alloc(t.Account, uint64(4*rows)); err != nil {
			free()
			return nil, 0, err
		}
		lo, hi := uint64(0xffffffff), uint64(0x7fffffff) // unbounded
		if c > 0 {
			lo = uint64(uint32(splits[c-1]))
		}
		if c < k-1 {
			hi = uint64(splits[c])
		}
		ops[c] = device.Op{Code: device.OpSort, Src: desc.Addr, Len: desc.Size, Dst: bufs[c].Addr,
			Args: [4]uint64{0, uint64(rows), 0, device.SortBounds | hi<<32 | lo}}
	}
	res, errs := t.exec(ctx, ops)
	if err := firstError(errs); err != nil {
		free()
		return nil, 0, wrapOp("sort", err)
	}
	total := uint64(0)
	for _, r := range res {
		total += r
	}
	if total != uint64(rows) {
		free()
		return nil, 0, fmt.Errorf("%w: sort: the ranges of the order hold %d rows of %d", device.ErrInvalid, total, rows)
	}
	at := res[0]
	for c := 1; c < k; c++ {
		if err := t.copyDev(ctx, bufs[0].Addr+device.Addr(4*at), bufs[c].Addr, int(4*res[c])); err != nil {
			free()
			return nil, 0, err
		}
		at += res[c]
	}
	out := bufs[0]
	bufs[0] = nil
	free()
	return out, rows, nil
}

// copyDev copies n bytes within device memory.
func (t *Target) copyDev(ctx context.Context, dst, src device.Addr, n int) error {
	if n == 0 {
		return nil
	}
	_, errs := t.exec(ctx, []device.Op{{Code: device.OpCopyD2D, Dst: dst, Src: src, Len: uint64(n)}})
	return firstError(errs)
}

// mergeOps is the MERGE of runs a and b (start, length in src) into dst at
// a's start, as pieces independent MERGE ops when pieces > 1: the host
// finds where the diagonals of the merge cross the runs (merge path,
// binary search with the host comparator over rec's key columns, reading
// the runs in place), so the ops can run on every core. With one piece, or
// when the host cannot compare the keys, it is one op.
func (t *Target) mergeOps(rec arrow.Record, o sortOrder, desc, src, dst *hmem.Buffer, a, b [2]int, pieces int) []device.Op {
	one := func(ai, an, bi, bn, out int) device.Op {
		return device.Op{Code: device.OpMerge, Src: desc.Addr, Len: desc.Size, Dst: dst.Addr + device.Addr(4*out),
			Args: [4]uint64{uint64(src.Addr) + uint64(4*ai), uint64(an), uint64(src.Addr) + uint64(4*bi), uint64(bn)}}
	}
	if pieces <= 1 {
		return []device.Op{one(a[0], a[1], b[0], b[1], a[0])}
	}
	keys := make([]hostKey, len(o.cols))
	for i, c := range o.cols {
		k, err := newHostKey(c, rec.Schema().Field(c).Type, o.flags[i]&device.SortDesc != 0, o.flags[i]&device.SortNullsFirst != 0)
		if err != nil {
			return []device.Op{one(a[0], a[1], b[0], b[1], a[0])}
		}
		keys[i] = k
	}
	mem := src.Bytes()
	row := func(at int) int { return int(int32(binary.LittleEndian.Uint32(mem[4*at:]))) }
	na, nb := a[1], b[1]
	split := func(d int) int { // rows of A among the first d of the stable merge
		lo, hi := max(0, d-nb), min(d, na)
		for lo < hi {
			mid := (lo + hi) / 2
			if cmpHostRows(keys, rec, row(a[0]+mid), rec, row(b[0]+d-mid-1)) <= 0 {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo
	}
	var ops []device.Op
	pi, pd := 0, 0
	for p := 1; p <= pieces; p++ {
		d := (na + nb) * p / pieces
		i := na
		if p < pieces {
			i = split(d)
		}
		ops = append(ops, one(a[0]+pi, i-pi, b[0]+(pd-pi), (d-i)-(pd-pi), a[0]+pd))
		pi, pd = i, d
	}
	return ops
}
