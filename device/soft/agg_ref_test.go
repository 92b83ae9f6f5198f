package soft

// A plain Go reference for the aggregation state: a map from the encoded
// key tuple to groups in first-seen order, and Spark's buffer semantics
// written out directly. The C state is checked against it.

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"
)

const (
	vtBool = 1
	vtI32  = 2
	vtI64  = 3
	vtF64  = 4
	vtI128 = 5
	vtStr  = 6

	aggSum   = 1
	aggCount = 2
	aggMin   = 3
	aggMax   = 4
	aggFirst = 5

	aggfDecimal     = 1
	aggfIgnoreNulls = 2
	aggfMerge       = 4

	noReg = 0xffff

	statusInvalid = -1
	statusNoMem   = -2
)

var vtNames = [...]string{"?", "BOOL", "I32", "I64", "F64", "I128", "STR"}

type refAcc struct {
	count           int64
	sum             aggVal
	dec             big.Int
	valid, set, ovf bool
	val             aggVal
}

type refGroup struct {
	keys []aggVal
	accs []refAcc
}

type refState struct {
	spec   hookSpec
	groups []*refGroup
	index  map[string]int
}

func newRef(spec hookSpec) *refState {
	r := &refState{spec: spec, index: map[string]int{}}
	if len(spec.Keys) == 0 {
		r.group(nil)
	}
	return r
}

// normKey normalises a key value as grouping sees it.
func normKey(vt uint32, v aggVal) aggVal {
	if v.Null {
		return aggVal{Null: true}
	}
	switch vt {
	case vtBool:
		return aggVal{I: v.I & 1}
	case vtI32:
		return aggVal{I: int64(int32(v.I))}
	case vtF64:
		if math.IsNaN(v.F) {
			return aggVal{F: math.Float64frombits(0x7ff8000000000000)}
		}
		if v.F == 0 {
			return aggVal{F: 0}
		}
		return aggVal{F: v.F}
	case vtI128:
		return aggVal{W: v.W}
	case vtStr:
		return aggVal{S: v.S}
	}
	return aggVal{I: v.I}
}

func encodeKeys(vts []uint32, keys []aggVal) string {
	var b strings.Builder
	var w [16]byte
	for k, v := range keys {
		if v.Null {
			b.WriteByte(0)
			continue
		}
		b.WriteByte(1)
		switch vts[k] {
		case vtF64:
			binary.LittleEndian.PutUint64(w[:], math.Float64bits(v.F))
			b.Write(w[:8])
		case vtI128:
			binary.LittleEndian.PutUint64(w[:], v.W.Lo)
			binary.LittleEndian.PutUint64(w[8:], uint64(v.W.Hi))
			b.Write(w[:])
		case vtStr:
			binary.LittleEndian.PutUint32(w[:], uint32(len(v.S)))
			b.Write(w[:4])
			b.WriteString(v.S)
		default:
			binary.LittleEndian.PutUint64(w[:], uint64(v.I))
			b.Write(w[:8])
		}
	}
	return b.String()
}

func (r *refState) group(keys []aggVal) *refGroup {
	enc := encodeKeys(r.spec.Keys, keys)
	if i, ok := r.index[enc]; ok {
		return r.groups[i]
	}
	g := &refGroup{keys: keys, accs: make([]refAcc, len(r.spec.Aggs))}
	r.index[enc] = len(r.groups)
	r.groups = append(r.groups, g)
	return g
}

func selRows(n int, sel []uint16) []int {
	rows := make([]int, 0, n)
	if sel == nil {
		for i := range n {
			rows = append(rows, i)
		}
		return rows
	}
	for _, s := range sel {
		rows = append(rows, int(s))
	}
	return rows
}

func (r *refState) update(keys, args, args2 []hookCol, n int, sel []uint16) {
	for _, row := range selRows(n, sel) {
		kv := make([]aggVal, len(r.spec.Keys))
		for k, vt := range r.spec.Keys {
			kv[k] = normKey(vt, keys[k].Vals[row])
		}
		g := r.group(kv)
		for j, a := range r.spec.Aggs {
			var x aggVal
			var flag aggVal
			if args[j].VT != 0 {
				x = args[j].Vals[row]
			}
			if args2 != nil && args2[j].VT != 0 {
				flag = args2[j].Vals[row]
			}
			refFold(a, &g.accs[j], x, flag)
		}
	}
}

func fitsStorage(x *big.Int, vt uint32) bool {
	bits := 63
	if vt == vtI128 {
		bits = 127
	}
	lim := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	return x.Cmp(lim) < 0 && x.Cmp(new(big.Int).Neg(lim)) >= 0
}

func bigOf(vt uint32, v aggVal) *big.Int {
	if vt != vtI128 {
		return big.NewInt(v.I)
	}
	x := new(big.Int).Lsh(big.NewInt(v.W.Hi), 64)
	return x.Add(x, new(big.Int).SetUint64(v.W.Lo))
}

func i128Of(x *big.Int) i128 {
	lo := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi := new(big.Int).Rsh(x, 64).Int64()
	return i128{Hi: hi, Lo: lo}
}

// refLess is Spark's ordering of non-null values: NaN largest, strings
// bytewise.
func refLess(vt uint32, a, b aggVal) bool {
	switch vt {
	case vtF64:
		if math.IsNaN(a.F) {
			return false
		}
		if math.IsNaN(b.F) {
			return true
		}
		return a.F < b.F
	case vtStr:
		return a.S < b.S
	case vtI128:
		return a.W.Hi < b.W.Hi || (a.W.Hi == b.W.Hi && a.W.Lo < b.W.Lo)
	case vtBool:
		return a.I&1 < b.I&1
	}
	return a.I < b.I
}

// refFold folds input x (flag: the second input of a merge) into acc.
func refFold(a hookAgg, acc *refAcc, x, flag aggVal) {
	merge := a.Flags&aggfMerge != 0
	switch a.Func {
	case aggCount:
		switch {
		case a.Arg == noReg:
			acc.count++
		case x.Null:
		case merge:
			acc.count += x.I
		default:
			acc.count++
		}
	case aggSum:
		if a.Flags&aggfDecimal != 0 {
			empty := !merge && x.Null || merge && (flag.Null || flag.I&1 == 1)
			if !empty {
				acc.set = true
			}
			if x.Null {
				if merge && !empty {
					acc.ovf = true
				}
				return
			}
			if acc.ovf {
				return
			}
			var s big.Int
			s.Add(&acc.dec, bigOf(a.In, x))
			if !fitsStorage(&s, a.Out) {
				acc.ovf = true
				return
			}
			acc.dec.Set(&s)
			return
		}
		if x.Null {
			return
		}
		acc.valid = true
		if a.In == vtF64 {
			acc.sum.F += x.F
		} else {
			acc.sum.I += x.I // generated I32 inputs are within int32
		}
	case aggMin, aggMax:
		if x.Null {
			return
		}
		if acc.valid && !(a.Func == aggMin && refLess(a.In, x, acc.val) || a.Func == aggMax && refLess(a.In, acc.val, x)) {
			return
		}
		acc.val, acc.valid = x, true
	case aggFirst:
		if acc.set {
			return
		}
		take := !x.Null || a.Flags&aggfIgnoreNulls == 0
		if merge {
			take = !flag.Null && flag.I&1 == 1
		}
		if take {
			acc.set, acc.valid, acc.val = true, !x.Null, x
		}
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// mergeInput is acc as a partial buffer: the value and second input a
// merge aggregate would read.
func mergeInput(a hookAgg, acc *refAcc) (x, flag aggVal) {
	switch a.Func {
	case aggCount:
		return aggVal{I: acc.count}, aggVal{}
	case aggSum:
		if a.Flags&aggfDecimal != 0 {
			x = aggVal{Null: acc.ovf}
			if a.Out == vtI128 {
				x.W = i128Of(&acc.dec)
			} else {
				x.I = acc.dec.Int64()
			}
			return x, aggVal{I: boolInt(!acc.set)}
		}
		x = acc.sum
		x.Null = !acc.valid
		return x, aggVal{}
	case aggFirst:
		x = acc.val
		x.Null = !acc.valid
		return x, aggVal{I: boolInt(acc.set)}
	}
	x = acc.val
	x.Null = !acc.valid
	return x, aggVal{}
}

// asMerge is a's merge form (the aggregate that folds a's buffers).
func asMerge(a hookAgg) hookAgg {
	m := a
	m.Flags |= aggfMerge
	if m.Func == aggCount {
		m.Arg, m.In = 0, vtI64
	}
	if m.Func == aggSum && m.Flags&aggfDecimal != 0 {
		m.In = m.Out
	}
	if m.Func == aggSum && m.In == vtI32 {
		m.In = vtI64
	}
	return m
}

// merge folds src into r the way soft_agg_merge does.
func (r *refState) merge(src *refState) {
	for _, sg := range src.groups {
		g := r.group(sg.keys)
		for j, a := range r.spec.Aggs {
			x, flag := mergeInput(a, &sg.accs[j])
			refFold(asMerge(a), &g.accs[j], x, flag)
		}
	}
}

// outVTs are the emitted columns' types: keys, then buffers.
func outVTs(spec hookSpec) []uint32 {
	vts := append([]uint32(nil), spec.Keys...)
	for _, a := range spec.Aggs {
		vts = append(vts, a.Out)
		if a.Func == aggFirst || a.Func == aggSum && a.Flags&aggfDecimal != 0 {
			vts = append(vts, vtBool)
		}
	}
	return vts
}

// columns is what emit must produce.
func (r *refState) columns() []hookCol {
	vts := outVTs(r.spec)
	cols := make([]hookCol, len(vts))
	for i, vt := range vts {
		cols[i] = hookCol{VT: vt, Vals: make([]aggVal, len(r.groups))}
	}
	for gi, g := range r.groups {
		c := 0
		for k := range r.spec.Keys {
			cols[c].Vals[gi] = g.keys[k]
			c++
		}
		for j, a := range r.spec.Aggs {
			acc := &g.accs[j]
			switch {
			case a.Func == aggCount:
				cols[c].Vals[gi] = aggVal{I: acc.count}
			case a.Func == aggSum && a.Flags&aggfDecimal != 0:
				v, _ := mergeInput(a, acc)
				cols[c].Vals[gi] = v
				c++
				cols[c].Vals[gi] = aggVal{I: boolInt(!acc.set)}
			case a.Func == aggFirst:
				v := acc.val
				v.Null = !acc.valid
				cols[c].Vals[gi] = v
				c++
				cols[c].Vals[gi] = aggVal{I: boolInt(acc.set)}
			case a.Func == aggSum:
				v := acc.sum
				v.Null = !acc.valid
				cols[c].Vals[gi] = v
			default:
				v := acc.val
				v.Null = !acc.valid
				cols[c].Vals[gi] = v
			}
			c++
		}
	}
	return cols
}

// sameVal compares two values of type vt (NaNs are equal to each other).
func sameVal(vt uint32, a, b aggVal) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	switch vt {
	case vtF64:
		if math.IsNaN(a.F) || math.IsNaN(b.F) {
			return math.IsNaN(a.F) && math.IsNaN(b.F)
		}
		return math.Float64bits(a.F) == math.Float64bits(b.F)
	case vtI128:
		return a.W == b.W
	case vtStr:
		return a.S == b.S
	case vtBool:
		return a.I&1 == b.I&1
	case vtI32:
		return int32(a.I) == int32(b.I)
	}
	return a.I == b.I
}
